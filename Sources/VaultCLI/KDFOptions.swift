import ArgumentParser
import VaultCore
import VaultLanguage

/// `--kdf-iterations` for the commands that set a password (init, passwd, key add).
struct KDFOptions: ParsableArguments {
    @Option(help: "PBKDF2-HMAC-SHA512 rounds (1,000 to 10,000,000; default: calibrated to about 0.5 s, at least 210,000).")
    var kdfIterations: Int?

    func validate() throws {
        if let kdfIterations, !(KDFParameters.iterationFloor...KDFParameters.iterationCeiling).contains(kdfIterations) {
            throw ValidationError(tr("--kdf-iterations must be between 1,000 and 10,000,000."))
        }
    }

    /// The explicit value, or `fallback` (calibrated on this machine unless a current slot's count is kept).
    func iterations(keeping fallback: Int? = nil) -> Int {
        kdfIterations ?? fallback ?? KDFCalibration.recommendedIterations()
    }
}

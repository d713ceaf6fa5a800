import Foundation
import VaultAPI
import VaultModel

/// Picks PBKDF2 rounds so that unlocking takes about half a second on this machine, never below the default.
public enum KDFCalibration {
    public static func recommendedIterations(targetSeconds: Double = 0.5) -> Int {
        let probe = 20_000
        let password = SecretBytes(Array("calibration".utf8))
        let start = ContinuousClock.now
        _ = try? PBKDF2.derive(password: password, salt: Array(repeating: 7, count: 32), iterations: probe)
        let seconds = (ContinuousClock.now - start).inSeconds
        guard seconds > 0 else { return KDFParameters.defaultIterations }
        let scaled = Int(saturating: Double(probe) * targetSeconds / seconds)
        let rounded = (scaled / 10_000) * 10_000
        return min(max(rounded, KDFParameters.defaultIterations), 2_000_000)
    }
}

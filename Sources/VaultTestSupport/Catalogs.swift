import Foundation

/// The student's languages for tests: po/ compiled once per test run by `scripts/catalogs` (the same script setup and
/// the package use) into a directory of the run's own, which a test hands to the binary as VAULT_LOCALEDIR.
public enum Catalogs {
    private static let compiled = Result { () throws -> TemporaryDirectory in
        let directory = TemporaryDirectory("vault-locale")
        let result = try Binaries.system("bash", [Binaries.repositoryRoot + "/scripts/catalogs", directory.path])
        guard result.status == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "scripts/catalogs failed: \(result.stderr)"])
        }
        return directory
    }

    /// The compiled catalogs' directory (`<lang>/LC_MESSAGES/vault.mo`, the pseudo-language `qps` too).
    public static func directory() throws -> String { try compiled.get().path }

    /// The languages the vault speaks besides English, as po/ has them.
    public static var languages: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Binaries.repositoryRoot + "/po")) ?? []
        return names.filter { $0.hasSuffix(".po") }.map { String($0.dropLast(3)) }.sorted()
    }
}

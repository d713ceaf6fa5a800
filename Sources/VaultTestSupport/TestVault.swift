import Foundation
import VaultAPI
import VaultCore

/// Vaults for tests: real SQLCipher, real PBKDF2, with a low iteration count passed explicitly.
public enum TestVault {
    public static let iterations = 1_000
    public static let password = "correct horse battery staple"

    public static func secret(_ text: String) -> SecretBytes { SecretBytes(Array(text.utf8)) }

    public static func create(in directory: TemporaryDirectory, name: String = "vault", password: String = password) throws -> Vault {
        try Vault.create(paths: VaultPaths(directory: directory.file(name)), password: secret(password), iterations: iterations)
    }

    public static func open(in directory: TemporaryDirectory, name: String = "vault", password: String = password) throws -> Vault {
        try Vault.open(paths: VaultPaths(directory: directory.file(name)), password: secret(password), lockWait: .milliseconds(200))
    }

    /// The bytes of every file in a directory, to prove an operation changed nothing.
    public static func snapshot(_ directory: String) -> [String: Data] {
        var result: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            result[name] = FileManager.default.contents(atPath: directory + "/" + name)
        }
        return result
    }

    /// Files under `paths` that contain any of `needles` as raw bytes.
    public static func filesContaining(_ needles: [String], in paths: [String]) -> [String] {
        var hits: [String] = []
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            for needle in needles where CanonicalJSON.mentions(needle, in: data) {
                hits.append("\(path): \(needle)")
            }
        }
        return hits
    }
}

import Foundation
import VaultAPI
import VaultCore
import VaultModel

/// Salted PBKDF2-HMAC-SHA256 for account passwords, and random bearer tokens stored as SHA-256 hashes.
public enum PasswordHasher {
    public static func makeRecord(name: String, role: Role, password: SecretBytes, iterations: Int) throws -> UserRecord {
        let salt = try CryptoRandom.bytes(16)
        let hash = try PBKDF2.derive(password: password, salt: salt, iterations: iterations, hash: .sha256)
        return UserRecord(
            name: name,
            role: role,
            passwordHash: hash.withUnsafeBytes { Hex.encode($0) },
            salt: Hex.encode(salt),
            iterations: iterations
        )
    }

    /// Constant-time check of a password against a stored record.
    public static func verify(_ password: SecretBytes, against record: UserRecord) -> Bool {
        guard let salt = Hex.decode(record.salt), let expected = Hex.decode(record.passwordHash),
            (1_000...10_000_000).contains(record.iterations),
            let derived = try? PBKDF2.derive(password: password, salt: salt, iterations: record.iterations, hash: .sha256)
        else { return false }
        return derived.isEqual(to: SecretBytes(expected))
    }

    public static func newToken() throws -> String { "vt_" + Hex.encode(try CryptoRandom.bytes(32)) }

    public static func tokenHash(_ token: String) -> String { SHA256.hex(Data(token.utf8)) }
}

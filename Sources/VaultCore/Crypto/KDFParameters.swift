import Foundation
import VaultLanguage
import VaultModel

/// How a slot's key-encryption key is derived from a password.
public struct KDFParameters: Codable, Sendable, Equatable {
    public var algorithm: PBKDF2.Hash
    public var iterations: Int
    /// 32 random bytes, base64.
    public var salt: String

    /// Stored values outside these bounds are refused before any derivation: a tampered key file must not make
    /// unlocking take an hour, nor fall to a trivial iteration count.
    public static let iterationFloor = 1_000
    public static let iterationCeiling = 10_000_000
    /// The default for new passwords (OWASP 2023 figure for PBKDF2-HMAC-SHA512).
    public static let defaultIterations = 210_000

    public init(algorithm: PBKDF2.Hash = .sha512, iterations: Int, salt: [UInt8]) {
        self.algorithm = algorithm
        self.iterations = iterations
        self.salt = Data(salt).base64EncodedString()
    }

    public var saltBytes: [UInt8]? { Data(base64Encoded: salt).map(Array.init) }

    /// Checks the parameters without running the KDF.
    public func validate() throws {
        guard iterations >= Self.iterationFloor, iterations <= Self.iterationCeiling else {
            throw KeyFileError.parametersOutOfRange(iterations: iterations)
        }
        guard let bytes = saltBytes, bytes.count == 32 else { throw KeyFileError.malformed("slot salt is not 32 bytes") }
    }

    public func deriveKey(from password: SecretBytes) throws -> SecretBytes {
        try validate()
        return try PBKDF2.derive(password: password, salt: saltBytes ?? [], iterations: iterations, hash: algorithm)
    }
}

/// Why a key file could not be used. Never carries key material.
public enum KeyFileError: Error, Sendable, Equatable {
    case malformed(String)
    case checksumMismatch
    case unsupportedFormat(Int)
    case parametersOutOfRange(iterations: Int)
    case tooManySlots(Int)
    case totalCostTooHigh(iterations: Int)
    case badLabel
    case wrongPassword
}

extension KeyFileError {
    /// The plain sentence for a key file that was read from `path` (or is about to be written there).
    public func vaultError(path: String) -> VaultError {
        switch self {
        case .parametersOutOfRange(let iterations):
            VaultError(
                .keyFileDamaged,
                tr(
                    "The key file {path} asks for {iterations} key-derivation rounds, outside the allowed range. It is damaged or was tampered with.",
                    ["path": path, "iterations": iterations]
                )
            )
        case .tooManySlots(let count):
            VaultError(
                .keyFileDamaged,
                tr(
                    "The key file {path} would hold {count} key slots; at most {max_slots} are allowed. Remove a slot with `vault key remove` first, or restore the file from a backup if you did not add them.",
                    ["path": path, "count": count, "max_slots": KeyFile.Limits.maxSlots]
                )
            )
        case .totalCostTooHigh(let iterations):
            VaultError(
                .keyFileDamaged,
                tr(
                    "The key file {path} would need {iterations} key-derivation rounds over all its slots, more than the {max_total_iterations} allowed. Remove a slot or use fewer rounds.",
                    ["path": path, "iterations": iterations, "max_total_iterations": KeyFile.Limits.maxTotalIterations]
                )
            )
        case .badLabel:
            VaultError(
                .usage,
                tr(
                    "A key slot label must be 1 to {max_label_bytes} bytes of printable text. Choose a shorter label.",
                    ["max_label_bytes": KeyFile.Limits.maxLabelBytes]
                )
            )
        case .wrongPassword:
            VaultError.wrongPassword
        default:
            VaultError(.keyFileDamaged, tr("The key file {path} is damaged. Restore it from a backup.", ["path": path]), detail: "\(self)")
        }
    }
}

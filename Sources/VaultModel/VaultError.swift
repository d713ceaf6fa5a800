import VaultLanguage

/// Everything that can go wrong with a vault, as a plain sentence for the student plus technical detail.
///
/// `message` never contains a password, key, token or the content of an answer; `detail` (for `--verbose`) may
/// hold SQLite or OpenSSL codes but never secrets either.
public struct VaultError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The class of failure; the CLI maps each to an exit code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case wrongPassword, passwordRequired, notAllowed, insecureFiles
            case keyFileDamaged, keyFileMismatch, databaseDamaged, damagedRow, invalidData
            case noVault, vaultExists, cannotCreate, io, diskFull, busy, usage, notFound, offline, temporary
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        public static let wrongPassword = Code(.wrongPassword)
        public static let passwordRequired = Code(.passwordRequired)
        public static let notAllowed = Code(.notAllowed)
        public static let insecureFiles = Code(.insecureFiles)
        public static let keyFileDamaged = Code(.keyFileDamaged)
        public static let keyFileMismatch = Code(.keyFileMismatch)
        public static let databaseDamaged = Code(.databaseDamaged)
        public static let invalidData = Code(.invalidData)
        /// One stored row does not read back (the database itself is sound): named, never left out in silence.
        public static let damagedRow = Code(.damagedRow)
        public static let noVault = Code(.noVault)
        public static let vaultExists = Code(.vaultExists)
        public static let cannotCreate = Code(.cannotCreate)
        public static let io = Code(.io)
        public static let diskFull = Code(.diskFull)
        public static let busy = Code(.busy)
        public static let usage = Code(.usage)
        public static let notFound = Code(.notFound)
        public static let offline = Code(.offline)
        public static let temporary = Code(.temporary)

        public var description: String { value.rawValue }

        /// What kind of failure it is for whoever runs the command: each code belongs to exactly one, and the
        /// switch has no default, so a new code cannot be added without saying which (the CLI maps these to exit
        /// codes, again without a default).
        public enum Kind: Sendable, CaseIterable {
            case denied, badData, noInput, cannotCreate, io, temporary, offline, usage
        }

        public var kind: Kind {
            switch value {
            case .wrongPassword, .passwordRequired, .notAllowed, .insecureFiles: .denied
            case .keyFileDamaged, .keyFileMismatch, .databaseDamaged, .damagedRow, .invalidData: .badData
            case .noVault, .notFound: .noInput
            case .vaultExists, .cannotCreate: .cannotCreate
            case .io, .diskFull: .io
            case .busy, .temporary: .temporary
            case .offline: .offline
            case .usage: .usage
            }
        }
    }

    public let code: Code
    public let message: String
    public let detail: String?

    public init(_ code: Code, _ message: String, detail: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }

    public var description: String {
        detail.map { "\(message) [\(code): \($0)]" } ?? message
    }

    public static func == (lhs: VaultError, rhs: VaultError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }
}

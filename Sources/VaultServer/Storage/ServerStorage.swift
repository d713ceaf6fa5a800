import Foundation
import VaultAPI

/// A user account; the password is stored only as a salted PBKDF2 hash.
public struct UserRecord: Sendable, Equatable {
    public var name: String
    public var role: Role
    public var passwordHash: String
    public var salt: String
    public var iterations: Int
}

/// Where the server keeps everything. Each method is atomic; the SQLite implementation is the default, and a
/// PostgreSQL one can follow behind the same protocol.
public protocol ServerStorage: Sendable {
    func createUser(_ user: UserRecord) async throws
    func user(named name: String) async throws -> UserRecord?
    func storeToken(hash: String, user: String, expiresAt: Date) async throws
    func tokenOwner(hash: String, now: Date) async throws -> (user: String, role: Role)?
    /// Replaces a user's password hash (raising an older hash to the current cost).
    func updatePassword(_ user: UserRecord) async throws
    /// Revokes one token (logout): it is deleted, so it is unknown from then on.
    func revokeToken(hash: String) async throws
    /// Deletes tokens that expired before `now`.
    func purgeExpiredTokens(now: Date) async throws

    /// Publishes or updates; the version grows only when the content changes.
    func publish(_ assessment: Assessment, now: Date) async throws -> PublishResponse
    func delete(id: String, now: Date) async throws -> Bool
    func catalog() async throws -> [CatalogEntry]
    /// The served bytes and hash of the current version, or nil when unknown or deleted.
    func served(id: String) async throws -> (bytes: Data, contentHash: String)?

    func recordBatch(_ items: [ResponseItem], user: String, now: Date) async throws -> [ItemResult]
    func submit(_ request: SubmissionRequest, user: String, now: Date) async throws -> SubmissionOutcome
    func received(assessmentID: String) async throws -> ReceivedResponses?
}

/// What `POST /v1/submissions` answers.
public enum SubmissionOutcome: Sendable, Equatable {
    case created(SubmissionReceipt)
    case repeated(SubmissionReceipt)
    case outdated(currentVersion: Int)
    case gone
    case missingResponses([String])
    /// The attempt is another user's.
    case forbidden(String)
    case rejected(String)
}

public struct StorageError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

import Foundation

/// How the server runs. Defaults suit a laptop; tests lower the password hashing cost explicitly.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var dataDirectory = "./vault-server-data"
    /// PBKDF2-HMAC-SHA256 rounds for stored account passwords.
    public var passwordIterations = 210_000
    public var tokenLifetime: TimeInterval = 30 * 24 * 3600
    /// Largest request body, compressed or not.
    public var maxRequestBytes = 12 * 1024 * 1024
    /// Most items in one batch.
    public var maxBatchItems = 500

    public init() {}
}

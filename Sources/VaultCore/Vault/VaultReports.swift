import Foundation

/// What `vault status` shows, computed from local state only.
public struct StatusReport: Codable, Sendable, Equatable {
    public var connectivity: String
    public var pendingAnswers: Int
    public var pendingSubmissions: Int
    public var deadLetters: Int
    public var conflicts: Int
    public var lastSyncAt: String?
    /// Until when `vault unlock` keeps the vault open without a password, and in which keyring (null when locked).
    public var unlockedUntil: String?
    public var sessionKeyring: String?

    enum CodingKeys: String, CodingKey {
        case connectivity
        case unlockedUntil = "unlocked_until"
        case sessionKeyring = "session_keyring"
        case pendingAnswers = "pending_answers"
        case pendingSubmissions = "pending_submissions"
        case deadLetters = "dead_letters"
        case conflicts
        case lastSyncAt = "last_sync_at"
    }

    /// `last_sync_at` is written as null, not left out, so scripts always find the key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(connectivity, forKey: .connectivity)
        try container.encode(pendingAnswers, forKey: .pendingAnswers)
        try container.encode(pendingSubmissions, forKey: .pendingSubmissions)
        try container.encode(deadLetters, forKey: .deadLetters)
        try container.encode(conflicts, forKey: .conflicts)
        try container.encode(lastSyncAt, forKey: .lastSyncAt)
        try container.encode(unlockedUntil, forKey: .unlockedUntil)
        try container.encode(sessionKeyring, forKey: .sessionKeyring)
    }
}

/// What `vault storage` shows.
public struct StorageReport: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var id: String
        public var version: Int
        public var title: String
        public var storedBytes: Int
        public var uncompressedBytes: Int
        public var lastAccessedAt: String
        public var expiresAt: String
        public var pendingAnswers: Int
        public var evictable: Bool

        enum CodingKeys: String, CodingKey {
            case id, version, title, evictable
            case storedBytes = "stored_bytes"
            case uncompressedBytes = "uncompressed_bytes"
            case lastAccessedAt = "last_accessed_at"
            case expiresAt = "expires_at"
            case pendingAnswers = "pending_answers"
        }
    }

    /// The order eviction would take, first victim first.
    public struct NextEviction: Codable, Sendable, Equatable {
        public var id: String
        public var version: Int
        public var storedBytes: Int
        public var reason: String

        enum CodingKeys: String, CodingKey {
            case id, version, reason
            case storedBytes = "stored_bytes"
        }
    }

    public var usedBytes: Int
    public var limitBytes: Int
    public var maxAssessments: Int
    public var fileBytes: Int
    public var pendingAnswers: Int
    public var assessments: [Entry]
    public var nextEvictions: [NextEviction]

    enum CodingKeys: String, CodingKey {
        case nextEvictions = "next_evictions"
        case usedBytes = "used_bytes"
        case limitBytes = "limit_bytes"
        case maxAssessments = "max_assessments"
        case fileBytes = "file_bytes"
        case pendingAnswers = "pending_answers"
        case assessments
    }
}

/// The outcome of `vault verify`.
public struct VerifyReport: Codable, Sendable, Equatable {
    public var ok: Bool
    public var problems: [String]
}

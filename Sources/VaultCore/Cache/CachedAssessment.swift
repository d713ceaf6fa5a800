import Foundation

/// One cached assessment version as `vault list` shows it.
public struct CachedAssessment: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var version: Int
    public var sizeBytes: Int
    public var uncompressedBytes: Int
    public var downloadedAt: String
    public var expiresAt: String
    public var lastAccessedAt: String
    public var attemptState: AttemptProgress
    public var pendingAnswers: Int
    public var expired: Bool
    /// Downloaded sealed and not opened yet (its questions are unreadable until the start code).
    public var sealed = false
    public var opensAt: String?
    /// A newer version downloaded beside this one (`oneEach` shows the attempt's version while the newest has none).
    public var newestVersion: Int?
    /// Downloaded from the server, or brought in by file (a package, issue 57).
    public var source: AssessmentSource = .server

    enum CodingKeys: String, CodingKey {
        case id, title, version, expired, sealed, source
        case opensAt = "opens_at"
        case sizeBytes = "size_bytes"
        case uncompressedBytes = "uncompressed_bytes"
        case downloadedAt = "downloaded_at"
        case expiresAt = "expires_at"
        case lastAccessedAt = "last_accessed_at"
        case attemptState = "attempt_state"
        case pendingAnswers = "pending_answers"
        case newestVersion = "newest_version"
    }
}

/// Where a cached assessment version came from.
public enum AssessmentSource: String, Codable, Sendable {
    /// Downloaded from the server.
    case server
    /// Imported from a student's package file (`vault import`), with no network.
    case file
}

/// What storing a download did to the cache.
public struct StoreOutcome: Sendable, Equatable {
    public var evicted: [EvictionPolicy.Candidate]
    public var replacedVersions: [Int]
    public var expiresAt: Date
}

/// What `evict` and `clear-cache` did, and what they refused to drop.
public struct EvictionReport: Codable, Sendable, Equatable {
    public struct Kept: Codable, Sendable, Equatable {
        public var id: String
        public var reason: String
    }
    public var evicted: [String]
    public var kept: [Kept]
    public var freedBytes: Int

    enum CodingKeys: String, CodingKey {
        case evicted, kept
        case freedBytes = "freed_bytes"
    }
}

/// How much space the file system holding the vault has left; injected so tests can pretend the disk is full.
public struct DiskSpace: Sendable {
    public let freeBytes: @Sendable (String) -> Int

    public init(freeBytes: @escaping @Sendable (String) -> Int) { self.freeBytes = freeBytes }

    /// `statvfs` on the vault directory.
    public static let system = DiskSpace { path in
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return Int.max }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    public static func fixed(_ bytes: Int) -> DiskSpace { DiskSpace { _ in bytes } }
}

extension CachedAssessment {
    /// One row per assessment, as a student thinks of it: a later version downloaded after they took an earlier one
    /// (a wording fix, a corrected key) is an update of the same assessment, never a new untaken one. The newest
    /// version stands, unless it has no attempt and an earlier one has: then the row is that attempt's version (the
    /// attempt stays on its version). Answers waiting to upload count over every version.
    public static func oneEach(_ items: [CachedAssessment]) -> [CachedAssessment] {
        var order: [String] = []
        var versions: [String: [CachedAssessment]] = [:]
        for item in items {
            if versions[item.id] == nil { order.append(item.id) }
            versions[item.id, default: []].append(item)
        }
        return order.compactMap { id in
            guard let all = versions[id]?.sorted(by: { $0.version > $1.version }), var shown = all.first else { return nil }
            if shown.attemptState == .none, var taken = all.first(where: { $0.attemptState != .none }) {
                taken.newestVersion = shown.version
                shown = taken
            }
            shown.pendingAnswers = all.map(\.pendingAnswers).reduce(0, +)
            return shown
        }
    }
}

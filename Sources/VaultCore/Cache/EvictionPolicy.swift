import Foundation
import VaultLanguage

/// Decides which cached assessments may go, and in what order, to stay within the cache limits.
///
/// Pure: it sees facts about each entry and returns a plan; the vault carries it out. Never evicts an entry with an
/// open attempt or with answers or submissions the server has not acknowledged.
public struct EvictionPolicy: Sendable {
    public struct Entry: Sendable, Equatable {
        public var id: String
        public var version: Int
        public var storedBytes: Int
        public var downloadedAt: Date
        public var lastOpenedAt: Date?
        public var expiresAt: Date
        /// An attempt in progress, or submitted and not yet acknowledged.
        public var hasOpenAttempt: Bool
        /// Answers or a submission not yet acknowledged by the server (including conflicts).
        public var hasUnsyncedWork: Bool
        /// At least one attempt finished and acknowledged by the server.
        public var hasSyncedAttempt: Bool

        public init(
            id: String,
            version: Int,
            storedBytes: Int,
            downloadedAt: Date,
            lastOpenedAt: Date?,
            expiresAt: Date,
            hasOpenAttempt: Bool = false,
            hasUnsyncedWork: Bool = false,
            hasSyncedAttempt: Bool = false
        ) {
            self.id = id
            self.version = version
            self.storedBytes = storedBytes
            self.downloadedAt = downloadedAt
            self.lastOpenedAt = lastOpenedAt
            self.expiresAt = expiresAt
            self.hasOpenAttempt = hasOpenAttempt
            self.hasUnsyncedWork = hasUnsyncedWork
            self.hasSyncedAttempt = hasSyncedAttempt
        }

        public var isProtected: Bool { hasOpenAttempt || hasUnsyncedWork }
    }

    /// Why an entry may be evicted, in the order the tiers are tried.
    public enum Tier: Int, Sendable, Comparable, CustomStringConvertible {
        case expiredAndSynced = 1
        case completedNotOpenedForAWeek = 2
        case neverOpenedAfterThreeDays = 3
        case leastRecentlyOpened = 4

        public static func < (lhs: Tier, rhs: Tier) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .expiredAndSynced: tr("expired, nothing left to upload")
            case .completedNotOpenedForAWeek: tr("completed and uploaded, not opened for 7 days")
            case .neverOpenedAfterThreeDays: tr("downloaded more than 3 days ago, never opened")
            case .leastRecentlyOpened: tr("least recently opened")
            }
        }
    }

    public struct Limits: Sendable {
        public var maxBytes: Int
        public var maxCount: Int
        public init(maxBytes: Int, maxCount: Int) {
            self.maxBytes = maxBytes
            self.maxCount = maxCount
        }
    }

    public enum Plan: Sendable, Equatable {
        /// Evict these (possibly none), in order, and the new entry fits.
        case evict([Candidate])
        /// Even evicting everything allowed leaves too little room.
        case cannotFit(neededBytes: Int, freeableBytes: Int)
    }

    public struct Candidate: Sendable, Equatable {
        public var id: String
        public var version: Int
        public var storedBytes: Int
        public var tier: Tier

        public init(id: String, version: Int, storedBytes: Int, tier: Tier) {
            self.id = id
            self.version = version
            self.storedBytes = storedBytes
            self.tier = tier
        }
    }

    public let limits: Limits
    public let now: Date

    public init(limits: Limits, now: Date) {
        self.limits = limits
        self.now = now
    }

    static let day: TimeInterval = 24 * 3600

    /// The tier an entry falls in, or nil when it must be kept.
    public func tier(of entry: Entry) -> Tier? {
        guard !entry.isProtected else { return nil }
        if entry.expiresAt <= now { return .expiredAndSynced }
        if entry.hasSyncedAttempt, (entry.lastOpenedAt ?? entry.downloadedAt) <= now.addingTimeInterval(-7 * Self.day) {
            return .completedNotOpenedForAWeek
        }
        if entry.lastOpenedAt == nil, entry.downloadedAt <= now.addingTimeInterval(-3 * Self.day) { return .neverOpenedAfterThreeDays }
        return .leastRecentlyOpened
    }

    /// Every evictable entry, best victim first: by tier, then least recently used.
    public func order(_ entries: [Entry]) -> [Candidate] {
        entries.compactMap { entry in tier(of: entry).map { (entry, $0) } }
            .sorted { lhs, rhs in
                if lhs.1 != rhs.1 { return lhs.1 < rhs.1 }
                let left = lhs.0.lastOpenedAt ?? lhs.0.downloadedAt
                let right = rhs.0.lastOpenedAt ?? rhs.0.downloadedAt
                return left != right ? left < right : lhs.0.id < rhs.0.id
            }
            .map { Candidate(id: $0.0.id, version: $0.0.version, storedBytes: $0.0.storedBytes, tier: $0.1) }
    }

    /// What to evict so that `incomingBytes` more (as one more entry) fits both limits.
    public func plan(entries: [Entry], incomingBytes: Int) -> Plan {
        var bytes = entries.reduce(0) { $0 + $1.storedBytes }
        var count = entries.count
        var chosen: [Candidate] = []
        let order = order(entries)
        for candidate in order {
            if bytes + incomingBytes <= limits.maxBytes, count + 1 <= limits.maxCount { break }
            chosen.append(candidate)
            bytes -= candidate.storedBytes
            count -= 1
        }
        guard bytes + incomingBytes <= limits.maxBytes, count + 1 <= limits.maxCount else {
            return .cannotFit(neededBytes: incomingBytes, freeableBytes: order.reduce(0) { $0 + $1.storedBytes })
        }
        return .evict(chosen)
    }
}

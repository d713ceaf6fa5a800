import Foundation
import VaultAPI

/// What this vault counts of its own use (issue 59): the figures the design names (offline completion, offline
/// session durations, sync successes and failures, conflicts, cache hits and misses, evictions, time in the queue),
/// as plain counts: no id, no name, no answer. `vault stats` shows them; a sync sends what is new of them only when
/// the school turned client stats on.
public enum ClientStat: String, CaseIterable, Sendable, Codable {
    /// Attempts submitted here, and those submitted while the vault's last word on the network was "offline".
    case attemptsSubmitted = "attempts_submitted"
    case attemptsSubmittedOffline = "attempts_submitted_offline"
    /// Take screens closed while offline, and their time together (milliseconds).
    case offlineSessions = "offline_sessions"
    case offlineSessionMilliseconds = "offline_session_ms"
    case syncSuccesses = "sync_successes"
    case syncFailures = "sync_failures"
    /// Answers the server found on another version of the assessment (they wait for the student).
    case conflicts
    /// An assessment opened from the cache, and one asked for that was not there.
    case cacheHits = "cache_hits"
    case cacheMisses = "cache_misses"
    /// Cached versions removed to make room or by `vault evict`.
    case evictions
    /// Answers the server acknowledged, and the time they waited in the queue together (milliseconds).
    case answersUploaded = "answers_uploaded"
    case queueMilliseconds = "queue_ms"
}

extension Vault {
    /// Adds `amount` to a count (inside the caller's transaction where there is one).
    public func count(_ stat: ClientStat, by amount: Int = 1) throws {
        guard amount != 0 else { return }
        try database.execute("INSERT OR IGNORE INTO client_stats (name, value, sent) VALUES (?, 0, 0)", [stat.rawValue])
        try database.execute("UPDATE client_stats SET value = value + ? WHERE name = ?", [amount, stat.rawValue])
    }

    /// Every count, zero where nothing happened yet.
    public func clientStats() throws -> [ClientStat: Int] {
        var counts = Dictionary(uniqueKeysWithValues: ClientStat.allCases.map { ($0, 0) })
        for row in try database.rows("SELECT name, value FROM client_stats") {
            if let stat = ClientStat(rawValue: row.string(0)) { counts[stat] = row.int(1) }
        }
        return counts
    }

    /// What is new since the last report the server took (only counts that moved).
    public func unsentClientStats() throws -> [ClientStat: Int] {
        var counts: [ClientStat: Int] = [:]
        for row in try database.rows("SELECT name, value - sent FROM client_stats WHERE value > sent") {
            if let stat = ClientStat(rawValue: row.string(0)) { counts[stat] = row.int(1) }
        }
        return counts
    }

    /// The server took `sent`: those amounts are not sent again.
    public func markClientStatsSent(_ sent: [ClientStat: Int]) throws {
        try database.inTransaction {
            for (stat, amount) in sent {
                try database.execute("UPDATE client_stats SET sent = sent + ? WHERE name = ?", [amount, stat.rawValue])
            }
        }
    }

    /// Whether the vault's last word on the network was anything but "online" (a vault that never synced, one by file).
    var lastKnownOffline: Bool { ((try? meta("connectivity")) ?? nil) != "online" }
}

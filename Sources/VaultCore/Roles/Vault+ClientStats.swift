import Foundation
import VaultAPI

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
            if let stat = ClientStat(rawValue: try row.string(0)) { counts[stat] = try row.int(1) }
        }
        return counts
    }

    /// What is new since the last report the server took (only counts that moved).
    public func unsentClientStats() throws -> [ClientStat: Int] {
        var counts: [ClientStat: Int] = [:]
        for row in try database.rows("SELECT name, value - sent FROM client_stats WHERE value > sent") {
            if let stat = ClientStat(rawValue: try row.string(0)) { counts[stat] = try row.int(1) }
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
    func lastKnownOffline() throws -> Bool { try meta("connectivity") != "online" }
}

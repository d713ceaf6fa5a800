import Foundation
import VaultLanguage
import VaultModel

/// `config get|set|list`: settings stored inside the encrypted database.
extension Vault {
    public func settings() throws -> VaultSettings {
        var stored: [String: String] = [:]
        for row in try database.rows("SELECT key, value FROM settings") { stored[try row.string(0)] = try row.string(1) }
        return VaultSettings(stored: stored)
    }

    /// Validates and stores a setting; `nil` restores the default.
    public func setSetting(_ name: String, to text: String?) throws {
        let key = try VaultSettings.key(named: name)
        guard let text else {
            try database.execute("DELETE FROM settings WHERE key = ?", [name])
            return
        }
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")), key.range.contains(value) else {
            throw VaultError(
                .usage,
                tr(
                    "{name} takes a whole number from {lower_bound} to {upper_bound}.",
                    ["name": name, "lower_bound": key.range.lowerBound, "upper_bound": key.range.upperBound]
                )
            )
        }
        try database.inTransaction {
            try database.execute("DELETE FROM settings WHERE key = ?", [name])
            try database.execute("INSERT INTO settings (key, value) VALUES (?, ?)", [name, String(value)])
        }
    }

    /// Internal state kept beside the settings (last sync time, last seen connectivity).
    public func meta(_ key: String) throws -> String? {
        try database.row("SELECT value FROM vault_meta WHERE key = ?", [key])?.string(0)
    }

    /// A time kept beside the settings, as every stored time: integer milliseconds since 1970 (as text in this
    /// key-value table); text that is not one is damage, named.
    public func metaTime(_ key: String) throws -> Date? {
        guard let row = try database.row("SELECT value FROM vault_meta WHERE key = ?", [key]) else { return nil }
        return try Self.storedTime(row, table: "vault_meta", key: key)
    }

    /// A time in a key-value row (`vault_meta`, `settings`), read strictly.
    static func storedTime(_ row: Row, table: String, key: String) throws -> Date {
        guard let milliseconds = Int64(try row.string(0)) else {
            throw StoredValueError(table: table, column: key, problem: "is not a time in milliseconds")
        }
        return Date(millisecondsSince1970: milliseconds)
    }

    /// How a time is written into a key-value row.
    public static func storedTimeText(_ date: Date) -> String { String(date.millisecondsSince1970) }

    public func setMeta(_ key: String, _ value: String) throws {
        try database.execute("INSERT OR REPLACE INTO vault_meta (key, value) VALUES (?, ?)", [key, value])
    }

    /// Several facts in one commit (one durable write instead of one each).
    public func setMeta(_ values: [String: String]) throws {
        try database.inTransaction {
            for (key, value) in values.sorted(by: { $0.key < $1.key }) { try setMeta(key, value) }
        }
    }

    public func noteSynced(at date: Date) throws {
        try setMeta(["last_sync_at": Self.storedTimeText(date), "connectivity": "online"])
    }

    /// This vault's device id: random, made the first time it is asked for, kept in the encrypted database. Sent
    /// with uploads so the teacher's roster can count the devices an attempt was answered on; it says nothing else.
    public func deviceID() throws -> String {
        if let id = try meta("device_id") { return id }
        let id = UUID().uuidString.lowercased()
        try setMeta("device_id", id)
        return id
    }
}

import Foundation

/// Migration 18 (issue 52): every stored time in one form, integer milliseconds since 1970 (UTC). Until 17 times were
/// REAL seconds in most tables and RFC 3339 text in four columns; each table holding one is rebuilt with its time
/// columns declared INTEGER (a REAL or TEXT column would turn an integer back into its own type), every row kept with
/// its rowid, its indexes made again and the AUTOINCREMENT counters kept. A text time that does not read as one
/// stops the migration: the vault stays as it was rather than lose a value.
enum MillisecondTimes {
    /// Columns that held seconds as REAL.
    static let seconds: [(table: String, columns: [String])] = [
        ("account", ["token_expires_at"]),
        ("assessments", ["downloaded_at", "expires_at", "last_accessed_at", "opened_at"]),
        ("attempts", ["started_at", "submitted_at", "timer_started_at", "last_wall_at", "continued_at", "shared_at"]),
        ("sync_queue", ["next_try_at", "enqueued_at"]),
        ("dead_letters", ["created_at", "reported_at"]),
        ("results", ["fetched_at"]),
        ("sealed_keys", ["unsealed_at"]),
        ("device_key", ["created_at"]),
        ("answer_sheets", ["kept_at"]),
    ]

    /// Columns that held RFC 3339 text (`2026-11-27T22:12:41.123Z`).
    static let text: [(table: String, columns: [String])] = [
        ("assessments", ["opens_at"]),
        ("responses", ["answered_at"]),
        ("receipts", ["received_at"]),
        ("attempt_log", ["at"]),
    ]

    static func migrate(_ database: Database) throws {
        var tables: [String: [(column: String, conversion: String)]] = [:]
        for (table, columns) in seconds {
            for column in columns { tables[table, default: []].append((column, "CAST(round(\(column) * 1000) AS INTEGER)")) }
        }
        for (table, columns) in text {
            for column in columns {
                // julianday reads RFC 3339 with its fraction and zone; a day is 86,400,000 ms; 2440587.5 is 1970-01-01.
                let milliseconds = "CAST(round((julianday(\(column)) - 2440587.5) * 86400000.0) AS INTEGER)"
                let unreadable = try database.scalarInt(
                    "SELECT count(*) FROM \(table) WHERE \(column) IS NOT NULL AND julianday(\(column)) IS NULL"
                )
                guard unreadable == 0 else {
                    throw DatabaseError(
                        resultCode: .SQLITE_CORRUPT,
                        message: "\(unreadable) value(s) of \(table).\(column) are not times; the vault was left as it was"
                    )
                }
                tables[table, default: []].append((column, milliseconds))
            }
        }
        let counters = try database.rows("SELECT name, seq FROM sqlite_sequence").map { (try $0.string(0), try $0.int(1)) }
        for table in tables.keys.sorted() {
            try rebuild(table, converting: tables[table] ?? [], in: database)
        }
        // Times in the key-value tables: when the vault was made, its last sync, a take screen still open.
        for (table, keys) in [("vault_meta", "key IN ('created_at', 'last_sync_at')"), ("settings", "key LIKE 'take.open.%'")] {
            try database.execute(
                """
                UPDATE \(table) SET value = CAST(CAST(round((julianday(value) - 2440587.5) * 86400000.0) AS INTEGER) AS TEXT)
                WHERE \(keys) AND julianday(value) IS NOT NULL
                """
            )
        }
        for (name, seq) in counters {
            try database.execute("DELETE FROM sqlite_sequence WHERE name = ?", [name])
            try database.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", [name, seq])
        }
    }

    /// SQLite's procedure for changing a column's type: a new table from the old one's own definition (the time
    /// columns INTEGER), the rows copied with their rowids, the old dropped, the new renamed, the indexes made again.
    private static func rebuild(_ table: String, converting columns: [(column: String, conversion: String)], in database: Database) throws {
        guard let row = try database.row("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [table]) else {
            return  // not in this vault's schema
        }
        var definition = try row.string(0)
        let indexes = try database.rows(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            [table]
        ).map { try $0.string(0) }
        let names = try database.rows("PRAGMA table_info(\(table))").map { try $0.string(1) }
        let rebuilt = "\(table)_v18"
        guard let head = definition.range(of: #"^CREATE TABLE\s+("?)\#(table)\1"#, options: .regularExpression) else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "the definition of \(table) is not one this vault wrote")
        }
        definition.replaceSubrange(head, with: "CREATE TABLE \(rebuilt)")
        for (column, _) in columns {
            guard let type = definition.range(of: #"\b\#(column)\s+(REAL|TEXT)\b"#, options: .regularExpression) else {
                throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "\(table).\(column) is not a column this vault wrote")
            }
            definition.replaceSubrange(type, with: "\(column) INTEGER")
        }
        let conversions = Dictionary(uniqueKeysWithValues: columns.map { ($0.column, $0.conversion) })
        let selected = names.map { conversions[$0] ?? $0 }.joined(separator: ", ")
        try database.execute(definition)
        try database.execute(
            "INSERT INTO \(rebuilt) (rowid, \(names.joined(separator: ", "))) SELECT rowid, \(selected) FROM \(table)"
        )
        try database.execute("DROP TABLE \(table)")
        try database.execute("ALTER TABLE \(rebuilt) RENAME TO \(table)")
        for index in indexes { try database.execute(index) }
    }
}

/// Schema versions applied in order, tracked in `PRAGMA user_version`.
public struct Migrator {
    public struct Migration {
        public let version: Int
        /// The migration's SQL; empty for one written in Swift (`body`).
        public let sql: String
        let body: ((Database) throws -> Void)?
        /// Tables are rebuilt: foreign keys are off while it runs (SQLite's own procedure for changing a table), and
        /// checked before it commits.
        let rebuildsTables: Bool
    }

    public var migrations: [Migration] = []

    public init() {}

    public mutating func register(_ version: Int, _ sql: String) {
        precondition(migrations.last.map { $0.version < version } ?? true, "migrations must be registered in order")
        migrations.append(Migration(version: version, sql: sql, body: nil, rebuildsTables: false))
    }

    /// A migration that rebuilds tables in Swift (their columns' types change, every row kept).
    public mutating func register(_ version: Int, rebuildingTables body: @escaping (Database) throws -> Void) {
        precondition(migrations.last.map { $0.version < version } ?? true, "migrations must be registered in order")
        migrations.append(Migration(version: version, sql: "", body: body, rebuildsTables: true))
    }

    /// Applies every migration above the database's version, each in its own transaction.
    public func migrate(_ database: Database) throws {
        let current = try database.scalarInt("PRAGMA user_version")
        for migration in migrations where migration.version > current {
            if migration.rebuildsTables { try database.execute("PRAGMA foreign_keys = OFF") }
            defer { if migration.rebuildsTables { try? database.execute("PRAGMA foreign_keys = ON") } }  // back on for the connection
            try database.inTransaction {
                if let body = migration.body { try body(database) } else { try database.execute(migration.sql) }
                if migration.rebuildsTables, let broken = try database.row("PRAGMA foreign_key_check") {
                    throw DatabaseError(
                        resultCode: .SQLITE_CONSTRAINT,
                        message: "migration \(migration.version) would break a reference from \(try broken.optionalString(0) ?? "a table")"
                    )
                }
                try database.execute("PRAGMA user_version = \(migration.version)")
            }
        }
    }

    public var latestVersion: Int { migrations.last?.version ?? 0 }
}

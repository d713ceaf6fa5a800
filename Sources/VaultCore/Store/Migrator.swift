/// Schema versions applied in order, tracked in `PRAGMA user_version`.
public struct Migrator {
    public struct Migration {
        public let version: Int
        public let sql: String
    }

    public var migrations: [Migration] = []

    public init() {}

    public mutating func register(_ version: Int, _ sql: String) {
        precondition(migrations.last.map { $0.version < version } ?? true, "migrations must be registered in order")
        migrations.append(Migration(version: version, sql: sql))
    }

    /// Applies every migration above the database's version, each in its own transaction.
    public func migrate(_ database: Database) throws {
        let current = try database.scalarInt("PRAGMA user_version")
        for migration in migrations where migration.version > current {
            try database.inTransaction {
                try database.execute(migration.sql)
                try database.execute("PRAGMA user_version = \(migration.version)")
            }
        }
    }

    public var latestVersion: Int { migrations.last?.version ?? 0 }
}

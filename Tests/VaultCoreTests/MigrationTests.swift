import Foundation
import Testing
import VaultAPI
@_spi(Testing) import VaultCore
import VaultTestSupport

@Suite(.ownThreads)
struct MigrationTests {
    let directory = TemporaryDirectory()

    /// Rebuilds the test vault's database exactly as schema `version` left it (its tables, its vault id), then lets
    /// `fill` add the rows that version would hold.
    func rebuild(atVersion version: Int, _ fill: (Database) throws -> Void) throws {
        let vault = try TestVault.open(in: directory)
        let id = try #require(try vault.meta("vault_id"))
        let tables = try vault.database.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            .map { try $0.string(0) }
        try vault.database.execute("PRAGMA foreign_keys = OFF")
        for table in tables { try vault.database.execute("DROP TABLE \(table)") }
        try vault.database.execute(VaultSchemaExport.sql(upTo: version))
        try vault.database.execute("INSERT INTO vault_meta (key, value) VALUES ('vault_id', ?)", [id])
        try fill(vault.database)
        try vault.database.execute("PRAGMA user_version = \(version)")
    }

    @Test("a vault at schema version 1 is migrated on open, keeping its rows")
    func upgradeFromVersionOne() throws {
        let paths = VaultPaths(directory: directory.file("vault"))
        do {
            let vault = try TestVault.create(in: directory)
            try vault.setSetting("cache.ttl_days", to: "4")
        }
        // Rebuild the database exactly as release 1 left it: the version-1 schema and its rows.
        try rebuild(atVersion: 1) { database in
            try database.execute("INSERT INTO settings (key, value) VALUES ('cache.ttl_days', '4')", [])
        }
        let reopened = try Vault.open(paths: paths, password: TestVault.secret(TestVault.password))
        #expect(try reopened.database.scalarInt("PRAGMA user_version") == VaultSchemaExport.latestVersion)
        #expect(try reopened.settings().ttlDays == 4)
        // Columns added by version 2 exist and work.
        try reopened.database.execute("SELECT receipt_id, force_submit FROM attempts LIMIT 0", [])
    }

    @Test("version 4: a submission held as 'conflict:<version>' with next_try_at 1e18 becomes a held state with its version")
    func heldConflictSentinelConverted() throws {
        let paths = VaultPaths(directory: directory.file("vault"))
        do { _ = try TestVault.create(in: directory) }
        // The sync queue as version 3 left it, holding one conflict in the old sentinel form and one plain row.
        try rebuild(atVersion: 3) { database in
            try database.execute(
                """
                INSERT INTO sync_queue (kind, ref_id, next_try_at, last_error, enqueued_at) VALUES ('submission', 'held', 1e18, 'conflict:7', 0);
                INSERT INTO sync_queue (kind, ref_id, next_try_at, last_error, enqueued_at) VALUES ('response', 'plain', 5, 'timed out', 0);
                """
            )
        }
        let vault = try Vault.open(paths: paths, password: TestVault.secret(TestVault.password))
        let rows = try vault.database.rows("SELECT ref_id, state, conflict_version, next_try_at, last_error FROM sync_queue ORDER BY seq")
        #expect(try rows.map { try $0.string(0) } == ["held", "plain"])
        #expect(try rows.map { try $0.string(1) } == [QueueState.heldForConflict.rawValue, QueueState.waiting.rawValue])
        #expect(try rows[0].optionalInt(2) == 7 && rows[0].int(3) == 0 && rows[0].optionalString(4) == nil)
        #expect(try rows[1].optionalInt(2) == nil && rows[1].int(3) == 5_000 && rows[1].optionalString(4) == "timed out")
    }

    @Test("migrations apply in order, each in its own transaction, and a failing one leaves the version as it was")
    func failingMigration() throws {
        let database = try Database(
            path: directory.file("m.db"),
            encryption: .rawKey(try SecretBytes.random(count: 32), salt: try CryptoRandom.bytes(16))
        )
        var migrator = Migrator()
        migrator.register(1, "CREATE TABLE a (x);")
        migrator.register(2, "CREATE TABLE b (x); THIS IS NOT SQL;")
        #expect(throws: DatabaseError.self) { try migrator.migrate(database) }
        #expect(try database.scalarInt("PRAGMA user_version") == 1)
        #expect(try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'b'") == 0)
    }
}

import Foundation
import Testing
import VaultAPI
@_spi(Testing) import VaultCore
import VaultModel
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

    @Test(
        "version 18: every stored time becomes integer milliseconds, each row kept with its rowid, indexes and counters; a text that is no time leaves the vault as it was"
    )
    func millisecondTimes() throws {
        let paths = VaultPaths(directory: directory.file("vault"))
        do { _ = try TestVault.create(in: directory) }
        try rebuild(atVersion: 17) { database in
            try database.execute(
                """
                INSERT INTO assessments (id, version, title, content_hash, question_hashes, document, compressed_bytes, uncompressed_bytes,
                    downloaded_at, expires_at, last_accessed_at, opened_at, opens_at)
                    VALUES ('quiz', 1, 'Quiz', 'h', '{}', x'00', 1, 1, 1800000000.25, 1800086400, 1800000001.5, NULL, '2027-01-15T08:00:00.000Z');
                INSERT INTO attempts (id, assessment_id, assessment_version, state, started_at, submitted_at, timer_started_at)
                    VALUES ('t1', 'quiz', 1, 'submitted', 1800000002.123, 1800000003.9995, 1800000002.123);
                INSERT INTO responses (rowid, id, attempt_id, question_id, question_hash, answer, answered_at, state)
                    VALUES (41, 'r2', 't1', 'q1', 'h', '"b"', '2027-01-15T08:00:02.123Z', 'pending'),
                           (7, 'r1', 't1', 'q1', 'h', '"a"', '2027-01-15T08:00:02.123+01:00', 'uploaded');
                INSERT INTO sync_queue (seq, kind, ref_id, next_try_at, enqueued_at) VALUES (90, 'response', 'r2', 0, 1800000002.5);
                DELETE FROM sync_queue WHERE seq = 90;
                INSERT INTO sync_queue (seq, kind, ref_id, next_try_at, enqueued_at) VALUES (12, 'response', 'r2', 1800000009, 1800000002.5);
                INSERT INTO dead_letters (kind, ref_id, reason, payload, created_at, reported_at) VALUES ('response', 'rx', 'why', x'7b7d', 1800000004, NULL);
                INSERT INTO receipts (receipt_id, attempt_id, assessment_id, received_at, signed) VALUES ('rc', 't1', 'quiz', '2027-01-15T08:01:00Z', '{}');
                INSERT INTO vault_meta (key, value) VALUES ('last_sync_at', '2027-01-15T08:02:00.500Z');
                INSERT INTO settings (key, value) VALUES ('take.open.t1', '2027-01-15T08:03:00.000Z');
                """
            )
        }
        let vault = try Vault.open(paths: paths, password: TestVault.secret(TestVault.password))
        let database = vault.database
        #expect(try database.scalarInt("PRAGMA user_version") == VaultSchemaExport.latestVersion)
        let assessment = try #require(try database.row("SELECT downloaded_at, expires_at, last_accessed_at, opened_at, opens_at FROM assessments"))
        #expect(try assessment.int64("downloaded_at") == 1_800_000_000_250 && assessment.int64("expires_at") == 1_800_086_400_000)
        #expect(try assessment.int64("last_accessed_at") == 1_800_000_001_500 && assessment.optionalInt64("opened_at") == nil)
        #expect(try assessment.date("opens_at") == Timestamp.date("2027-01-15T08:00:00.000Z"))
        let attempt = try #require(try database.row("SELECT started_at, submitted_at, timer_started_at, last_wall_at FROM attempts"))
        #expect(try attempt.int64("started_at") == 1_800_000_002_123 && attempt.int64("submitted_at") == 1_800_000_004_000)
        #expect(try attempt.int64("timer_started_at") == 1_800_000_002_123 && attempt.optionalInt64("last_wall_at") == nil)
        // Rowids kept (they order answers of the same millisecond); the offset is taken into the instant.
        let answers = try database.rows("SELECT rowid, id, answered_at FROM responses ORDER BY rowid")
        #expect(try answers.map { try $0.int(0) } == [7, 41] && answers.map { try $0.string(1) } == ["r1", "r2"])
        #expect(
            try answers[0].date(2) == Timestamp.date("2027-01-15T07:00:02.123Z") && answers[1].date(2) == Timestamp.date("2027-01-15T08:00:02.123Z")
        )
        #expect(
            try database.row("SELECT seq, next_try_at, enqueued_at FROM sync_queue").map { [try $0.int64(0), try $0.int64(1), try $0.int64(2)] } == [
                12, 1_800_000_009_000, 1_800_000_002_500,
            ]
        )
        #expect(try database.row("SELECT created_at FROM dead_letters")?.int64(0) == 1_800_000_004_000)
        #expect(try database.row("SELECT received_at FROM receipts")?.date(0) == Timestamp.date("2027-01-15T08:01:00.000Z"))
        #expect(try vault.metaTime("last_sync_at") == Timestamp.date("2027-01-15T08:02:00.500Z"))
        #expect(try database.row("SELECT value FROM settings WHERE key = 'take.open.t1'")?.string(0) == "1800000180000")
        // The AUTOINCREMENT counter is where it was (a deleted seq 90 is not handed out again), the indexes are back.
        #expect(try database.scalarInt("SELECT seq FROM sqlite_sequence WHERE name = 'sync_queue'") == 90)
        let indexes = try database.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").map {
            try $0.string(0)
        }
        #expect(indexes.contains("responses_by_attempt") && indexes.contains("attempts_by_assessment") && indexes.contains("receipts_by_assessment"))
        #expect(try database.rows("PRAGMA foreign_key_check").isEmpty)
        // The columns are INTEGER now: a time written as a number reads back as one.
        #expect(try database.rows("PRAGMA table_info(responses)").first { try $0.string(1) == "answered_at" }?.string(2) == "INTEGER")
        #expect(try database.scalarInt("PRAGMA foreign_keys") == 1)
    }

    @Test("version 18 stops at a stored time it cannot read: the vault stays at 17 with every row")
    func millisecondTimesRefuseDamage() throws {
        let paths = VaultPaths(directory: directory.file("vault"))
        let created = try TestVault.create(in: directory)
        let key = SecretBytes(try #require(Hex.decode(String(try created.revealKey().literal.dropFirst(2).prefix(64)))))
        let salt = created.keyFile.databaseSaltBytes
        try rebuild(atVersion: 17) { database in
            try database.execute(
                """
                INSERT INTO receipts (receipt_id, attempt_id, assessment_id, received_at, signed) VALUES ('rc', 't1', 'quiz', 'yesterday', '{}');
                """
            )
        }
        #expect(throws: (any Error).self) { try Vault.open(paths: paths, password: TestVault.secret(TestVault.password)) }
        let raw = try Database(path: paths.database, encryption: .rawKey(key, salt: salt))
        #expect(try raw.scalarInt("PRAGMA user_version") == 17)
        #expect(try raw.row("SELECT received_at FROM receipts")?.string(0) == "yesterday")
        #expect(try raw.rows("PRAGMA table_info(receipts)").first { try $0.string(1) == "received_at" }?.string(2) == "TEXT")
    }
}

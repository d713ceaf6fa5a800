import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultTestSupport

struct CanonicalJSONTests {
    @Test("the content hash does not depend on key order or whitespace in what the teacher sent")
    func keyOrder() throws {
        let a = try JSONDecoder().decode(Assessment.self, from: Data(#"{"id":"x","title":"T","questions":[{"id":"q1","type":"essay","prompt":"P"}]}"#.utf8))
        let b = try JSONDecoder().decode(Assessment.self, from: Data("{ \"questions\" : [ {\"prompt\":\"P\", \"type\":\"essay\", \"id\":\"q1\"} ], \"title\":\"T\", \"id\":\"x\" }".utf8))
        #expect(try CanonicalJSON.contentBytes(a) == CanonicalJSON.contentBytes(b))
        var c = a
        c.questions[0].prompt = "P2"
        #expect(try CanonicalJSON.contentBytes(a) != CanonicalJSON.contentBytes(c))
    }

    @Test("answer keys never count toward what is served or hashed")
    func answerKeysExcluded() throws {
        var question = Question(id: "q1", type: .trueFalse, prompt: "?", answerKey: [.bool(true)])
        let withKey = try CanonicalJSON.questionBytes(question)
        question.answerKey = [.bool(false)]
        #expect(try CanonicalJSON.questionBytes(question) == withKey)
        #expect(!String(decoding: withKey, as: UTF8.self).contains("answer_key"))
    }

    @Test("whole numbers encode without a fraction; other values round-trip")
    func jsonValues() throws {
        #expect(String(decoding: try CanonicalJSON.encode(JSONValue.number(3)), as: UTF8.self) == "3")
        #expect(String(decoding: try CanonicalJSON.encode(JSONValue.number(3.25)), as: UTF8.self) == "3.25")
        let mixed: JSONValue = .array([.bool(true), .string("é"), .null, .object(["k": .number(-1)])])
        #expect(try JSONDecoder().decode(JSONValue.self, from: CanonicalJSON.encode(mixed)) == mixed)
    }
}

struct ValidatorTests {
    static func document(_ questions: [Question], id: String = "ok-id", title: String = "T") -> Assessment {
        Assessment(id: id, title: title, questions: questions)
    }

    @Test("ids: a-z, 0-9 and '-' only, 1 to 64 characters", arguments: [
        ("algebra-1", true), ("", false), ("Algebra", false), ("a_b", false), (String(repeating: "a", count: 64), true),
        (String(repeating: "a", count: 65), false), ("سؤال", false), ("a b", false),
    ])
    func ids(_ id: String, _ valid: Bool) {
        #expect(AssessmentValidator.isValidID(id) == valid)
    }

    @Test("a served document must not carry an answer key")
    func servedKeys() {
        let leaked = Self.document([Question(id: "q1", type: .trueFalse, prompt: "?", answerKey: [.bool(true)])])
        #expect(throws: AssessmentValidator.Problem.self) { try AssessmentValidator.validate(leaked, requireAnswerKeyAbsent: true) }
        #expect(throws: Never.self) { try AssessmentValidator.validate(leaked) }
    }

    @Test("choices only on choice questions; multiple-choice keys may name several, single-choice one")
    func choiceRules() {
        let choices = [Choice(id: "a", text: "1"), Choice(id: "b", text: "2")]
        #expect(throws: AssessmentValidator.Problem.self) {
            try AssessmentValidator.validate(Self.document([Question(id: "q1", type: .essay, prompt: "?", choices: choices)]))
        }
        #expect(throws: AssessmentValidator.Problem.self) {
            try AssessmentValidator.validate(Self.document([Question(id: "q1", type: .singleChoice, prompt: "?", choices: choices, answerKey: [.string("a"), .string("b")])]))
        }
        #expect(throws: Never.self) {
            try AssessmentValidator.validate(Self.document([Question(id: "q1", type: .multipleChoice, prompt: "?", choices: choices, answerKey: [.string("a"), .string("b")])]))
        }
    }
}

struct SettingsAndPathsTests {
    let directory = TemporaryDirectory()

    @Test("settings refuse values outside their range and unknown keys; unset restores the default")
    func settings() throws {
        let vault = try TestVault.create(in: directory)
        #expect(throws: VaultError.self) { try vault.setSetting("sync.batch_size", to: "501") }
        #expect(throws: VaultError.self) { try vault.setSetting("sync.batch_size", to: "ten") }
        #expect(throws: VaultError.self) { try vault.setSetting("no.such", to: "1") }
        try vault.setSetting("cache.max_bytes", to: "2_000_000")
        #expect(try vault.settings().maxCacheBytes == 2_000_000)
        try vault.setSetting("cache.max_bytes", to: nil)
        #expect(try vault.settings().maxCacheBytes == 500_000_000)
    }

    @Test("the vault directory: --vault, then VAULT_HOME, then XDG_DATA_HOME/vault, then ~/.local/share/vault")
    func paths() {
        #expect(VaultPaths.resolve(explicit: "/a", environment: ["VAULT_HOME": "/b"]).directory == "/a")
        #expect(VaultPaths.resolve(explicit: nil, environment: ["VAULT_HOME": "/b", "XDG_DATA_HOME": "/c"]).directory == "/b")
        #expect(VaultPaths.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "/c"]).directory == "/c/vault")
        #expect(VaultPaths.resolve(explicit: nil, environment: ["HOME": "/home/s"]).directory == "/home/s/.local/share/vault")
    }

    @Test("timestamps: RFC 3339 with and without milliseconds")
    func timestamps() {
        #expect(Timestamp.date("2026-11-22T10:00:00.123Z")?.timeIntervalSince1970 == 1_795_341_600.123)
        #expect(Timestamp.date("2026-11-22T10:00:00Z") != nil)
        #expect(Timestamp.date("yesterday") == nil)
        #expect(Timestamp.string(epoch: 0) == "1970-01-01T00:00:00.000Z")
    }
}

struct MigrationTests {
    let directory = TemporaryDirectory()

    @Test("a vault at schema version 1 is migrated on open, keeping its rows")
    func upgradeFromVersionOne() throws {
        let paths = VaultPaths(directory: directory.file("vault"))
        do {
            let vault = try TestVault.create(in: directory)
            try vault.setSetting("cache.ttl_days", to: "4")
        }
        // Rebuild the database exactly as release 1 left it: the version-1 schema and its rows.
        do {
            let vault = try TestVault.open(in: directory)
            let id = try #require(try vault.meta("vault_id"))
            let tables = try vault.database.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").map { $0.string(0) }
            try vault.database.execute("PRAGMA foreign_keys = OFF")
            for table in tables { try vault.database.execute("DROP TABLE \(table)") }
            try vault.database.execute(VaultSchemaExport.version1)
            try vault.database.execute("INSERT INTO vault_meta (key, value) VALUES ('vault_id', ?)", [id])
            try vault.database.execute("INSERT INTO settings (key, value) VALUES ('cache.ttl_days', '4')", [])
            try vault.database.execute("PRAGMA user_version = 1")
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
        do {
            // The sync queue as version 3 left it, holding one conflict in the old sentinel form and one plain row.
            let vault = try TestVault.open(in: directory)
            try vault.database.execute("DROP TABLE sync_queue")
            try vault.database.execute(
                """
                CREATE TABLE sync_queue (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL CHECK (kind IN ('response', 'submission')),
                    ref_id TEXT NOT NULL, tries INTEGER NOT NULL DEFAULT 0, next_try_at REAL NOT NULL DEFAULT 0,
                    last_error TEXT, enqueued_at REAL NOT NULL, UNIQUE (kind, ref_id));
                INSERT INTO sync_queue (kind, ref_id, next_try_at, last_error, enqueued_at) VALUES ('submission', 'held', 1e18, 'conflict:7', 0);
                INSERT INTO sync_queue (kind, ref_id, next_try_at, last_error, enqueued_at) VALUES ('response', 'plain', 5, 'timed out', 0);
                PRAGMA user_version = 3;
                """)
        }
        let vault = try Vault.open(paths: paths, password: TestVault.secret(TestVault.password))
        let rows = try vault.database.rows("SELECT ref_id, state, conflict_version, next_try_at, last_error FROM sync_queue ORDER BY seq")
        #expect(rows.map { $0.string(0) } == ["held", "plain"])
        #expect(rows.map { $0.string(1) } == [QueueState.heldForConflict.rawValue, QueueState.waiting.rawValue])
        #expect(rows[0].optionalInt(2) == 7 && rows[0].double(3) == 0 && rows[0].optionalString(4) == nil)
        #expect(rows[1].optionalInt(2) == nil && rows[1].double(3) == 5 && rows[1].optionalString(4) == "timed out")
    }

    @Test("migrations apply in order, each in its own transaction, and a failing one leaves the version as it was")
    func failingMigration() throws {
        let database = try Database(path: directory.file("m.db"), encryption: .rawKey(try SecretBytes.random(count: 32), salt: try CryptoRandom.bytes(16)))
        var migrator = Migrator()
        migrator.register(1, "CREATE TABLE a (x);")
        migrator.register(2, "CREATE TABLE b (x); THIS IS NOT SQL;")
        #expect(throws: DatabaseError.self) { try migrator.migrate(database) }
        #expect(try database.scalarInt("PRAGMA user_version") == 1)
        #expect(try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'b'") == 0)
    }
}

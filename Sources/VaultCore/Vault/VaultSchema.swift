/// The vault's tables. SQLCipher 3.4.1 is SQLite 3.15.2: no UPSERT, RETURNING, window functions or JSON1.
/// Exported for baselines that need the same tables without a vault (benchmarks).
public enum VaultSchemaExport {
    public static var version1: String { VaultSchema.version1 }
    public static var latestVersion: Int { VaultSchema.migrator.latestVersion }
    /// The schema as it stood at `version` (every migration up to it), to rebuild an old vault in a test.
    public static func sql(upTo version: Int) -> String {
        VaultSchema.migrator.migrations.filter { $0.version <= version }.map(\.sql).joined(separator: "\n")
    }
}

enum VaultSchema {
    static var migrator: Migrator {
        var migrator = Migrator()
        migrator.register(1, version1)
        migrator.register(2, version2)
        migrator.register(3, version3)
        migrator.register(4, version4)
        migrator.register(5, version5)
        migrator.register(6, version6)
        migrator.register(7, version7)
        migrator.register(8, version8)
        migrator.register(9, version9)
        migrator.register(10, version10)
        migrator.register(11, version11)
        migrator.register(12, version12)
        migrator.register(13, version13)
        migrator.register(14, version14)
        migrator.register(15, version15)
        migrator.register(16, version16)
        migrator.register(17, version17)
        migrator.register(18, rebuildingTables: MillisecondTimes.migrate)
        migrator.register(19, version19)
        migrator.register(20, version20)
        return migrator
    }

    static let version1 = """
        CREATE TABLE vault_meta (
            key TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        );
        CREATE TABLE settings (
            key TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        );
        CREATE TABLE account (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            server_url TEXT NOT NULL,
            user_name TEXT NOT NULL,
            token TEXT,
            token_expires_at REAL,
            role TEXT
        );
        CREATE TABLE assessments (
            id TEXT NOT NULL,
            version INTEGER NOT NULL,
            title TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            question_hashes TEXT NOT NULL,
            document BLOB NOT NULL,
            compressed_bytes INTEGER NOT NULL,
            uncompressed_bytes INTEGER NOT NULL,
            etag TEXT,
            downloaded_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            last_accessed_at REAL NOT NULL,
            opened_at REAL,
            PRIMARY KEY (id, version)
        );
        CREATE TABLE attempts (
            id TEXT PRIMARY KEY NOT NULL,
            assessment_id TEXT NOT NULL,
            assessment_version INTEGER NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('in_progress', 'submitted', 'synced')),
            started_at REAL NOT NULL,
            submitted_at REAL,
            active_ms INTEGER NOT NULL DEFAULT 0,
            current_question INTEGER NOT NULL DEFAULT 0,
            flags TEXT NOT NULL DEFAULT '',
            FOREIGN KEY (assessment_id, assessment_version) REFERENCES assessments (id, version)
        );
        CREATE INDEX attempts_by_assessment ON attempts (assessment_id, state);
        CREATE TABLE responses (
            id TEXT PRIMARY KEY NOT NULL,
            attempt_id TEXT NOT NULL REFERENCES attempts (id),
            question_id TEXT NOT NULL,
            question_hash TEXT NOT NULL,
            answer TEXT NOT NULL,
            time_spent_ms INTEGER NOT NULL DEFAULT 0,
            answered_at TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('pending', 'synced', 'conflict', 'dead')),
            force INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX responses_by_attempt ON responses (attempt_id, question_id);
        CREATE INDEX responses_by_state ON responses (state);
        CREATE TABLE sync_queue (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL CHECK (kind IN ('response', 'submission')),
            ref_id TEXT NOT NULL,
            tries INTEGER NOT NULL DEFAULT 0,
            next_try_at REAL NOT NULL DEFAULT 0,
            last_error TEXT,
            enqueued_at REAL NOT NULL,
            UNIQUE (kind, ref_id)
        );
        CREATE TABLE dead_letters (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,
            ref_id TEXT NOT NULL,
            assessment_id TEXT,
            reason TEXT NOT NULL,
            payload BLOB NOT NULL,
            created_at REAL NOT NULL
        );
        """

    /// Sync bookkeeping: the server's receipt per attempt, and what a conflict was about.
    static let version2 = """
        ALTER TABLE attempts ADD COLUMN receipt_id TEXT;
        ALTER TABLE attempts ADD COLUMN force_submit INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE responses ADD COLUMN conflict_version INTEGER;
        ALTER TABLE responses ADD COLUMN sync_message TEXT;
        ALTER TABLE responses ADD COLUMN force_pending INTEGER NOT NULL DEFAULT 0;
        """

    /// A covering index: counting unsent answers per attempt reads the index alone (`storage` over 100,000 answers).
    static let version3 = """
        DROP INDEX responses_by_state;
        CREATE INDEX responses_by_state_attempt ON responses (state, attempt_id);
        """

    /// The queue's state as a column: a submission held for a conflict decision used to be `last_error =
    /// 'conflict:<version>'` with `next_try_at = 1e18`; existing rows are converted.
    static let version4 = """
        ALTER TABLE sync_queue ADD COLUMN state TEXT NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'held_for_conflict'));
        ALTER TABLE sync_queue ADD COLUMN conflict_version INTEGER;
        UPDATE sync_queue SET state = 'held_for_conflict', conflict_version = CAST(substr(last_error, 10) AS INTEGER),
            last_error = NULL, next_try_at = 0
            WHERE last_error LIKE 'conflict:%';
        """

    /// Timed attempts measured in the core, offline, whatever command shows a question (`AttemptTime`).
    static let version5 = """
        ALTER TABLE attempts ADD COLUMN timer_started_at REAL;
        ALTER TABLE attempts ADD COLUMN counted_ms INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE attempts ADD COLUMN boot_id TEXT;
        ALTER TABLE attempts ADD COLUMN boot_checkpoint_ms INTEGER;
        ALTER TABLE attempts ADD COLUMN last_wall_at REAL;
        ALTER TABLE attempts ADD COLUMN wall_back_ms INTEGER NOT NULL DEFAULT 0;
        """

    /// The pinned server key (trust on first use) and the signed receipts of submitted attempts.
    static let version6 = """
        CREATE TABLE server_key (
            id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
            server_url TEXT NOT NULL,
            signing_key TEXT NOT NULL,
            agreement_key TEXT NOT NULL,
            fingerprint TEXT NOT NULL
        );
        CREATE TABLE receipts (
            receipt_id TEXT PRIMARY KEY NOT NULL,
            attempt_id TEXT NOT NULL,
            assessment_id TEXT NOT NULL,
            received_at TEXT NOT NULL,
            signed TEXT NOT NULL
        );
        CREATE INDEX receipts_by_assessment ON receipts (assessment_id);
        """

    /// Results fetched after sync (scores, and correct answers once released), kept for offline viewing.
    static let version7 = """
        CREATE TABLE results (
            attempt_id TEXT PRIMARY KEY NOT NULL,
            assessment_id TEXT NOT NULL,
            fetched_at REAL NOT NULL,
            result TEXT NOT NULL
        );
        """

    /// Sealed exams: the content key once unsealed (never the start code), and when.
    static let version8 = """
        CREATE TABLE sealed_keys (
            assessment_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            content_key BLOB NOT NULL,
            unsealed_at REAL NOT NULL,
            PRIMARY KEY (assessment_id, version)
        );
        """

    /// A stored copy that is still sealed, and when it opens, for `list` (the document itself stays unreadable).
    static let version9 = """
        ALTER TABLE assessments ADD COLUMN sealed INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE assessments ADD COLUMN opens_at TEXT;
        """

    /// An answer the server acknowledged is `uploaded` until a verified receipt names it (then `synced`): the state's
    /// CHECK changes, so the table is rebuilt (rowids kept: they order answers given in the same millisecond).
    /// Acknowledged answers of attempts without a receipt become `uploaded`. And the vault's own signing key.
    static let version10 = """
        CREATE TABLE responses_v10 (
            id TEXT PRIMARY KEY NOT NULL,
            attempt_id TEXT NOT NULL REFERENCES attempts (id),
            question_id TEXT NOT NULL,
            question_hash TEXT NOT NULL,
            answer TEXT NOT NULL,
            time_spent_ms INTEGER NOT NULL DEFAULT 0,
            answered_at TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('pending', 'uploaded', 'synced', 'conflict', 'dead')),
            force INTEGER NOT NULL DEFAULT 0,
            conflict_version INTEGER,
            sync_message TEXT,
            force_pending INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO responses_v10 (rowid, id, attempt_id, question_id, question_hash, answer, time_spent_ms, answered_at, state, force,
                conflict_version, sync_message, force_pending)
            SELECT rowid, id, attempt_id, question_id, question_hash, answer, time_spent_ms, answered_at, state, force,
                conflict_version, sync_message, force_pending FROM responses;
        DROP TABLE responses;
        ALTER TABLE responses_v10 RENAME TO responses;
        CREATE INDEX responses_by_attempt ON responses (attempt_id, question_id);
        CREATE INDEX responses_by_state_attempt ON responses (state, attempt_id);
        UPDATE responses SET state = 'uploaded' WHERE state = 'synced' AND attempt_id NOT IN (SELECT attempt_id FROM receipts);
        CREATE TABLE device_key (
            id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
            private_key BLOB NOT NULL,
            public_key TEXT NOT NULL,
            created_at REAL NOT NULL
        );
        """

    /// The questions and answers of a handed-in attempt whose assessment was evicted, so its results still read in
    /// the student's own terms (`vault results` after `vault evict`).
    static let version11 = """
        CREATE TABLE answer_sheets (
            attempt_id TEXT PRIMARY KEY NOT NULL,
            assessment_id TEXT NOT NULL,
            assessment_version INTEGER NOT NULL,
            document BLOB NOT NULL,
            answers TEXT NOT NULL,
            kept_at REAL NOT NULL
        );
        """

    /// An attempt continued here after it began on another device: when this vault took it over (the take screen and
    /// `status` say so; its clock kept the first device's start).
    static let version12 = """
        ALTER TABLE attempts ADD COLUMN continued_at REAL;
        """

    /// When this vault learned that an attempt is answered on another device too (it continued one, or a sync brought
    /// another device's answers): such an attempt, once handed in, is still followed for a week, so an earlier answer
    /// from the other device that arrives later renews the receipt here.
    static let version13 = """
        ALTER TABLE attempts ADD COLUMN shared_at REAL;
        """

    /// Dead letters the server never received (given up: too large even alone, or failing until the tries ran out)
    /// are reported to it once, so the teacher's roster shows "given up on the device".
    /// Each attempt's own record (issue 55): a hash chain of what happened during it, never answer text.
    static let version15 = """
        CREATE TABLE attempt_log (
            attempt_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            at TEXT NOT NULL,
            boot_ms INTEGER NOT NULL,
            kind TEXT NOT NULL,
            question_id TEXT,
            count INTEGER,
            previous TEXT NOT NULL,
            hash TEXT NOT NULL,
            PRIMARY KEY (attempt_id, seq)
        );
        """

    static let version14 = """
        ALTER TABLE dead_letters ADD COLUMN unseen INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE dead_letters ADD COLUMN reported_at REAL;
        """

    /// Where each cached version came from (issue 57): `server` (a download) or `file` (a student's package).
    static let version16 = """
        ALTER TABLE assessments ADD COLUMN source TEXT NOT NULL DEFAULT 'server';
        """

    /// The vault's own counts of its use (issue 59): `value` counted here, `sent` what the server took of it.
    static let version17 = """
        CREATE TABLE client_stats (
            name TEXT PRIMARY KEY NOT NULL,
            value INTEGER NOT NULL DEFAULT 0,
            sent INTEGER NOT NULL DEFAULT 0
        );
        """

    /// A hand-in held by a classroom server and confirmed by the district (issue 58): the district's signed receipt,
    /// the classroom that held it, and the district's key it verified against.
    static let version19 = """
        CREATE TABLE confirmations (
            attempt_id TEXT PRIMARY KEY NOT NULL,
            receipt_id TEXT NOT NULL,
            classroom TEXT NOT NULL,
            district_fingerprint TEXT NOT NULL,
            signed TEXT NOT NULL,
            confirmed_at INTEGER NOT NULL
        );
        """

    /// What the district refused of the work a classroom server passed on (issue 68): each answer or hand-in by its
    /// id, with the district's sentence, so the student is told and `vault receipts` shows it. And every server key
    /// this vault pinned or a classroom passed on (issue 69): a receipt keeps verifying by the key that signed it after
    /// the vault moves to a classroom.
    static let version20 = """
        CREATE TABLE district_refusals (
            item_id TEXT PRIMARY KEY NOT NULL,
            kind TEXT NOT NULL,
            assessment_id TEXT NOT NULL,
            attempt_id TEXT NOT NULL,
            message TEXT NOT NULL,
            noted_at INTEGER NOT NULL
        );
        CREATE TABLE known_server_keys (
            fingerprint TEXT PRIMARY KEY NOT NULL,
            signing_key TEXT NOT NULL,
            agreement_key TEXT NOT NULL,
            role TEXT NOT NULL,
            kept_at INTEGER NOT NULL
        );
        INSERT INTO known_server_keys (fingerprint, signing_key, agreement_key, role, kept_at)
            SELECT fingerprint, signing_key, agreement_key, 'server', 0 FROM server_key;
        """
}

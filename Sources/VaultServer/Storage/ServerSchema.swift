import VaultCore

/// The server's tables (SQLite 3.15 through the SQLCipher library, unkeyed).
public enum ServerSchema {
    static var migrator: Migrator {
        var migrator = Migrator()
        migrator.register(
            1,
            """
            CREATE TABLE users (
                name TEXT PRIMARY KEY NOT NULL,
                role TEXT NOT NULL CHECK (role IN ('student', 'teacher')),
                password_hash TEXT NOT NULL,
                salt TEXT NOT NULL,
                iterations INTEGER NOT NULL,
                created_at REAL NOT NULL
            );
            CREATE TABLE tokens (
                token_hash TEXT PRIMARY KEY NOT NULL,
                user_name TEXT NOT NULL REFERENCES users (name),
                expires_at REAL NOT NULL
            );
            CREATE TABLE assessments (
                id TEXT PRIMARY KEY NOT NULL,
                current_version INTEGER NOT NULL,
                deleted INTEGER NOT NULL DEFAULT 0,
                updated_at REAL NOT NULL
            );
            CREATE TABLE assessment_versions (
                id TEXT NOT NULL REFERENCES assessments (id),
                version INTEGER NOT NULL,
                source BLOB NOT NULL,
                served BLOB NOT NULL,
                content_hash TEXT NOT NULL,
                created_at REAL NOT NULL,
                PRIMARY KEY (id, version)
            );
            CREATE TABLE attempts (
                id TEXT PRIMARY KEY NOT NULL,
                user_name TEXT NOT NULL,
                assessment_id TEXT NOT NULL
            );
            CREATE TABLE responses (
                id TEXT PRIMARY KEY NOT NULL,
                user_name TEXT NOT NULL,
                attempt_id TEXT NOT NULL REFERENCES attempts (id),
                assessment_id TEXT NOT NULL,
                assessment_version INTEGER NOT NULL,
                question_id TEXT NOT NULL,
                answer TEXT NOT NULL,
                answered_at TEXT NOT NULL,
                answered_at_ms INTEGER NOT NULL,
                time_spent_ms INTEGER NOT NULL,
                forced INTEGER NOT NULL,
                superseded INTEGER NOT NULL DEFAULT 0,
                received_at REAL NOT NULL
            );
            CREATE INDEX responses_by_question ON responses (attempt_id, question_id, superseded);
            CREATE INDEX responses_by_assessment ON responses (assessment_id);
            CREATE TABLE submissions (
                attempt_id TEXT PRIMARY KEY NOT NULL,
                user_name TEXT NOT NULL,
                assessment_id TEXT NOT NULL,
                assessment_version INTEGER NOT NULL,
                submitted_at TEXT NOT NULL,
                forced INTEGER NOT NULL,
                receipt_id TEXT NOT NULL UNIQUE,
                received_at REAL NOT NULL,
                response_count INTEGER NOT NULL
            );
            """
        )
        // A timed attempt's clock as the vault measured it, for the teacher.
        migrator.register(
            2,
            """
            ALTER TABLE submissions ADD COLUMN started_at TEXT;
            ALTER TABLE submissions ADD COLUMN time_used_ms INTEGER;
            ALTER TABLE submissions ADD COLUMN clock_moved_back_ms INTEGER;
            """
        )
        // Receipts signed by the server's identity, which every process of a deployment reads from here.
        migrator.register(
            3,
            """
            CREATE TABLE server_keys (id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1), material BLOB NOT NULL);
            ALTER TABLE submissions ADD COLUMN signed_receipt TEXT;
            """
        )
        // Results: the teacher's grades and the release of an assessment's results.
        migrator.register(
            4,
            """
            CREATE TABLE grades (
                attempt_id TEXT NOT NULL REFERENCES submissions (attempt_id),
                question_id TEXT NOT NULL,
                points REAL NOT NULL,
                PRIMARY KEY (attempt_id, question_id)
            );
            ALTER TABLE assessments ADD COLUMN released_at REAL;
            """
        )
        // Sealed exams: per version, the content key, the start code and the key wrapped under it.
        migrator.register(
            5,
            """
            CREATE TABLE sealing (
                assessment_id TEXT NOT NULL,
                version INTEGER NOT NULL,
                content_key BLOB NOT NULL,
                start_code TEXT NOT NULL,
                wrapped_key TEXT NOT NULL,
                PRIMARY KEY (assessment_id, version)
            );
            """
        )
        // Extra time for students entitled to it: per assessment, or '*' for every timed assessment.
        migrator.register(
            6,
            """
            CREATE TABLE accommodations (
                assessment_id TEXT NOT NULL,
                user_name TEXT NOT NULL REFERENCES users (name),
                extra_minutes INTEGER NOT NULL,
                PRIMARY KEY (assessment_id, user_name)
            );
            CREATE TABLE feedback (
                attempt_id TEXT NOT NULL,
                question_id TEXT NOT NULL,
                text TEXT NOT NULL,
                PRIMARY KEY (attempt_id, question_id)
            );
            """
        )
        // A sealed exam's submission says when the student unsealed it.
        migrator.register(7, "ALTER TABLE submissions ADD COLUMN unsealed_at TEXT;")
        // What the teacher's view marks on a submission (time missing or over, a second attempt), and the vaults'
        // signing keys (a hand-in file is signed by one registered to its student).
        migrator.register(
            8,
            """
            ALTER TABLE submissions ADD COLUMN flags TEXT NOT NULL DEFAULT '';
            CREATE TABLE device_keys (
                user_name TEXT NOT NULL REFERENCES users (name),
                public_key TEXT NOT NULL,
                fingerprint TEXT NOT NULL,
                registered_at REAL NOT NULL,
                PRIMARY KEY (user_name, public_key)
            );
            """
        )
        // One schema with PostgreSQL: at most one current answer per attempt and question, as a unique index (a
        // plain index before). Existing rows are made to fit first: where an old version of the server left two
        // current answers, the later one by answered_at (then id) stays current, as the batch rule says.
        migrator.register(
            9,
            """
            UPDATE responses SET superseded = 1 WHERE superseded = 0 AND EXISTS (
                SELECT 1 FROM responses later WHERE later.attempt_id = responses.attempt_id AND later.question_id = responses.question_id
                    AND later.superseded = 0
                    AND (later.answered_at_ms > responses.answered_at_ms OR (later.answered_at_ms = responses.answered_at_ms AND later.id > responses.id))
            );
            CREATE UNIQUE INDEX responses_one_current ON responses (attempt_id, question_id) WHERE superseded = 0;
            CREATE INDEX submissions_by_assessment ON submissions (assessment_id);
            """
        )
        // The teacher's desk: groups of students, closing an exam, who fetched which version, how a submission
        // came in and the decision on one that arrived after closing.
        migrator.register(
            10,
            """
            ALTER TABLE users ADD COLUMN group_name TEXT;
            ALTER TABLE assessments ADD COLUMN closed_at REAL;
            ALTER TABLE submissions ADD COLUMN via TEXT NOT NULL DEFAULT 'sync';
            ALTER TABLE submissions ADD COLUMN late_decision TEXT;
            CREATE TABLE downloads (
                assessment_id TEXT NOT NULL,
                user_name TEXT NOT NULL REFERENCES users (name),
                version INTEGER NOT NULL,
                first_at REAL NOT NULL,
                last_at REAL NOT NULL,
                PRIMARY KEY (assessment_id, user_name, version)
            );
            """
        )
        // Teachers own their assessments: the owner and co-teachers of each; administrators flagged on their user
        // row (a teacher who acts on everything). What existed before keeps every teacher of the time as co-teacher,
        // so nothing a teacher saw disappears.
        migrator.register(
            11,
            """
            ALTER TABLE users ADD COLUMN admin INTEGER NOT NULL DEFAULT 0;
            CREATE TABLE assessment_teachers (
                assessment_id TEXT NOT NULL REFERENCES assessments (id),
                teacher TEXT NOT NULL REFERENCES users (name),
                owner INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (assessment_id, teacher)
            );
            INSERT INTO assessment_teachers (assessment_id, teacher, owner)
                SELECT a.id, u.name, 0 FROM assessments a, users u WHERE u.role = 'teacher';
            """
        )
        // A student's own attempts and submissions of one assessment, found by index: the submission's attempt
        // limit counts them. Without these PostgreSQL's SERIALIZABLE read of the count locked the whole assessment's
        // range, so every two students handing in at once conflicted (the end-of-exam burst's 500s).
        migrator.register(
            12,
            """
            CREATE INDEX submissions_by_user ON submissions (user_name, assessment_id);
            CREATE INDEX attempts_by_user ON attempts (user_name, assessment_id);
            """
        )
        // Actions that can be undone (close, reopen, release, hide results), with who and when.
        migrator.register(
            13,
            """
            CREATE TABLE assessment_actions (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                assessment_id TEXT NOT NULL REFERENCES assessments (id),
                action TEXT NOT NULL,
                actor TEXT NOT NULL,
                at REAL NOT NULL
            );
            CREATE INDEX assessment_actions_by_assessment ON assessment_actions (assessment_id, seq);
            """
        )
        // Refused hand-ins and answers (after closing, no attempts left), the latest per student and assessment, so
        // the roster shows them (they are never only in a student's dead letters); the teacher's written feedback on
        // an answer, which the student reads with their results.
        migrator.register(
            14,
            """
            CREATE TABLE refused_submissions (
                assessment_id TEXT NOT NULL REFERENCES assessments (id),
                user_name TEXT NOT NULL,
                attempt_id TEXT NOT NULL,
                reason TEXT NOT NULL,
                at REAL NOT NULL,
                PRIMARY KEY (assessment_id, user_name)
            );
            """
        )
        // When each attempt's clock started on the device (the first value received), for the roster's "started at"
        // and "time left".
        migrator.register(15, "ALTER TABLE attempts ADD COLUMN started_at REAL;")
        // The devices each attempt was answered from, and when each was last seen (the roster's "on 2 devices").
        migrator.register(
            16,
            """
            CREATE TABLE attempt_devices (
                attempt_id TEXT NOT NULL REFERENCES attempts (id),
                device TEXT NOT NULL,
                last_seen REAL NOT NULL,
                PRIMARY KEY (attempt_id, device)
            );
            """
        )
        // Each handed-in attempt's score, maximum and questions waiting for the teacher, kept beside its submission
        // (worked out at the hand-in and whenever its answers or grades change), so a roster shows scores without
        // reading every answer of the class. Submissions stored before have none and are scored from their answers.
        // An assessment's attempts by index: without it SQLite read the roster's attempts in progress by scanning every
        // answer (108 ms of the page at 100,000 answers; 1.4 ms with it).
        migrator.register(
            17,
            """
            ALTER TABLE submissions ADD COLUMN score REAL;
            ALTER TABLE submissions ADD COLUMN max_score REAL;
            ALTER TABLE submissions ADD COLUMN pending INTEGER;
            CREATE INDEX attempts_by_assessment ON attempts (assessment_id);
            """
        )
        // Each question's automatic points kept with the score (JSON, a question id to points or null for the
        // teacher's): results are read, not scored again, on every sync (scoring an item's own rules can be the
        // costliest work a request does). Submissions kept before have none and are scored when read.
        migrator.register(18, "ALTER TABLE submissions ADD COLUMN kept_points TEXT;")
        // Whom an action concerns (a late hand-in's decision names its student).
        migrator.register(19, "ALTER TABLE assessment_actions ADD COLUMN subject TEXT;")
        // An account turned off (exam day: a lost laptop, a student who must not sign in).
        migrator.register(20, "ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;")
        // A hand-in regraded against a later version's keys (NULL: its own version's).
        migrator.register(21, "ALTER TABLE submissions ADD COLUMN scored_version INTEGER;")
        // Each student's draw of an assessment with pools or shuffling: their questions, order and choice orders,
        // made once at their first download (DrawPlan) and kept for every device and later version.
        migrator.register(
            22,
            """
            CREATE TABLE draws (
                assessment_id TEXT NOT NULL REFERENCES assessments (id),
                user_name TEXT NOT NULL,
                seed INTEGER NOT NULL,
                version INTEGER NOT NULL,
                draw TEXT NOT NULL,
                made_at REAL NOT NULL,
                PRIMARY KEY (assessment_id, user_name)
            );
            """
        )
        // Each attempt's own record (issue 55), one chain per device: its events, head and length, and whether it
        // verified on arrival (the vault key's signature over head and length, every link of the chain).
        migrator.register(
            23,
            """
            CREATE TABLE attempt_records (
                attempt_id TEXT NOT NULL,
                device_key TEXT NOT NULL,
                user_name TEXT NOT NULL,
                assessment_id TEXT NOT NULL,
                head TEXT NOT NULL,
                event_count INTEGER NOT NULL,
                events TEXT NOT NULL,
                verified INTEGER NOT NULL,
                problem TEXT,
                received_at REAL NOT NULL,
                PRIMARY KEY (attempt_id, device_key)
            );
            CREATE INDEX attempt_records_by_assessment ON attempt_records (assessment_id, user_name);
            """
        )
        // Packages by file (issue 57): each student's one-time enrolment secret, kept as its SHA-256, and the vault
        // key the first hand-in made from it bound to the student.
        migrator.register(
            24,
            """
            CREATE TABLE enrolments (
                secret_hash TEXT PRIMARY KEY NOT NULL,
                user_name TEXT NOT NULL,
                assessment_id TEXT NOT NULL,
                device_key TEXT,
                created_at REAL NOT NULL
            );
            """
        )
        // The school's settings a running server reads (issue 59): client-stats, off unless turned on.
        migrator.register(
            25,
            """
            CREATE TABLE server_settings (
                key TEXT PRIMARY KEY NOT NULL,
                value TEXT NOT NULL
            );
            """
        )
        // Signing in with a vault's key (issue 58): one-time challenges, each for one user, until it expires.
        migrator.register(
            26,
            """
            CREATE TABLE device_challenges (
                challenge TEXT PRIMARY KEY NOT NULL,
                user_name TEXT NOT NULL,
                expires_at REAL NOT NULL
            );
            """
        )
        // A classroom server (issue 58): its district and the items it keeps to pass on, as the vaults sent them.
        migrator.register(
            27,
            """
            CREATE TABLE classroom_link (
                id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                upstream TEXT NOT NULL,
                teacher TEXT NOT NULL,
                district_key TEXT NOT NULL,
                pulled_at REAL,
                pushed_at REAL
            );
            CREATE TABLE classroom_outbox (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                kind TEXT NOT NULL,
                item_id TEXT NOT NULL,
                user_name TEXT NOT NULL,
                device_key TEXT,
                body TEXT NOT NULL,
                state TEXT NOT NULL,
                message TEXT,
                receipt TEXT,
                kept_at REAL NOT NULL,
                settled_at REAL,
                UNIQUE (kind, item_id)
            );
            CREATE INDEX classroom_outbox_by_state ON classroom_outbox (state, seq);
            """
        )
        // A classroom pulls again by itself: the group it pulls, and when the district's results last came down.
        migrator.register(
            28,
            """
            ALTER TABLE classroom_link ADD COLUMN pull_group TEXT;
            ALTER TABLE classroom_link ADD COLUMN results_at REAL;
            """
        )
        // Who speaks for a student (issue 68): each device key with how it came, when it was last used, and its
        // revocation.
        migrator.register(
            29,
            """
            ALTER TABLE device_keys ADD COLUMN origin TEXT NOT NULL DEFAULT 'sign_in';
            ALTER TABLE device_keys ADD COLUMN origin_detail TEXT;
            ALTER TABLE device_keys ADD COLUMN last_used_at REAL;
            ALTER TABLE device_keys ADD COLUMN revoked_at REAL;
            ALTER TABLE device_keys ADD COLUMN revoked_by TEXT;
            ALTER TABLE enrolments ADD COLUMN version INTEGER;
            ALTER TABLE enrolments ADD COLUMN expires_at REAL;
            """
        )
        // A classroom's credential is a classroom's (issue 69): its tokens name its key, and the keys a teacher
        // registered before (only `classroom init` did) become classroom keys.
        migrator.register(30, ServerSchema.classroomCredential.joined(separator: ";\n") + ";")
        migrator.register(31, ServerSchema.enrolmentHandIns.joined(separator: ";\n") + ";")
        migrator.register(32, ServerSchema.throughClassroom.joined(separator: ";\n") + ";")
        migrator.register(33, ServerSchema.districtHandIns.joined(separator: ";\n") + ";")
        return migrator
    }

    /// Schema 30 on both engines: the token's classroom, the teachers' keys as classroom keys, keys by fingerprint.
    /// Schema 31 on both engines (issue 68): which attempts were handed in under which package's enrolment, so a
    /// package replaced after a copy of it handed in keeps those hand-ins apart from the student's attempt.
    public static let enrolmentHandIns = [
        "CREATE TABLE enrolment_hand_ins (secret_hash TEXT NOT NULL, attempt_id TEXT NOT NULL, PRIMARY KEY (secret_hash, attempt_id))"
    ]

    /// Schema 32 on both engines (issue 69): the classroom (its key's fingerprint) a download or a hand-in came
    /// through, so the district's roster names it.
    public static let throughClassroom = [
        "ALTER TABLE downloads ADD COLUMN classroom TEXT",
        "ALTER TABLE submissions ADD COLUMN classroom TEXT",
    ]

    /// Schema 33 on both engines (issue 69): on a classroom, the hand-ins the district holds for its assessments, as
    /// the last results brought down said, so its desk shows a student who handed in elsewhere as handed in.
    public static let districtHandIns = [
        """
        CREATE TABLE district_hand_ins (attempt_id TEXT PRIMARY KEY NOT NULL, assessment_id TEXT NOT NULL, user_name TEXT NOT NULL,
            received_at DOUBLE PRECISION NOT NULL, via TEXT NOT NULL)
        """,
        "CREATE INDEX district_hand_ins_by_assessment ON district_hand_ins (assessment_id, user_name)",
    ]

    public static let classroomCredential = [
        "ALTER TABLE tokens ADD COLUMN classroom TEXT",
        "UPDATE device_keys SET origin = '\(DeviceKeyRecord.Origin.classroomServer.rawValue)' WHERE origin = 'sign_in' "
            + "AND user_name IN (SELECT name FROM users WHERE role <> 'student')",
        "CREATE INDEX device_keys_by_fingerprint ON device_keys (fingerprint)",
    ]

}

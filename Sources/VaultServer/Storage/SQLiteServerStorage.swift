import Foundation
import VaultAPI
import VaultCore
import VaultRules

/// The embedded store: one SQLite file in the data directory, one connection owned by this actor.
///
/// The actor serializes requests inside the process (so two identical batches at once store one copy) and
/// `BEGIN IMMEDIATE` transactions serialize it against the `vault-server` subcommands in other processes.
public actor SQLiteServerStorage: ServerStorage {
    private let database: Database
    private var documents: [String: Assessment] = [:]

    public init(directory: String) throws {
        try SecureFiles.createDirectory(directory)
        var configuration = DatabaseConfiguration()
        configuration.synchronous = "NORMAL"
        configuration.busyTimeoutMilliseconds = 10_000
        database = try Database(path: directory + "/server.db", encryption: .plaintext, configuration: configuration)
        try ServerSchema.migrator.migrate(database)
    }

    // MARK: Users and tokens

    public func createUser(_ user: UserRecord) throws {
        guard try database.row("SELECT 1 FROM users WHERE name = ?", [user.name]) == nil else {
            throw StorageError("A user called \(user.name) already exists.")
        }
        try database.execute(
            "INSERT INTO users (name, role, password_hash, salt, iterations, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [user.name, user.role.rawValue, user.passwordHash, user.salt, user.iterations, Date().timeIntervalSince1970]
        )
    }

    public func user(named name: String) throws -> UserRecord? {
        try database.row("SELECT name, role, password_hash, salt, iterations FROM users WHERE name = ?", [name]).map {
            UserRecord(
                name: $0.string(0),
                role: Role(rawValue: $0.string(1)) ?? .student,
                passwordHash: $0.string(2),
                salt: $0.string(3),
                iterations: $0.int(4)
            )
        }
    }

    public func storeToken(hash: String, user: String, expiresAt: Date) throws {
        try database.execute(
            "INSERT INTO tokens (token_hash, user_name, expires_at) VALUES (?, ?, ?)",
            [hash, user, expiresAt.timeIntervalSince1970]
        )
    }

    public func tokenOwner(hash: String, now: Date) throws -> (user: String, role: Role)? {
        try database.row(
            "SELECT u.name, u.role FROM tokens t JOIN users u ON u.name = t.user_name WHERE t.token_hash = ? AND t.expires_at > ?",
            [hash, now.timeIntervalSince1970]
        ).map { ($0.string(0), Role(rawValue: $0.string(1)) ?? .student) }
    }

    public func updatePassword(_ user: UserRecord) throws {
        try database.execute(
            "UPDATE users SET password_hash = ?, salt = ?, iterations = ? WHERE name = ?",
            [user.passwordHash, user.salt, user.iterations, user.name]
        )
    }

    public func revokeToken(hash: String) throws {
        try database.execute("DELETE FROM tokens WHERE token_hash = ?", [hash])
    }

    public func purgeExpiredTokens(now: Date) throws {
        try database.execute("DELETE FROM tokens WHERE expires_at <= ?", [now.timeIntervalSince1970])
    }

    // MARK: Assessments

    public func publish(_ assessment: Assessment, now: Date) throws -> PublishResponse {
        let source = try AssessmentPublisher.sourceBytes(assessment)
        return try database.inTransaction {
            let existing = try database.row("SELECT current_version, deleted FROM assessments WHERE id = ?", [assessment.id])
            if let existing {
                let version = existing.int(0)
                let current = try database.row(
                    "SELECT source, content_hash FROM assessment_versions WHERE id = ? AND version = ?",
                    [assessment.id, version]
                )
                if existing.int(1) == 0, let current, current.data(0) == source {
                    return PublishResponse(id: assessment.id, version: version, contentHash: current.string(1), changed: false)
                }
            }
            let version = (existing?.int(0) ?? 0) + 1
            let served = try AssessmentPublisher.serve(assessment, version: version)
            if existing == nil {
                try database.execute(
                    "INSERT INTO assessments (id, current_version, deleted, updated_at) VALUES (?, ?, 0, ?)",
                    [assessment.id, version, now.timeIntervalSince1970]
                )
            } else {
                try database.execute(
                    "UPDATE assessments SET current_version = ?, deleted = 0, updated_at = ? WHERE id = ?",
                    [version, now.timeIntervalSince1970, assessment.id]
                )
            }
            try database.execute(
                "INSERT INTO assessment_versions (id, version, source, served, content_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                [assessment.id, version, source, served.bytes, served.contentHash, now.timeIntervalSince1970]
            )
            return PublishResponse(id: assessment.id, version: version, contentHash: served.contentHash, changed: true)
        }
    }

    public func delete(id: String, now: Date) throws -> Bool {
        try database.execute("UPDATE assessments SET deleted = 1, updated_at = ? WHERE id = ? AND deleted = 0", [now.timeIntervalSince1970, id])
        return database.changes > 0
    }

    public func catalog() throws -> [CatalogEntry] {
        try database.rows(
            """
            SELECT a.id, v.served, a.current_version, v.content_hash, a.updated_at FROM assessments a
            JOIN assessment_versions v ON v.id = a.id AND v.version = a.current_version
            WHERE a.deleted = 0 ORDER BY a.id
            """
        ).compactMap { row in
            guard let document = try? document(id: row.string(0), version: row.int(2), bytes: row.data(1)) else { return nil }
            return CatalogEntry(
                id: row.string(0),
                title: document.title,
                version: row.int(2),
                contentHash: row.string(3),
                sizeBytes: row.data(1).count,
                updatedAt: Timestamp.string(epoch: row.double(4)),
                notAfter: document.notAfter
            )
        }
    }

    public func served(id: String) throws -> (bytes: Data, contentHash: String)? {
        try database.row(
            """
            SELECT v.served, v.content_hash FROM assessments a
            JOIN assessment_versions v ON v.id = a.id AND v.version = a.current_version WHERE a.id = ? AND a.deleted = 0
            """,
            [id]
        ).map { ($0.data(0), $0.string(1)) }
    }

    /// A served version, decoded once and kept.
    private func document(id: String, version: Int, bytes: Data? = nil) throws -> Assessment? {
        let key = "\(id)@\(version)"
        if let cached = documents[key] { return cached }
        guard let data = try bytes ?? database.row("SELECT served FROM assessment_versions WHERE id = ? AND version = ?", [id, version])?.data(0)
        else { return nil }
        let decoded = try JSONDecoder().decode(Assessment.self, from: data)
        documents[key] = decoded
        return decoded
    }

    // MARK: Responses

    public func recordBatch(_ items: [ResponseItem], user: String, now: Date) throws -> [ItemResult] {
        try database.inTransaction {
            try items.map { try record($0, user: user, now: now) }
        }
    }

    private func record(_ item: ResponseItem, user: String, now: Date) throws -> ItemResult {
        if let stored = try database.row("SELECT user_name FROM responses WHERE id = ?", [item.id]) {
            // Another user's id answers like any invalid item, so ids cannot be probed.
            guard stored.string(0) == user else { return ResponseRules.invalid(item) }
            return ItemResult(id: item.id, status: .duplicate)
        }
        guard let assessment = try database.row("SELECT current_version, deleted FROM assessments WHERE id = ?", [item.assessmentId]),
            assessment.int(1) == 0, let current = try document(id: item.assessmentId, version: assessment.int(0))
        else {
            return ItemResult(id: item.id, status: .gone, message: "This assessment is no longer available.")
        }
        let owner = try database.row("SELECT user_name, assessment_id FROM attempts WHERE id = ?", [item.attemptId])
        if let owner, owner.string(0) != user || owner.string(1) != item.assessmentId {
            return ItemResult(id: item.id, status: .rejected, message: "This attempt belongs to someone else or another assessment.")
        }
        if owner == nil, let closed = ResponseRules.closedForNewAttempts(current, now: now) {
            return ItemResult(id: item.id, status: .rejected, message: closed)
        }
        let answered = item.assessmentVersion >= 1 ? try document(id: item.assessmentId, version: item.assessmentVersion) : nil
        var result = ResponseRules.judge(item, answeredVersion: answered, current: current)
        guard result.status == .accepted, let milliseconds = Timestamp.milliseconds(item.answeredAt) else { return result }

        // Last write wins by answered_at (ties broken by id) per attempt and question.
        let latest = try database.row(
            "SELECT id, answered_at_ms FROM responses WHERE attempt_id = ? AND question_id = ? AND superseded = 0",
            [item.attemptId, item.questionId]
        )
        var superseded = false
        if let latest {
            let theirs = (Int64(latest.int(1)), latest.string(0))
            if theirs > (milliseconds, item.id) {
                superseded = true
                result = ItemResult(
                    id: item.id,
                    status: .superseded,
                    currentVersion: result.currentVersion,
                    message: "A later answer to this question is already stored."
                )
            } else {
                try database.execute("UPDATE responses SET superseded = 1 WHERE id = ?", [latest.string(0)])
            }
        }
        try database.execute(
            "INSERT OR IGNORE INTO attempts (id, user_name, assessment_id) VALUES (?, ?, ?)",
            [item.attemptId, user, item.assessmentId]
        )
        let answer = String(decoding: try CanonicalJSON.encode(item.answer), as: UTF8.self)
        try database.execute(
            """
            INSERT INTO responses (id, user_name, attempt_id, assessment_id, assessment_version, question_id, answer, answered_at,
                answered_at_ms, time_spent_ms, forced, superseded, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                item.id, user, item.attemptId, item.assessmentId, item.assessmentVersion, item.questionId, answer, item.answeredAt,
                milliseconds, max(0, item.timeSpentMs), item.force && item.assessmentVersion != current.version, superseded,
                now.timeIntervalSince1970,
            ]
        )
        return result
    }

    // MARK: Submissions

    public func submit(_ request: SubmissionRequest, user: String, now: Date) throws -> SubmissionOutcome {
        try database.inTransaction {
            // An attempt belongs to the user who first uploaded an answer to it; only they may submit it.
            let owner = try database.row("SELECT user_name FROM attempts WHERE id = ?", [request.attemptId])?.string(0)
            if let owner, owner != user { return .forbidden("This attempt belongs to someone else, so it cannot be submitted from this account.") }
            if let existing = try database.row(
                "SELECT user_name, receipt_id, assessment_id, assessment_version, received_at, response_count FROM submissions WHERE attempt_id = ?",
                [request.attemptId]
            ) {
                return .repeated(
                    SubmissionReceipt(
                        receiptId: existing.string(1),
                        attemptId: request.attemptId,
                        assessmentId: existing.string(2),
                        assessmentVersion: existing.int(3),
                        receivedAt: Timestamp.string(epoch: existing.double(4)),
                        responseCount: existing.int(5)
                    )
                )
            }
            guard let assessment = try database.row("SELECT current_version, deleted FROM assessments WHERE id = ?", [request.assessmentId]),
                assessment.int(1) == 0
            else { return .gone }
            guard Timestamp.milliseconds(request.submittedAt) != nil else { return .rejected("submitted_at must be an RFC 3339 timestamp.") }
            let force = request.force ?? false
            if request.assessmentVersion != assessment.int(0), !force { return .outdated(currentVersion: assessment.int(0)) }
            let unique = Array(Set(request.responseIds))
            var missing: [String] = []
            for id in unique.sorted() {
                let row = try database.row("SELECT attempt_id, user_name FROM responses WHERE id = ?", [id])
                if row == nil || row?.string(0) != request.attemptId || row?.string(1) != user { missing.append(id) }
            }
            if !missing.isEmpty { return .missingResponses(missing) }
            guard owner != nil, !unique.isEmpty else {
                return .rejected("This attempt has no answers of yours on the server, so there is nothing to submit. Upload its answers first.")
            }
            let receipt = SubmissionReceipt(
                receiptId: "rcpt-" + Hex.encode(try CryptoRandom.bytes(8)),
                attemptId: request.attemptId,
                assessmentId: request.assessmentId,
                assessmentVersion: request.assessmentVersion,
                receivedAt: Timestamp.string(now),
                responseCount: unique.count
            )
            try database.execute(
                "INSERT OR IGNORE INTO attempts (id, user_name, assessment_id) VALUES (?, ?, ?)",
                [request.attemptId, user, request.assessmentId]
            )
            try database.execute(
                """
                INSERT INTO submissions (attempt_id, user_name, assessment_id, assessment_version, submitted_at, forced, receipt_id,
                    received_at, response_count, started_at, time_used_ms, clock_moved_back_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    request.attemptId, user, request.assessmentId, request.assessmentVersion, request.submittedAt,
                    force && request.assessmentVersion != assessment.int(0), receipt.receiptId, now.timeIntervalSince1970, unique.count,
                    request.startedAt.flatMap { Timestamp.date($0) == nil ? nil : $0 }, request.timeUsedMs.map { max(0, $0) },
                    request.clockMovedBackMs.map { max(0, $0) },
                ]
            )
            return .created(receipt)
        }
    }

    public func received(assessmentID: String) throws -> ReceivedResponses? {
        guard try database.row("SELECT 1 FROM assessments WHERE id = ?", [assessmentID]) != nil else { return nil }
        let responses = try database.rows(
            """
            SELECT id, attempt_id, question_id, assessment_version, answer, answered_at, forced, superseded, user_name, received_at,
                answered_at_ms FROM responses
            WHERE assessment_id = ? ORDER BY attempt_id, question_id, answered_at_ms, id
            """,
            [assessmentID]
        ).map { row in
            ReceivedResponses.Response(
                id: row.string(0),
                attemptId: row.string(1),
                questionId: row.string(2),
                assessmentVersion: row.int(3),
                answer: (try? JSONDecoder().decode(JSONValue.self, from: Data(row.string(4).utf8))) ?? .null,
                answeredAt: row.string(5),
                forced: row.int(6) != 0,
                superseded: row.int(7) != 0,
                user: row.string(8),
                receivedAt: Timestamp.string(epoch: row.double(9)),
                answeredInFuture: ResponseRules.answeredInFuture(answeredAtMilliseconds: Int64(row.int(10)), receivedAt: row.double(9))
            )
        }
        let submissions = try database.rows(
            """
            SELECT attempt_id, assessment_version, submitted_at, forced, receipt_id, user_name, started_at, time_used_ms, clock_moved_back_ms
            FROM submissions WHERE assessment_id = ? ORDER BY attempt_id
            """,
            [assessmentID]
        ).map {
            ReceivedResponses.Submission(
                attemptId: $0.string(0),
                assessmentVersion: $0.int(1),
                submittedAt: $0.string(2),
                forced: $0.int(3) != 0,
                receiptId: $0.string(4),
                user: $0.string(5),
                startedAt: $0.optionalString(6),
                timeUsedMs: $0.optionalInt(7),
                clockMovedBackMs: $0.optionalInt(8)
            )
        }
        return ReceivedResponses(assessmentId: assessmentID, responses: responses, submissions: submissions)
    }
}

import Foundation
import NIOPosix
import ServiceLifecycle
import Synchronization
import VaultAPI
import VaultCore
import VaultRules

/// The embedded store: one SQLite file in the data directory, one connection, used on a thread of its own (never
/// on an event loop or the cooperative pool).
///
/// Exactly once does not depend on this process: every write is a `BEGIN IMMEDIATE` transaction (one writer at a
/// time across processes, so the facts a rule reads cannot change before its writes commit), and the response id
/// and the submitted attempt are unique keys.
public final class SQLiteServerStorage: ServerStorage {
    private let database: Mutex<Database>
    public let documents = DocumentCache()
    private let thread: NIOThreadPool

    /// `key`: the store is encrypted (a classroom's, `StoreLock`); nil for a plaintext one. A store whose lock is
    /// there is never opened without its key (`StoreLockError.locked`).
    public init(directory: String, key: StoreKey? = nil) throws {
        try SecureFiles.createDirectory(directory)
        var configuration = DatabaseConfiguration()
        configuration.synchronous = "NORMAL"
        configuration.busyTimeoutMilliseconds = 10_000
        if key == nil, try StoreLock.read(directory: directory) != nil { throw StoreLockError.locked }
        let database = try Database(
            path: directory + "/server.db",
            encryption: key.map { .rawKey($0.key, salt: $0.salt) } ?? .plaintext,
            configuration: configuration
        )
        try ServerSchema.migrator.migrate(database)
        self.database = Mutex(database)
        thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
    }

    /// Runs `body` with the connection on the store's own thread.
    private func onDatabase<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await thread.runIfActive {
            try self.database.withLock { database in try body(database) }
        }
    }

    /// Keeps the store until graceful shutdown. Its thread stops with the store (the subcommands use a store
    /// without running it as a service).
    public func run() async throws {
        try? await gracefulShutdown()
    }

    deinit { thread.shutdownGracefully { _ in } }

    // MARK: Users and tokens

    public func tokenOwner(hash: String, now: Date) async throws -> TokenOwner? {
        try await onDatabase { database in
            try database.storedRow(AccountStatements.tokenOwnerSQL(hash: "?", now: "?"), [hash, now.timeIntervalSince1970]).map {
                TokenOwner(user: try $0.string(0), role: Role(rawValue: try $0.string(1)) ?? .student, classroom: try $0.optionalString(2))
            }
        }
    }

    // MARK: Responses

    public func recordBatch(_ items: [ResponseItem], user: String, device: String?, now: Date) async throws -> [ItemResult] {
        try await onDatabase { database in
            try database.inTransaction {
                let facts = try Self.facts(for: items, user: user, database: database, documents: self.documents)
                let plan = BatchPlan.decide(items, user: user, device: device, now: now, facts: facts)
                try Self.apply(plan.writes, now: now, database: database)
                return plan.results
            }
        }
    }

    public func judgeBatch(_ items: [ResponseItem], user: String, now: Date) async throws -> [ItemResult] {
        try await onDatabase { database in
            try database.inTransaction {
                BatchPlan.decide(
                    items,
                    user: user,
                    now: now,
                    facts: try Self.facts(for: items, user: user, database: database, documents: self.documents)
                )
                .results
            }
        }
    }

    /// The facts `BatchPlan` needs, read inside the batch's transaction.
    private static func facts(for items: [ResponseItem], user: String, database: Database, documents: DocumentCache) throws -> BatchFacts {
        let needs = BatchPlan.needs(items)
        var facts = BatchFacts()
        for id in needs.responseIDs {
            if let row = try database.storedRow("SELECT user_name FROM responses WHERE id = ?", [id]) {
                facts.storedResponses[id] = try row.string(0)
            }
        }
        for id in needs.assessmentIDs {
            if let row = try database.storedRow("SELECT current_version, deleted, closed_at, released_at FROM assessments WHERE id = ?", [id]) {
                facts.assessments[id] = AssessmentHead(
                    currentVersion: try row.int(0),
                    deleted: try row.int(1) != 0,
                    closedAt: try row.optionalDouble(2),
                    released: try row.optionalDouble(3) != nil
                )
            }
        }
        for key in BatchPlan.documentKeys(items, heads: facts.assessments) {
            if documents.cached(key) == nil,
                let row = try database.storedRow("SELECT served FROM assessment_versions WHERE id = ? AND version = ?", [key.id, key.version])
            {
                _ = try documents.decoded(key, bytes: try row.data(0))
            }
            facts.documents[key] = documents.cached(key)
        }
        for id in needs.attemptIDs {
            if let row = try database.storedRow(
                """
                SELECT a.user_name, a.assessment_id, s.submitted_at, s.received_at FROM attempts a LEFT JOIN submissions s ON s.attempt_id = a.id
                WHERE a.id = ?
                """,
                [id]
            ) {
                facts.attempts[id] = AttemptOwner(
                    user: try row.string(0),
                    assessmentID: try row.string(1),
                    handedInAtMilliseconds: AttemptOwner.handedIn(try row.optionalString(2)),
                    handedInReceivedAt: try row.optionalDouble(3)
                )
            }
        }
        for id in BatchPlan.drawingAssessments(facts) {
            if let row = try database.stored(DrawStatements.draw(assessmentID: id, user: user)).first {
                facts.draws[id] = try DrawStatements.stored(row).draw
            }
        }
        for slot in needs.slots {
            if let row = try database.storedRow(
                "SELECT id, answered_at_ms FROM responses WHERE attempt_id = ? AND question_id = ? AND superseded = 0",
                [slot.attemptID, slot.questionID]
            ) {
                facts.latest[slot] = LatestAnswer(responseID: try row.string(0), answeredAtMilliseconds: Int64(try row.int(1)))
            }
        }
        return facts
    }

    private static func apply(_ writes: BatchWrites, now: Date, database: Database) throws {
        try record(writes.refusals, database: database)
        for id in writes.superseded { try database.execute("UPDATE responses SET superseded = 1 WHERE id = ?", [id]) }
        for attempt in writes.attempts {
            try database.execute(
                "INSERT OR IGNORE INTO attempts (id, user_name, assessment_id, started_at) VALUES (?, ?, ?, ?)",
                [attempt.id, attempt.user, attempt.assessmentID, attempt.startedAt]
            )
        }
        for response in writes.responses {
            try database.execute(
                """
                INSERT INTO responses (id, user_name, attempt_id, assessment_id, assessment_version, question_id, answer, answered_at,
                    answered_at_ms, time_spent_ms, forced, superseded, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    response.id, response.user, response.attemptID, response.assessmentID, response.assessmentVersion, response.questionID,
                    response.answer, response.answeredAt, response.answeredAtMilliseconds, response.timeSpentMilliseconds, response.forced,
                    response.superseded, now.timeIntervalSince1970,
                ]
            )
        }
        if let device = writes.device {
            for attemptID in writes.seenAttempts {
                try database.execute(
                    "INSERT OR REPLACE INTO attempt_devices (attempt_id, device, last_seen) VALUES (?, ?, ?)",
                    [attemptID, device, now.timeIntervalSince1970]
                )
            }
        }
        for (attemptID, added) in writes.handedInChanges.sorted(by: { $0.key < $1.key }) {
            guard let row = try database.storedRow("SELECT flags FROM submissions WHERE attempt_id = ?", [attemptID]) else { continue }
            let flags = try SubmissionRecord.merged(row.optionalString(0), adding: added)
            if added.contains(.changedAfterHandIn) {
                // The final set: counted again, and the receipt signed again over it (same receipt id).
                try database.execute(
                    """
                    UPDATE submissions SET flags = ?, signed_receipt = NULL,
                        response_count = (SELECT count(*) FROM responses WHERE attempt_id = ? AND superseded = 0) WHERE attempt_id = ?
                    """,
                    [flags, attemptID, attemptID]
                )
                try Self.keepTotals(attemptID, database: database)
            } else {
                try database.execute("UPDATE submissions SET flags = ? WHERE attempt_id = ?", [flags, attemptID])
            }
        }
    }

    // MARK: Kept scores (answers that change a hand-in)

    /// The attempt's current answers (superseded ones left out): what a receipt states and a submission must list.
    static func currentAnswers(attemptID: String, database: Database) throws -> [ReceiptMaterial.Answer] {
        try database.stored(ScoringStatements.currentAnswers(attemptID: attemptID)).map(ScoringStatements.answer)
    }

    /// Works out a handed-in attempt's score again and keeps it beside its submission (`Scoring.Totals`), in the
    /// batch that changed its answers after the hand-in (a hand-in and a grade keep theirs in `SharedStatements`).
    static func keepTotals(_ attemptID: String, database: Database) throws {
        guard let submitted = try database.stored(ScoringStatements.submittedSource(attemptID: attemptID)).first else { return }
        let answers = try currentAnswers(attemptID: attemptID, database: database).map { (questionID: $0.questionID, answer: $0.answer) }
        let grades = try database.stored(ScoringStatements.grades(attemptID: attemptID)).map(ScoringStatements.grade)
        guard
            let totals = Scoring.kept(
                source: try submitted.data("source"),
                draw: try submitted.optionalString("draw"),
                answers: answers,
                grades: grades
            )
        else { return }
        try database.execute(ScoringStatements.keepTotals(totals, attemptID: attemptID))
    }

    // MARK: The desk

    /// A student's download: the first time kept, the latest updated (SQLite 3.15 has no upsert that keeps a column).
    public func recordDownload(assessmentID: String, version: Int, user: String, now: Date, classroom: String?) async throws {
        try await onDatabase { database in
            try database.inTransaction {
                try database.execute(
                    DeskStatements.downloadAgain(assessmentID: assessmentID, version: version, user: user, at: now, classroom: classroom)
                )
                if database.changes == 0 {
                    try database.execute(
                        DeskStatements.firstDownload(assessmentID: assessmentID, version: version, user: user, at: now, classroom: classroom)
                    )
                }
            }
        }
    }

    private static func record(_ refusals: [RosterFacts.Refusal], database: Database) throws {
        for refusal in refusals { try database.execute(DeskStatements.refusal(refusal, dialect: .sqlite)) }
    }

}

/// The shared vocabulary's session: statements, snapshots and small transactions, each on the store's thread.
extension SQLiteServerStorage: SharedStatements {
    public var dialect: SQLDialect { .sqlite }

    public func rows<T: Sendable>(_ statement: SQLStatement, _ read: @escaping @Sendable (any StoredRow) throws -> T) async throws -> [T] {
        try await onDatabase { database in try database.stored(statement).map(read) }
    }

    public func run(_ statement: SQLStatement) async throws {
        try await onDatabase { database in try database.execute(statement) }
    }

    public func snapshot<T: Sendable>(_ statements: [SQLStatement], _ body: @escaping @Sendable ([[any StoredRow]]) throws -> T) async throws -> T {
        try await onDatabase { database in
            try database.inTransaction { try body(statements.map { try database.stored($0) }) }
        }
    }

    public func readThenWrite<T: Sendable>(
        _ reads: [SQLStatement],
        queue: String?,
        decide: @escaping @Sendable ([[any StoredRow]]) throws -> (T, [SQLStatement])
    ) async throws -> T {
        try await onDatabase { database in
            try database.inTransaction {
                let (value, writes) = try decide(reads.map { try database.stored($0) })
                for statement in writes { try database.execute(statement) }
                return value
            }
        }
    }
}

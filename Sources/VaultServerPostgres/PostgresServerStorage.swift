import Foundation
import Logging
import NIOSSL
import PostgresNIO
import ServiceLifecycle
import Synchronization
import VaultAPI
import VaultRules
import VaultServer

/// The PostgreSQL store: a pooled `PostgresClient`, any number of `vault-server` processes on one database.
///
/// Submissions and publishing run `SERIALIZABLE`; batches run `READ COMMITTED` (see `recordBatch`): every race a
/// batch can lose ends in a unique-key violation (response id, one current answer per attempt and question, attempt
/// owner), and the whole transaction runs again and reads the winner; the heads it depends on are read `FOR SHARE`.
/// Every transaction is retried on a serialization failure, a deadlock or a unique-key violation, so the outcome is
/// that of some serial order whichever process ran them, and the unique keys hold even if a rule were wrong.
/// A batch costs a constant number of round trips: arrays and `unnest`, never one statement per item. How it reaches
/// the database (leases, deadlines, transactions and their retries) is in PostgresSession.swift.
public final class PostgresServerStorage: ServerStorage {
    let client: PostgresClient
    public let location: PostgresLocation
    /// How long one storage operation may take in all before it is answered "unavailable" (`leased`).
    let operationLimit: Duration
    let logger: Logger
    private let runner: Task<Void, Never>
    /// Served versions are immutable once published: decoded once per process and kept.
    public let documents = DocumentCache()
    static let maxTries = 30

    /// One connection with the TLS the location requires, closed at once; a refusal becomes a sentence.
    static func probeTLS(_ location: PostgresLocation, logger: Logger) async throws {
        guard let tls = try Self.tlsConfiguration(location) else { return }
        let configuration = PostgresConnection.Configuration(
            host: location.host,
            port: location.port,
            username: location.user,
            password: location.password(),
            database: location.database,
            tls: .require(try NIOSSLContext(configuration: tls))
        )
        do {
            let connection = try await within(.seconds(10)) {
                try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            }
            try? await connection.close()
        } catch let error as PSQLError where error.code == .sslUnsupported {
            throw StorageError.unavailable(
                "\(location): the database does not offer TLS, and sslmode=\(location.sslMode.rawValue) asks for it; nothing was sent in clear"
            )
        } catch let error as PSQLError where error.code == .failedToAddSSLHandler || Self.isTLS(error.underlying) {
            throw StorageError.unavailable(
                "\(location): the database's certificate was not accepted (sslmode=\(location.sslMode.rawValue)\(location.sslMode == .verifyFull ? ": signed by the sslrootcert's authority, for the host name \(location.host)" : ": signed by the sslrootcert's authority")); nothing was sent"
            )
        } catch let error as NIOSSLError {
            throw StorageError.unavailable("\(location): the database's certificate was not accepted (\(error)); nothing was sent")
        } catch {
            // Not reached at all (down, refused, no answer): said as any connection failure is.
            throw Self.storageError(error, location: location, starting: true)
        }
    }

    /// A failure of the TLS handshake (the certificate, its host name, its authority).
    static func isTLS(_ error: (any Error)?) -> Bool { error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError }

    /// TLS as the location's `sslmode` says (issue 70): `require` and the verifying modes never fall back to clear;
    /// `verify-ca` checks the certificate's authority, `verify-full` its host name too.
    static func tls(_ location: PostgresLocation) throws -> PostgresClient.Configuration.TLS {
        guard let configuration = try tlsConfiguration(location) else { return .disable }
        return location.sslMode == .require || location.sslMode.verifies ? .require(configuration) : .prefer(configuration)
    }

    /// The TLS settings of the location's `sslmode` (nil: none).
    static func tlsConfiguration(_ location: PostgresLocation) throws -> TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch location.sslMode {
        case .disable: return nil
        case .allow, .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA, .verifyFull:
            guard let root = location.sslRootCert else {
                throw StorageError.badLocation("sslmode=\(location.sslMode.rawValue) needs sslrootcert=FILE.")
            }
            configuration.trustRoots = .file(root)
            configuration.certificateVerification = location.sslMode == .verifyFull ? .fullVerification : .noHostnameVerification
        }
        return configuration
    }

    /// Connects, and brings the schema to the current version (several processes starting at once take turns on
    /// an advisory lock). Fails with a plain sentence when the database cannot be reached within `connectTimeout`.
    /// `operationLimit`: the server's 15 s (`defaultOperationLimit`); the tests' harness, whose shared cluster serves
    /// the whole suite on two cores, gives its operations longer. `pool`: at most so many connections, each closed
    /// after so long idle (the harness keeps few, briefly: a hundred stores of one suite share one cluster).
    public init(
        location: PostgresLocation,
        logger: Logger = Logger(label: "vault-server.postgres"),
        connectTimeout: Duration = .seconds(15),
        operationLimit: Duration = PostgresServerStorage.defaultOperationLimit,
        pool: (connections: Int, idle: Duration) = (8, .seconds(60))
    )
        async throws
    {
        self.operationLimit = operationLimit
        // TLS that must hold is tried once on its own first, so a database without TLS, or a certificate not
        // accepted, is said in a sentence at once (the pool would try again until the timeout).
        if location.sslMode == .require || location.sslMode.verifies { try await Self.probeTLS(location, logger: logger) }
        var configuration = PostgresClient.Configuration(
            host: location.host,
            port: location.port,
            username: location.user,
            password: location.password(),
            database: location.database,
            tls: try Self.tls(location)
        )
        // Eight connections keep a database on a small machine busy (more only queue inside it: `scripts/load` measured
        // 4, 8 and 16 within noise of each other) and let a dozen processes share PostgreSQL's default 100 connections.
        configuration.options.maximumConnections = pool.connections
        configuration.options.connectionIdleTimeout = pool.idle
        configuration.options.connectTimeout = .seconds(10)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.location = location
        self.logger = logger
        runner = Task { await client.run() }
        do {
            try await Self.within(connectTimeout) { try await PostgresSchema.migrate(client, logger: logger) }
        } catch {
            runner.cancel()
            throw Self.storageError(error, location: location, starting: true)
        }
    }

    deinit { runner.cancel() }

    /// Keeps the pool until graceful shutdown, then closes it.
    public func run() async throws {
        try? await gracefulShutdown()
        runner.cancel()
    }

    // MARK: Users and tokens

    public func tokenOwner(hash: String, now: Date) async throws -> TokenOwner? {
        try await plain { client in
            // Read to the end: the pool takes the connection back when the rows are finished.
            var owner: TokenOwner?
            for try await (name, role, classroom) in try await client.execute(HotStatements.TokenOwner(hash: hash, now: now), logger: self.logger) {
                owner = TokenOwner(user: name, role: Role(rawValue: role) ?? .student, classroom: classroom)
            }
            return owner
        }
    }

    // MARK: Responses

    /// READ COMMITTED: every race a batch can lose ends in a unique violation, and the retry reads the winner. Two
    /// stores of one response id collide on its primary key; two current answers of one (attempt, question) on
    /// `responses_one_current`; two owners of one attempt on its primary key. The assessment heads are read `FOR SHARE`,
    /// so a publish or delete waits for the batch (and the batch never stores against a version that was replaced
    /// under it).
    public func recordBatch(_ items: [ResponseItem], user: String, device: String?, now: Date) async throws -> [ItemResult] {
        try await transaction(.readCommitted) { connection in
            let facts = try await self.facts(for: items, user: user, on: connection)
            let plan = BatchPlan.decide(items, user: user, device: device, now: now, facts: facts)
            try await self.apply(plan.writes, now: now, on: connection)
            return plan.results
        }
    }

    public func judgeBatch(_ items: [ResponseItem], user: String, now: Date) async throws -> [ItemResult] {
        try await transaction(.readCommitted) { connection in
            BatchPlan.decide(items, user: user, now: now, facts: try await self.facts(for: items, user: user, on: connection)).results
        }
    }

    /// The facts `BatchPlan` needs in one round trip whatever the batch's size (two when a document is not yet
    /// cached): see `HotStatements.BatchFacts`.
    private func facts(for items: [ResponseItem], user: String, on connection: PostgresConnection) async throws -> BatchFacts {
        var facts = BatchFacts()
        try await HotStatements.BatchFacts.read(
            connection.execute(HotStatements.BatchFacts(needs: BatchPlan.needs(items)), logger: logger),
            into: &facts
        )
        let keys = BatchPlan.documentKeys(items, heads: facts.assessments)
        let missing = keys.filter { documents.cached($0) == nil }
        if !missing.isEmpty {
            let rows = try await connection.query(
                """
                SELECT v.id, v.version, v.served FROM assessment_versions v
                JOIN unnest(\(missing.map(\.id))::text[], \(missing.map(\.version))::bigint[]) AS k(id, version)
                ON v.id = k.id AND v.version = k.version
                """,
                logger: logger
            )
            for try await (id, version, served) in rows.decode((String, Int, Data).self) {
                _ = try documents.decoded(DocumentKey(id: id, version: version), bytes: served)
            }
        }
        for key in keys { facts.documents[key] = documents.cached(key) }
        // Pools and shuffling: the questions this user drew (one more round trip, only for such assessments).
        let drawing = BatchPlan.drawingAssessments(facts)
        if !drawing.isEmpty {
            let rows = try await connection.query(
                "SELECT assessment_id, draw FROM draws WHERE user_name = \(user) AND assessment_id = ANY(\(drawing))",
                logger: logger
            )
            for try await (id, text) in rows.decode((String, String).self) {
                do {
                    facts.draws[id] = try JSONDecoder().decode(Draw.self, from: Data(text.utf8))
                } catch {
                    throw StorageError.damaged("the stored draw of assessment \(id) cannot be read")
                }
            }
        }
        return facts
    }

    /// One statement for the new attempts and responses; a second only when the batch supersedes stored answers,
    /// which must lose their slot before the new current answers take it (`responses_one_current`).
    private func apply(_ writes: BatchWrites, now: Date, on connection: PostgresConnection) async throws {
        if !writes.superseded.isEmpty {
            try await connection.query("UPDATE responses SET superseded = true WHERE id = ANY(\(writes.superseded))", logger: logger)
        }
        for refusal in writes.refusals { try await connection.query(DeskStatements.refusal(refusal, dialect: .postgres).postgres, logger: logger) }
        guard !writes.responses.isEmpty || !writes.attempts.isEmpty else { return }
        // Read to the end (the statement returns no rows); PostgresNIO's command-tag variant of `execute` traps on a
        // prepared statement's stream, so it is not used.
        for try await _ in try await connection.execute(HotStatements.BatchInsert(writes: writes, now: now), logger: logger) {}
        try await applyHandedInChanges(writes.handedInChanges, on: connection)
        if let device = writes.device, !writes.seenAttempts.isEmpty {
            try await connection.query(
                """
                INSERT INTO attempt_devices (attempt_id, device, last_seen)
                SELECT attempt_id, \(device), \(now.timeIntervalSince1970) FROM unnest(\(writes.seenAttempts)::text[]) AS a(attempt_id)
                ON CONFLICT (attempt_id, device) DO UPDATE SET last_seen = EXCLUDED.last_seen
                """,
                logger: logger
            )
        }
        // A new attempt's clock start, when the device sent one (rare: once per attempt, so not in the hot statement).
        let started = writes.attempts.compactMap { attempt in attempt.startedAt.map { (attempt.id, $0) } }
        if !started.isEmpty {
            try await connection.query(
                """
                UPDATE attempts SET started_at = v.started_at FROM unnest(\(started.map(\.0))::text[], \(started.map(\.1))::double precision[])
                    AS v(id, started_at) WHERE attempts.id = v.id AND attempts.started_at IS NULL
                """,
                logger: logger
            )
        }
    }

    /// Handed-in attempts the batch changed (rare: a student's other device): their flags, and for one whose
    /// current answers changed, the count and the receipt, signed again over the final set on its next read.
    private func applyHandedInChanges(_ changes: [String: Set<SubmissionFlag>], on connection: PostgresConnection) async throws {
        for (attemptID, added) in changes.sorted(by: { $0.key < $1.key }) {
            var stored: String??
            for try await flags in try await connection.query(
                "SELECT flags FROM submissions WHERE attempt_id = \(attemptID) FOR UPDATE",
                logger: logger
            ).decode(String?.self) { stored = .some(flags) }
            guard let stored else { continue }
            let flags = try SubmissionRecord.merged(stored, adding: added)
            if added.contains(.changedAfterHandIn) {
                try await connection.query(
                    """
                    UPDATE submissions SET flags = \(flags), signed_receipt = NULL,
                        response_count = (SELECT count(*) FROM responses WHERE attempt_id = \(attemptID) AND NOT superseded)
                    WHERE attempt_id = \(attemptID)
                    """,
                    logger: logger
                )
                try await keepTotals(attemptID, on: connection)
            } else {
                try await connection.query("UPDATE submissions SET flags = \(flags) WHERE attempt_id = \(attemptID)", logger: logger)
            }
        }
    }

    // MARK: Kept scores (answers that change a hand-in)

    /// The attempt's current answers (superseded ones left out): what a receipt states and a submission must list.
    static func currentAnswers(attemptID: String, on connection: PostgresConnection, logger: Logger) async throws -> [ReceiptMaterial.Answer] {
        try await connection.rows(ScoringStatements.currentAnswers(attemptID: attemptID), ScoringStatements.answer, logger: logger)
    }

    /// Works out a handed-in attempt's score again and keeps it beside its submission (`Scoring.Totals`), in the
    /// batch that changed its answers after the hand-in (a hand-in and a grade keep theirs in `SharedStatements`).
    private func keepTotals(_ attemptID: String, on connection: PostgresConnection) async throws {
        guard
            let submitted = try await connection.rows(
                ScoringStatements.submittedSource(attemptID: attemptID),
                { (try $0.data("source"), try $0.optionalString("draw")) },
                logger: logger
            ).first
        else { return }
        let current = try await Self.currentAnswers(attemptID: attemptID, on: connection, logger: logger)
        let answers = current.map { (questionID: $0.questionID, answer: $0.answer) }
        let grades = try await connection.rows(ScoringStatements.grades(attemptID: attemptID), ScoringStatements.grade, logger: logger)
        guard let totals = Scoring.kept(source: submitted.0, draw: submitted.1, answers: answers, grades: grades) else { return }
        try await connection.query(ScoringStatements.keepTotals(totals, attemptID: attemptID).postgres, logger: logger)
    }

    // MARK: The desk

    /// A student's download, one statement on every GET of an assessment: the first time kept, the latest updated.
    public func recordDownload(assessmentID: String, version: Int, user: String, now: Date, classroom: String?) async throws {
        try await plain { client in
            try await client.query(
                """
                INSERT INTO downloads (assessment_id, user_name, version, first_at, last_at, classroom)
                VALUES (\(assessmentID), \(user), \(version), \(now.timeIntervalSince1970), \(now.timeIntervalSince1970), \(classroom))
                ON CONFLICT (assessment_id, user_name, version) DO UPDATE SET last_at = EXCLUDED.last_at, classroom = EXCLUDED.classroom
                """,
                logger: self.logger
            )
        }
    }
}

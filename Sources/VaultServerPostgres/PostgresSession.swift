import CoreMetrics
import Foundation
import Logging
import PostgresNIO
import Synchronization
import VaultAPI
import VaultModel
import VaultServer

// How the PostgreSQL store reaches its database: a connection leased from the pool within a deadline, a transaction
// retried on conflicts (and queued where hand-ins of one assessment would otherwise fail one another), PostgreSQL's
// errors turned into `StorageError`, and the shared statement vocabulary run on a connection.

/// A continuation resumed once: by the work's result, or by giving up (a deadline, cancellation), which also cancels
/// the work.
final class OnceAnswer<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var early: Result<T, any Error>?
        var cancelWork: (@Sendable () -> Void)?
        var done = false
    }
    private let state = Mutex(State())

    func wait(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = state.withLock {
            if let early = $0.early { return early }
            $0.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func onGiveUp(_ cancel: @escaping @Sendable () -> Void) {
        let already = state.withLock {
            $0.cancelWork = cancel
            return $0.done
        }
        if already { cancel() }
    }

    func resume(_ result: Result<T, any Error>) {
        let continuation: CheckedContinuation<T, any Error>? = state.withLock {
            guard !$0.done else { return nil }
            $0.done = true
            guard let continuation = $0.continuation else {
                $0.early = result
                return nil
            }
            $0.continuation = nil
            return continuation
        }
        continuation?.resume(with: result)
    }

    func giveUp(_ error: any Error) {
        let cancel = state.withLock { $0.done ? nil : $0.cancelWork }
        resume(.failure(error))
        cancel?()
    }
}

/// Set once a connection was leased.
final class LeaseFlag: Sendable {
    private let state = Mutex(false)
    func set() { state.withLock { $0 = true } }
    var isSet: Bool { state.withLock { $0 } }
}

extension PostgresServerStorage {
    /// Runs `body`, or fails once `limit` has passed.
    static func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw NoAnswer(seconds: Int(saturating: limit.inSeconds)) }
            return value
        }
    }

    /// A typed error with a plain reason; PostgreSQL's own message where there is one (never a password: none is
    /// ever in a URL we accept, and a password file's content is never part of an error).
    /// `starting`: while connecting and migrating, PostgreSQL's own message says what to fix (a role, a permission).
    static func storageError(_ error: any Error, location: PostgresLocation, starting: Bool = false) -> StorageError {
        if let error = error as? StorageError {
            if case .unavailable(let why) = error { return .unavailable("\(location): \(why)") }
            return error
        }
        if let error = error as? PSQLError, let message = error.serverInfo?[.message] {
            let code = Self.code(error) ?? PostgresError.Code(raw: "?")
            if starting { return .unavailable("\(location): \(message)") }
            // Connection exceptions (class 08), insufficient resources (class 53: too many connections), an operator
            // or a crash shutting the server down pass by themselves: 503 and try again. Anything else is a refusal
            // named by its SQLSTATE (never the message: it can quote data).
            let passing: [PostgresError.Code] = [.adminShutdown, .crashShutdown, .cannotConnectNow, .queryCanceled]
            if code.raw.hasPrefix("08") || code.raw.hasPrefix("53") || passing.contains(code) {
                return .unavailable("\(location): \(message) (SQLSTATE \(code.raw))")
            }
            return .refused(sqlState: code.raw)
        }
        // No answer from PostgreSQL itself (refused, unreachable, TLS, authentication never reached): say where, and
        // what to check, never the driver's own dump of the error.
        let when = (error as? NoAnswer).map { " within \($0.seconds) s" } ?? ""
        return .unavailable(
            "cannot reach the database \(location.database) on \(location.host) port \(location.port)\(when); check that PostgreSQL runs there, "
                + "listens on that address, and lets \(location.user) connect from this machine (pg_hba.conf, ~/.pgpass)"
        )
    }

    /// The database did not answer in time.
    struct NoAnswer: Error {
        var seconds: Int
    }

    /// PostgreSQL's SQLSTATE for `error`, as postgres-nio names it (nil: not an error PostgreSQL answered with).
    static func code(_ error: any Error) -> PostgresError.Code? {
        (error as? PSQLError)?.serverInfo?[.sqlState].map(PostgresError.Code.init(raw:))
    }

    /// Whether PostgreSQL answered `error` with one of `codes`.
    static func failed(_ error: any Error, with codes: PostgresError.Code...) -> Bool {
        code(error).map(codes.contains) ?? false
    }

    /// How much a transaction is isolated from concurrent ones (see docs/architecture.md for which rule needs what).
    enum Isolation: String {
        /// Every read sees one snapshot and PostgreSQL aborts what could not have run one after the other.
        case serializable = "SERIALIZABLE"
        /// Each statement sees what was committed before it; the invariants are kept by unique keys and row locks,
        /// and a unique violation sends the whole transaction round again.
        case readCommitted = "READ COMMITTED"
        /// One snapshot for every read of the transaction (read-only work: a roster, results, an export).
        case repeatableRead = "REPEATABLE READ"
    }

    /// One transaction, retried on a serialization failure (40001), a deadlock (40P01) or a unique violation (23505:
    /// another process stored the same key first; the retry reads it and answers accordingly).
    ///
    /// `queue`: transactions that name the same text run one after another, each taking its snapshot only once the
    /// one before it committed (a session advisory lock held around the transaction). Hand-ins of one assessment read
    /// and write the same small index pages; under SERIALIZABLE their overlapping snapshots made each a pivot of the
    /// others (PostgreSQL's manual, 13.2.3: page-level predicate locks), and a burst failed one another until the
    /// retries ran out ("too busy"). Queued, they do not overlap at all. The lock is tried, never waited for on a
    /// pooled connection: a transaction whose turn has not come gives its connection back and tries again shortly,
    /// so a burst of hand-ins for one assessment never holds the pool's eight connections that every other request
    /// needs. A turn that does not come within `operationLimit` is "too busy".
    func transaction<T: Sendable>(
        _ isolation: Isolation = .serializable,
        queue: String? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        var conflicts = 0
        var waits = 0
        let started = ContinuousClock.now
        while true {
            do {
                return try await leased { connection in
                    if let queue {
                        let rows = try await connection.query("SELECT pg_try_advisory_lock(hashtextextended(\(queue), 0))", logger: self.logger)
                        var taken = false
                        for try await row in rows { taken = try row.decode(Bool.self) }
                        guard taken else { throw NotYourTurn() }
                    }
                    do {
                        try await connection.query(PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation.rawValue)"), logger: self.logger)
                        let result: T
                        do {
                            result = try await body(connection)
                            try await connection.query("COMMIT", logger: self.logger)
                        } catch {
                            _ = try? await connection.query("ROLLBACK", logger: self.logger)
                            throw error
                        }
                        if let queue { try await Self.unlock(queue, on: connection, logger: self.logger) }
                        return result
                    } catch {
                        // Released on every path before the connection goes back to the pool (a connection that died
                        // released it with its session).
                        if let queue { try? await Self.unlock(queue, on: connection, logger: self.logger) }
                        throw error
                    }
                }
            } catch is NotYourTurn {
                guard ContinuousClock.now - started < operationLimit else { throw StorageError.tooMuchContention }
                waits += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(2 << min(waits, 5)))))
            } catch  where Self.failed(error, with: .serializationFailure, .deadlockDetected, .uniqueViolation) {
                conflicts += 1
                guard conflicts < Self.maxTries else { throw StorageError.tooMuchContention }
                try await Task.sleep(for: .microseconds(Int.random(in: 100...(1_000 << min(conflicts, 6)))))
            } catch let error as StorageError {
                throw error
            } catch {
                throw Self.storageError(error, location: location)
            }
        }
    }

    /// Another transaction of the same queue holds its turn (see `transaction(_:queue:_:)`).
    private struct NotYourTurn: Error {}

    static func unlock(_ queue: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_unlock(hashtextextended(\(queue), 0))", logger: logger)
    }

    /// How long a request waits for a connection before it is answered "unavailable" (503 with Retry-After): with
    /// the database down or its connection table full, a student's request is answered in seconds, never held open
    /// (it was held 20 s and more). The pool keeps reconnecting on its own, so the next request after the
    /// database's return is served.
    static let leaseLimit: Duration = .seconds(2)
    /// How long one storage operation may take in all (a lock wait included) before it is answered "unavailable".
    /// After a backend is terminated under it, a query can wait on a connection that will never answer; the request
    /// is answered and the stuck work is cancelled and left behind, so neither the student nor a shutdown waits on it.
    public static let defaultOperationLimit: Duration = .seconds(15)

    /// Runs `body` on a pooled connection within `leaseLimit` for the lease and `operationLimit` in all, or fails
    /// with `StorageError.unavailable`. The work runs in a task of its own, so a deadline is kept even when the
    /// driver does not answer cancellation.
    func leased<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let gotConnection = LeaseFlag()
        let asked = ContinuousClock.now
        let answer = OnceAnswer<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.wait(continuation)
                // The deadlines; cancelled as soon as the work is done, so a busy server keeps no sleeping timers.
                let timer = Task {
                    do { try await Task.sleep(for: Self.leaseLimit) } catch { return }
                    if !gotConnection.isSet {
                        answer.giveUp(
                            StorageError.unavailable(
                                "no database connection within \(Int(saturating: Self.leaseLimit.inSeconds)) s (the database is down, or its connections are all taken)"
                            )
                        )
                        return
                    }
                    do { try await Task.sleep(for: self.operationLimit - Self.leaseLimit) } catch { return }
                    answer.giveUp(StorageError.unavailable("no answer from the database within \(Int(saturating: self.operationLimit.inSeconds)) s"))
                }
                let work = Task {
                    do {
                        let value = try await self.client.withConnection { connection in
                            gotConnection.set()
                            // The pool for /metrics (issue 59): how long a lease took, and connections at work now.
                            let waited = asked.duration(to: .now).components
                            CoreMetrics.Timer(label: "vault_db_lease_wait", preferredDisplayUnit: .seconds).recordNanoseconds(
                                waited.seconds * 1_000_000_000 + waited.attoseconds / 1_000_000_000
                            )
                            let inUse = Meter(label: "vault_db_connections_in_use")
                            inUse.increment()
                            defer { inUse.decrement() }
                            return try await body(connection)
                        }
                        answer.resume(.success(value))
                    } catch {
                        answer.resume(.failure(error))
                    }
                    timer.cancel()
                }
                answer.onGiveUp { work.cancel() }
            }
        } onCancel: {
            answer.giveUp(CancellationError())
        }
    }

    /// A single statement outside an explicit transaction, on a connection leased within `leaseLimit`.
    func plain<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await leased(body)
        } catch let error as StorageError {
            throw error
        } catch {
            throw Self.storageError(error, location: location)
        }
    }
}

/// Single statements of the shared vocabulary, each on a pooled connection (`plain`).
extension PostgresServerStorage: SharedStatements {
    public var dialect: SQLDialect { .postgres }

    public func rows<T: Sendable>(_ statement: SQLStatement, _ read: @escaping @Sendable (any StoredRow) throws -> T) async throws -> [T] {
        try await plain { client in try await client.rows(statement, read, logger: self.logger) }
    }

    public func run(_ statement: SQLStatement) async throws {
        try await plain { client in try await client.query(statement.postgres, logger: self.logger) }
    }

    public func snapshot<T: Sendable>(_ statements: [SQLStatement], _ body: @escaping @Sendable ([[any StoredRow]]) throws -> T) async throws -> T {
        try await transaction(.repeatableRead) { connection in
            try body(try await self.tables(statements, on: connection))
        }
    }

    public func readThenWrite<T: Sendable>(
        _ reads: [SQLStatement],
        queue: String?,
        decide: @escaping @Sendable ([[any StoredRow]]) throws -> (T, [SQLStatement])
    ) async throws -> T {
        try await transaction(queue: queue) { connection in
            let (value, writes) = try decide(try await self.tables(reads, on: connection))
            for statement in writes { try await connection.query(statement.postgres, logger: self.logger) }
            return value
        }
    }

    /// Each statement's rows, in order.
    private func tables(_ statements: [SQLStatement], on connection: PostgresConnection) async throws -> [[any StoredRow]] {
        var tables: [[any StoredRow]] = []
        for statement in statements { tables.append(try await connection.rows(statement, { $0 }, logger: logger)) }
        return tables
    }
}

extension SQLStatement {
    /// The statement as PostgreSQL takes it: numbered placeholders, the values bound.
    var postgres: PostgresQuery {
        var bindings = PostgresBindings()
        for value in values {
            switch value {
            case .text(let text): bindings.append(text)
            case .integer(let number): bindings.append(number)
            case .real(let number): bindings.append(number)
            case .blob(let data): bindings.append(ByteBuffer(bytes: data))
            case .bool(let value): bindings.append(value)
            case .null: bindings.appendNull()
            }
        }
        return PostgresQuery(unsafeSQL: SQLDialect.postgres.render(sql), binds: bindings)
    }
}

extension PostgresConnection {
    /// Every row of a statement of the shared vocabulary, read to the end.
    func rows<T>(_ statement: SQLStatement, _ read: (any StoredRow) throws -> T, logger: Logger) async throws -> [T] {
        var values: [T] = []
        for try await row in try await query(statement.postgres, logger: logger) { values.append(try read(PostgresStoredRow(row))) }
        return values
    }
}

import CSQLCipher
import Foundation

/// How a database file is protected.
public enum DatabaseEncryption {
    /// SQLCipher with a raw 32-byte key and the 16-byte database salt (never a passphrase: SQLCipher 3.4.1's own
    /// KDF is PBKDF2-SHA1 at 64,000 iterations and cannot be changed).
    case rawKey(SecretBytes, salt: [UInt8])
    /// No encryption. Only for the server's embedded store and for benchmark baselines: a vault never uses it.
    case plaintext
}

/// Settings applied when a connection opens. The choices are explained in docs/architecture.md.
public struct DatabaseConfiguration: Sendable {
    /// SQLCipher page size. 4096 matches the file system block and halves HMAC overhead against the 1024 default.
    public var cipherPageSize: Int = 4096
    /// Rollback journal: SQLCipher 3.4.1 has WAL corruption bugs on failed encryption (security.md).
    public var journalMode: String = "DELETE"
    /// FULL: an answer is on disk when its transaction returns.
    public var synchronous: String = "FULL"
    /// How long a statement waits for another connection's lock.
    public var busyTimeoutMilliseconds: Int32 = 5_000
    public var readOnly: Bool = false

    public init() {}
}

/// One connection to a SQLCipher database. Owns its handle; not shared between threads.
public final class Database {
    let handle: OpaquePointer
    public let path: String
    private var statementCache: [String: Statement] = [:]
    /// Set by `close()`: the handle is closed exactly once, whether setup failed or the connection is released.
    private var isClosed = false

    /// Opens (or creates) the database at `path`, keys it, proves the key by a read, then applies the pragmas.
    ///
    /// Throws `DatabaseError` with `SQLITE_NOTADB` when the first page cannot be decrypted (wrong key or damage)
    /// and `SQLITE_CORRUPT` for damage elsewhere.
    public init(path: String, encryption: DatabaseEncryption, configuration: DatabaseConfiguration = .init()) throws {
        self.handle = try Self.openHandle(path: path, configuration: configuration)
        self.path = path
        do {
            try setUp(encryption: encryption, configuration: configuration)
        } catch {
            close()
            throw error
        }
    }

    /// Opens the connection only; keying and pragmas are `setUp`'s, so a failed setup closes the handle once.
    private static func openHandle(path: String, configuration: DatabaseConfiguration) throws -> OpaquePointer {
        var connection: OpaquePointer?
        let flags =
            (configuration.readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
            | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) }
            sqlite3_close_v2(connection)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
        }
        sqlite3_busy_timeout(connection, configuration.busyTimeoutMilliseconds)
        return connection
    }

    private func setUp(encryption: DatabaseEncryption, configuration: DatabaseConfiguration) throws {
        try Self.requireSQLCipher(handle)
        if case .rawKey(let key, let salt) = encryption {
            try applyKey(key, salt: salt)
            try execute("PRAGMA cipher_page_size = \(configuration.cipherPageSize)")
        }
        // Prove the key (or the file) before anything else: this is where a wrong key shows as NOTADB.
        _ = try scalarInt("SELECT count(*) FROM sqlite_master")
        try execute("PRAGMA temp_store = MEMORY")
        try execute("PRAGMA secure_delete = ON")
        try execute("PRAGMA foreign_keys = ON")
        try execute("PRAGMA synchronous = \(configuration.synchronous)")
        if !configuration.readOnly {
            _ = try rows("PRAGMA journal_mode = \(configuration.journalMode)")
        }
    }

    /// Finalizes the cached statements and closes the handle; a second call does nothing.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    deinit { close() }

    /// Refuses to run on the system libsqlite3: its symbols next to SQLCipher's would crash, and it cannot encrypt.
    private static func requireSQLCipher(_ connection: OpaquePointer) throws {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(connection, "PRAGMA cipher_version", -1, &statement, nil) == SQLITE_OK,
            sqlite3_step(statement) == SQLITE_ROW, sqlite3_column_text(statement, 0) != nil
        else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the SQLite library is not SQLCipher")
        }
    }

    // MARK: Running SQL

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) }
            sqlite3_free(errorMessage)
            throw DatabaseError(
                resultCode: ResultCode(rawValue: extendedCode(code)),
                message: message,
                sql: sql,
                systemErrno: sqlite3_system_errno(handle)
            )
        }
    }

    /// Runs one statement with bound values.
    public func execute(_ sql: String, _ values: [any DatabaseValueConvertible]) throws {
        try cachedStatement(sql).execute(values)
    }

    public func rows(_ sql: String, _ values: [any DatabaseValueConvertible] = []) throws -> [Row] {
        try cachedStatement(sql).rows(values)
    }

    public func row(_ sql: String, _ values: [any DatabaseValueConvertible] = []) throws -> Row? {
        try rows(sql, values).first
    }

    public func scalarInt(_ sql: String, _ values: [any DatabaseValueConvertible] = []) throws -> Int {
        try row(sql, values)?.optionalInt(0) ?? 0
    }

    /// A prepared statement, kept for reuse on hot paths (every answer save).
    public func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try Statement(database: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    public var changes: Int { Int(sqlite3_changes(handle)) }

    // MARK: Transactions

    /// Runs `body` in an IMMEDIATE transaction: committed (and, with synchronous=FULL, on disk) when it returns.
    /// Called inside another transaction it becomes a savepoint, so a helper can be atomic on its own and still
    /// take part in its caller's transaction; a failure rolls back only its own part.
    public func inTransaction<T>(_ body: () throws -> T) throws -> T {
        if sqlite3_get_autocommit(handle) == 0 {
            try execute("SAVEPOINT nested")
            do {
                let result = try body()
                try execute("RELEASE nested")
                return result
            } catch {
                try? execute("ROLLBACK TO nested")
                try? execute("RELEASE nested")
                throw error
            }
        }
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    // MARK: Errors

    func error(code: Int32, sql: String?) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: extendedCode(code)),
            message: String(cString: sqlite3_errmsg(handle)),
            sql: sql,
            systemErrno: sqlite3_system_errno(handle)
        )
    }

    private func extendedCode(_ code: Int32) -> Int32 {
        let extended = sqlite3_extended_errcode(handle)
        return (extended & 0xFF) == (code & 0xFF) ? extended : code
    }
}

import Foundation
import VaultCore

/// A value bound to a statement, in the types both engines store.
public enum SQLValue: Sendable, Equatable {
    case text(String)
    case integer(Int)
    case real(Double)
    case blob(Data)
    /// A boolean column's value: SQLite stores 1 or 0, PostgreSQL a boolean.
    case bool(Bool)
    case null
}

/// One statement of the shared vocabulary: written once with `?` placeholders, `{true}` / `{false}` for boolean
/// columns (SQLite stores 1 and 0) and `{forUpdate}` where PostgreSQL locks the rows read (SQLite's one writer needs
/// no lock), rendered for an engine by its `SQLDialect`, with the values it binds and, for a query, the columns it selects (each row is read by these names,
/// strictly: `StoredRow`).
public struct SQLStatement: Sendable {
    public var sql: String
    public var values: [SQLValue]
    public var columns: [String]

    public init(_ sql: String, _ values: [SQLValue] = [], columns: [String] = []) {
        self.sql = sql
        self.values = values
        self.columns = columns
    }
}

/// Where the engines' SQL differs, rendered from one text.
public enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// The statement's text for this engine: booleans as the engine writes them, a row lock where PostgreSQL takes
    /// one, and PostgreSQL's numbered placeholders (`$1`, `$2`, …; none inside a quoted text). One pass over the bytes:
    /// it runs for every statement of every hand-in, roster and receipt.
    public func render(_ sql: String) -> String {
        let bytes = Array(sql.utf8)
        var rendered: [UInt8] = []
        rendered.reserveCapacity(bytes.count + 16)
        var number = 0
        var quoted = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") { quoted.toggle() }
            if !quoted, byte == UInt8(ascii: "{"), let (length, word) = word(at: index, in: bytes) {
                // SQLite takes no row lock: " {forUpdate}" goes with the space before it.
                if word.isEmpty, rendered.last == UInt8(ascii: " ") { rendered.removeLast() }
                rendered += word.utf8
                index += length
                continue
            }
            if !quoted, byte == UInt8(ascii: "?"), self == .postgres {
                number += 1
                rendered += "$\(number)".utf8
            } else {
                rendered.append(byte)
            }
            index += 1
        }
        return String(decoding: rendered, as: UTF8.self)
    }

    /// The vocabulary's words (`{true}`, `{false}`, `{forUpdate}`) as this engine writes them.
    private static let words: [(token: [UInt8], sqlite: String, postgres: String)] = [
        (Array("{true}".utf8), "1", "TRUE"), (Array("{false}".utf8), "0", "FALSE"), (Array("{forUpdate}".utf8), "", "FOR UPDATE"),
    ]

    /// The word that starts at `index`, if one does: its length in bytes and this engine's text for it.
    private func word(at index: Int, in bytes: [UInt8]) -> (length: Int, text: String)? {
        for word in Self.words where bytes.count - index >= word.token.count && bytes[index..<index + word.token.count].elementsEqual(word.token) {
            return (word.token.count, self == .sqlite ? word.sqlite : word.postgres)
        }
        return nil
    }

    /// An insert that leaves an existing row holding the same `key` columns as it is: SQLite's `INSERT OR IGNORE`,
    /// PostgreSQL's `ON CONFLICT … DO NOTHING`.
    public func insertIfAbsent(into table: String, columns: [String], key: [String]) -> String {
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        switch self {
        case .sqlite:
            return "INSERT OR IGNORE INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
        case .postgres:
            return
                "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders)) ON CONFLICT (\(key.joined(separator: ", "))) DO NOTHING"
        }
    }

    /// An insert that replaces the row holding the same `key` columns: SQLite's `INSERT OR REPLACE`, PostgreSQL's
    /// `ON CONFLICT … DO UPDATE` (the same outcome: the row as given).
    public func upsert(into table: String, columns: [String], key: [String]) -> String {
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        switch self {
        case .sqlite:
            return "INSERT OR REPLACE INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
        case .postgres:
            let updates = columns.filter { !key.contains($0) }.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
            return "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders)) ON CONFLICT (\(key.joined(separator: ", "))) "
                + (updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(updates)")
        }
    }
}

/// What an engine gives the shared vocabulary: one statement run on its own (no transaction of the caller's), its
/// rows read strictly. The engine-specific parts (transactions, retries, prepared hot statements, `FOR SHARE`,
/// SQLite's single writer) stay in the engines.
public protocol StatementSession: Sendable {
    /// Every row of `statement`, each read by `read` (on the engine's own thread or connection).
    func rows<T: Sendable>(_ statement: SQLStatement, _ read: @escaping @Sendable (any StoredRow) throws -> T) async throws -> [T]
    func run(_ statement: SQLStatement) async throws
    /// Several statements read in one snapshot (SQLite: one transaction on its one connection; PostgreSQL: repeatable
    /// read), each statement's rows handed to `body` in the order given, on the engine's own thread or connection.
    func snapshot<T: Sendable>(_ statements: [SQLStatement], _ body: @escaping @Sendable ([[any StoredRow]]) throws -> T) async throws -> T
    /// One transaction (the engine's own: SQLite's single writer, PostgreSQL's serializable with its retries): the
    /// rows of `reads`, then what `decide` makes of them, a value and the statements to write, committed together.
    ///
    /// `queue`: transactions that name the same queue run one after another where the engine runs transactions side
    /// by side (PostgreSQL: the hand-ins of one assessment); SQLite's one writer queues every transaction anyway.
    func readThenWrite<T: Sendable>(
        _ reads: [SQLStatement],
        queue: String?,
        decide: @escaping @Sendable ([[any StoredRow]]) throws -> (T, [SQLStatement])
    ) async throws -> T
}

extension StatementSession {
    /// Reads and the writes they call for, in one transaction of the engine's own (`readThenWrite(_:queue:decide:)`).
    public func readThenWrite<T: Sendable>(
        _ reads: [SQLStatement],
        decide: @escaping @Sendable ([[any StoredRow]]) throws -> (T, [SQLStatement])
    ) async throws -> T {
        try await readThenWrite(reads, queue: nil, decide: decide)
    }

    /// The first row's value, if there is a row.
    public func row<T: Sendable>(_ statement: SQLStatement, _ read: @escaping @Sendable (any StoredRow) throws -> T) async throws -> T? {
        try await rows(statement, read).first
    }

    /// One read and the writes it calls for, in one transaction (`readThenWrite(_:decide:)`); the rows read are
    /// returned.
    public func readThenWrite<T: Sendable>(
        _ read: SQLStatement?,
        _ reader: @escaping @Sendable (any StoredRow) throws -> T,
        writes: @escaping @Sendable ([T]) throws -> [SQLStatement]
    ) async throws -> [T] {
        try await readThenWrite(read.map { [$0] } ?? []) { tables in
            let rows = try (tables.first ?? []).map(reader)
            return (rows, try writes(rows))
        }
    }

    /// Statements committed together.
    public func write(_ statements: [SQLStatement]) async throws {
        try await readThenWrite([]) { _ in ((), statements) }
    }
}

extension SQLValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        switch self {
        case .text(let text): .text(text)
        case .integer(let number): .integer(Int64(number))  // numbers-check: an Int
        case .real(let number): .real(number)
        case .blob(let data): .blob(data)
        case .bool(let value): .integer(value ? 1 : 0)
        case .null: .null
        }
    }
}

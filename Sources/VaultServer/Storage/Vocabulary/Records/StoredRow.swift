import Foundation
import VaultCore

/// One stored row as either store hands it over, read by column name. A missing column, a NULL where a value must
/// be, or a value of another type throws (`StorageError.damaged`): a damaged row is never read as "" or 0.
public protocol StoredRow {
    func string(_ column: String) throws -> String
    func optionalString(_ column: String) throws -> String?
    func int(_ column: String) throws -> Int
    func optionalInt(_ column: String) throws -> Int?
    func double(_ column: String) throws -> Double
    func optionalDouble(_ column: String) throws -> Double?
    func bool(_ column: String) throws -> Bool
    func data(_ column: String) throws -> Data
}

/// What a record type owns: its one column list, used by every query that reads it, and its mapper.
public protocol StoredRecord {
    static var columns: [String] { get }
    init(row: some StoredRow) throws
}

extension StoredRecord {
    /// The column list for a SELECT, each qualified with `alias` (`s.attempt_id, s.user_name, …`).
    public static func selection(_ alias: String) -> String { columns.map { "\(alias).\($0)" }.joined(separator: ", ") }
}

extension StorageError {
    static func column(_ column: String, _ problem: String) -> StorageError { .damaged("column \(column) \(problem)") }
}

/// A SQLite row read through the column list its query selected.
public struct SQLiteStoredRow: StoredRow {
    /// The values as SQLite returned them (to read again by a column list).
    let row: Row
    private let positions: [String: Int]

    public init(_ row: Row, columns: [String]) {
        self.init(row, positions: Self.positions(columns))
    }

    /// A row of a statement whose column positions were worked out once (a roster maps thousands of rows).
    public init(_ row: Row, positions: [String: Int]) {
        self.row = row
        self.positions = positions
    }

    /// Each column's position in a statement that selects `columns`.
    public static func positions(_ columns: [String]) -> [String: Int] {
        Dictionary(columns.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private func value(_ column: String) throws -> DatabaseValue {
        // A row read by position (no column list) names its columns by their place: "0", "1", …
        guard let position = positions.isEmpty ? Int(column) : positions[column], position >= 0, position < row.values.count else {
            throw StorageError.column(column, "is missing")
        }
        return row.values[position]
    }

    public func optionalString(_ column: String) throws -> String? {
        switch try value(column) {
        case .null: nil
        case .text(let text): text
        default: throw StorageError.column(column, "is not text")
        }
    }

    public func string(_ column: String) throws -> String {
        guard let text = try optionalString(column) else { throw StorageError.column(column, "is NULL") }
        return text
    }

    public func optionalInt(_ column: String) throws -> Int? {
        switch try value(column) {
        case .null: nil
        case .integer(let number): Int(number)  // numbers-check: an Int64
        default: throw StorageError.column(column, "is not an integer")
        }
    }

    public func int(_ column: String) throws -> Int {
        guard let number = try optionalInt(column) else { throw StorageError.column(column, "is NULL") }
        return number
    }

    public func optionalDouble(_ column: String) throws -> Double? {
        switch try value(column) {
        case .null: nil
        case .real(let number): number
        case .integer(let number): Double(number)
        default: throw StorageError.column(column, "is not a number")
        }
    }

    public func double(_ column: String) throws -> Double {
        guard let number = try optionalDouble(column) else { throw StorageError.column(column, "is NULL") }
        return number
    }

    public func bool(_ column: String) throws -> Bool {
        switch try int(column) {
        case 0: false
        case 1: true
        default: throw StorageError.column(column, "is not 0 or 1")
        }
    }

    public func data(_ column: String) throws -> Data {
        switch try value(column) {
        case .blob(let bytes): bytes
        default: throw StorageError.column(column, "is not a blob")
        }
    }
}

extension SQLiteStoredRow {
    /// A row read by position, in the order its statement selects: as strict as a row read by name (a NULL where a
    /// value must be, or a value of another type, throws; errors name the column by its place).
    public init(_ row: Row) { self.init(row, positions: [:]) }

    public func string(_ position: Int) throws -> String { try string(String(position)) }
    public func optionalString(_ position: Int) throws -> String? { try optionalString(String(position)) }
    public func int(_ position: Int) throws -> Int { try int(String(position)) }
    public func optionalInt(_ position: Int) throws -> Int? { try optionalInt(String(position)) }
    public func double(_ position: Int) throws -> Double { try double(String(position)) }
    public func optionalDouble(_ position: Int) throws -> Double? { try optionalDouble(String(position)) }
    public func bool(_ position: Int) throws -> Bool { try bool(String(position)) }
    public func data(_ position: Int) throws -> Data { try data(String(position)) }
}

extension Database {
    /// Every row of a statement, each read strictly (`SQLiteStoredRow`): the server's SQLite store reads nothing
    /// through the lenient `Row` accessors.
    func stored(_ sql: String, _ values: [any DatabaseValueConvertible] = []) throws -> [SQLiteStoredRow] {
        try rows(sql, values).map(SQLiteStoredRow.init)
    }

    func storedRow(_ sql: String, _ values: [any DatabaseValueConvertible] = []) throws -> SQLiteStoredRow? {
        try row(sql, values).map(SQLiteStoredRow.init)
    }

    /// A statement of the shared vocabulary, its rows read by the columns it names.
    func stored(_ statement: SQLStatement) throws -> [SQLiteStoredRow] {
        let positions = SQLiteStoredRow.positions(statement.columns)
        return try rows(SQLDialect.sqlite.render(statement.sql), statement.values).map { SQLiteStoredRow($0, positions: positions) }
    }

    func execute(_ statement: SQLStatement) throws { try execute(SQLDialect.sqlite.render(statement.sql), statement.values) }
}

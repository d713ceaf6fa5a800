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

    /// The value in `column`, read by the vault core's strict reader (`Row`: one rule for what a NULL or a value of
    /// another type is), its failure named as this store names damage.
    private func read<T>(_ column: String, _ body: (Int) throws -> T) throws -> T {
        // A row read by position (no column list) names its columns by their place: "0", "1", …
        guard let position = positions.isEmpty ? Int(column) : positions[column], position >= 0, position < row.values.count else {
            throw StorageError.column(column, "is missing")
        }
        do {
            return try body(position)
        } catch let error as StoredValueError {
            throw StorageError.column(column, error.problem)
        }
    }

    public func optionalString(_ column: String) throws -> String? { try read(column) { try row.optionalString($0) } }
    public func string(_ column: String) throws -> String { try read(column) { try row.string($0) } }
    public func optionalInt(_ column: String) throws -> Int? { try read(column) { try row.optionalInt($0) } }
    public func int(_ column: String) throws -> Int { try read(column) { try row.int($0) } }
    public func optionalDouble(_ column: String) throws -> Double? { try read(column) { try row.optionalDouble($0) } }
    public func double(_ column: String) throws -> Double { try read(column) { try row.double($0) } }
    public func bool(_ column: String) throws -> Bool { try read(column) { try row.bool($0) } }
    public func data(_ column: String) throws -> Data { try read(column) { try row.data($0) } }
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

import CSQLCipher
import Foundation
import VaultAPI

/// A statement's result columns, named once per statement: what a row's values are called and which table each
/// came from (SQLite's own metadata), so a value that does not read back is named, never guessed.
public final class RowColumns: Sendable {
    public let names: [String]
    /// The table each column reads, or nil for an expression (`count(*)`, `COALESCE(…)`).
    public let tables: [String?]
    let positions: [String: Int]

    public init(names: [String], tables: [String?]) {
        self.names = names
        self.tables = tables
        self.positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The columns of a prepared statement.
    convenience init(statement: OpaquePointer) {
        let count = Int(sqlite3_column_count(statement))
        var names: [String] = []
        var tables: [String?] = []
        for column in 0..<Int32(count) {
            names.append(sqlite3_column_name(statement, column).map { String(cString: $0) } ?? "\(column)")
            tables.append(sqlite3_column_table_name(statement, column).map { String(cString: $0) })
        }
        self.init(names: names, tables: tables)
    }
}

/// A stored value that does not read back as the type its reader needs: a NULL where a value must be, text where a
/// number must be. Names the table and the column, never the value (it may be an answer).
public struct StoredValueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The table the value was read from, or nil for an expression.
    public var table: String?
    public var column: String
    /// What is wrong ("is NULL", "is not an integer").
    public var problem: String

    public init(table: String?, column: String, problem: String) {
        self.table = table
        self.column = column
        self.problem = problem
    }

    public var description: String { "\(table.map { "\($0)." } ?? "")\(column) \(problem)" }
}

/// One result row, copied out of the statement so it outlives the next step. Every read is strict: a NULL where a
/// value must be, or a value of another type, throws `StoredValueError` naming table and column; nothing reads as
/// "" or 0. Columns are read by name (as the statement names them) or by position.
public struct Row: Sendable {
    public let values: [DatabaseValue]
    let columns: RowColumns?

    public init(values: [DatabaseValue], columns: RowColumns? = nil) {
        self.values = values
        self.columns = columns
    }

    public subscript(index: Int) -> DatabaseValue { values[index] }

    // MARK: By position

    public func optionalString(_ index: Int) throws -> String? {
        switch try value(index) {
        case .null: return nil
        case .text(let text): return text
        default: throw failure(index, "is not text")
        }
    }

    public func string(_ index: Int) throws -> String {
        guard let text = try optionalString(index) else { throw failure(index, "is NULL") }
        return text
    }

    public func optionalInt(_ index: Int) throws -> Int? { try optionalInt64(index).map { Int($0) } }  // numbers-check: an Int64

    public func int(_ index: Int) throws -> Int { Int(try int64(index)) }  // numbers-check: an Int64

    public func optionalInt64(_ index: Int) throws -> Int64? {
        switch try value(index) {
        case .null: return nil
        case .integer(let number): return number
        default: throw failure(index, "is not an integer")
        }
    }

    public func int64(_ index: Int) throws -> Int64 {
        guard let number = try optionalInt64(index) else { throw failure(index, "is NULL") }
        return number
    }

    public func optionalDouble(_ index: Int) throws -> Double? {
        switch try value(index) {
        case .null: return nil
        case .real(let number): return number
        case .integer(let number): return Double(number)
        default: throw failure(index, "is not a number")
        }
    }

    public func double(_ index: Int) throws -> Double {
        guard let number = try optionalDouble(index) else { throw failure(index, "is NULL") }
        return number
    }

    /// A 0 or 1 flag.
    public func bool(_ index: Int) throws -> Bool {
        switch try int(index) {
        case 0: return false
        case 1: return true
        default: throw failure(index, "is not 0 or 1")
        }
    }

    public func optionalData(_ index: Int) throws -> Data? {
        switch try value(index) {
        case .null: return nil
        case .blob(let bytes): return bytes
        default: throw failure(index, "is not a blob")
        }
    }

    public func data(_ index: Int) throws -> Data {
        guard let bytes = try optionalData(index) else { throw failure(index, "is NULL") }
        return bytes
    }

    /// A time stored as integer milliseconds since 1970 (UTC), the vault's one form for stored times.
    public func optionalDate(_ index: Int) throws -> Date? {
        try optionalInt64(index).map(Date.init(millisecondsSince1970:))
    }

    public func date(_ index: Int) throws -> Date { Date(millisecondsSince1970: try int64(index)) }

    // MARK: By name

    public func string(_ column: String) throws -> String { try string(position(column)) }
    public func optionalString(_ column: String) throws -> String? { try optionalString(position(column)) }
    public func int(_ column: String) throws -> Int { try int(position(column)) }
    public func optionalInt(_ column: String) throws -> Int? { try optionalInt(position(column)) }
    public func int64(_ column: String) throws -> Int64 { try int64(position(column)) }
    public func optionalInt64(_ column: String) throws -> Int64? { try optionalInt64(position(column)) }
    public func double(_ column: String) throws -> Double { try double(position(column)) }
    public func optionalDouble(_ column: String) throws -> Double? { try optionalDouble(position(column)) }
    public func bool(_ column: String) throws -> Bool { try bool(position(column)) }
    public func data(_ column: String) throws -> Data { try data(position(column)) }
    public func optionalData(_ column: String) throws -> Data? { try optionalData(position(column)) }
    public func date(_ column: String) throws -> Date { try date(position(column)) }
    public func optionalDate(_ column: String) throws -> Date? { try optionalDate(position(column)) }

    // MARK: Naming what failed

    private func position(_ column: String) throws -> Int {
        guard let position = columns?.positions[column] else {
            throw StoredValueError(table: nil, column: column, problem: "is not selected")
        }
        return position
    }

    private func value(_ index: Int) throws -> DatabaseValue {
        guard values.indices.contains(index) else { throw failure(index, "is not selected") }
        return values[index]
    }

    private func failure(_ index: Int, _ problem: String) -> StoredValueError {
        let names = columns?.names ?? []
        let tables = columns?.tables ?? []
        return StoredValueError(
            table: tables.indices.contains(index) ? tables[index] : nil,
            column: names.indices.contains(index) ? names[index] : "column \(index + 1)",
            problem: problem
        )
    }
}

extension Date {
    /// A stored time: integer milliseconds since 1970, UTC.
    public init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1_000)
    }

    /// This time as the vault stores it: integer milliseconds since 1970, UTC (rounded to the nearest).
    public var millisecondsSince1970: Int64 { Int64(Int(saturating: (timeIntervalSince1970 * 1_000).rounded())) }
}

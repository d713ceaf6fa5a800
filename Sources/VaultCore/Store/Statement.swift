import CSQLCipher
import Foundation

/// A prepared statement. Finalized when released; confined to its database's thread of use.
public final class Statement {
    let handle: OpaquePointer
    let sql: String
    unowned let database: Database
    /// The result columns' names and tables, read once (every row of this statement shares them).
    private lazy var columns = RowColumns(statement: handle)

    init(database: Database, sql: String) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(database.handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw database.error(code: code, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds the values to the positional parameters `?1`, `?2`...
    public func bind(_ values: [any DatabaseValueConvertible]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value.databaseValue {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let int): code = sqlite3_bind_int64(handle, index, int)
            case .real(let double): code = sqlite3_bind_double(handle, index, double)
            case .text(let string): code = sqlite3_bind_text(handle, index, string, -1, vault_sqlite_transient())
            case .blob(let data):
                code = data.withUnsafeBytes { buffer in
                    sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), vault_sqlite_transient())
                }
            }
            guard code == SQLITE_OK else { throw database.error(code: code, sql: sql) }
        }
    }

    /// Runs the statement to completion, returning every row.
    public func rows(_ values: [any DatabaseValueConvertible] = []) throws -> [Row] {
        try bind(values)
        defer { sqlite3_reset(handle) }
        var result: [Row] = []
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return result }
            guard code == SQLITE_ROW else { throw database.error(code: code, sql: sql) }
            result.append(currentRow())
        }
    }

    /// Runs a statement that returns no rows.
    public func execute(_ values: [any DatabaseValueConvertible] = []) throws {
        _ = try rows(values)
    }

    private func currentRow() -> Row {
        let count = sqlite3_column_count(handle)
        var values: [DatabaseValue] = []
        values.reserveCapacity(Int(count))
        for column in 0..<count {
            switch sqlite3_column_type(handle, column) {
            case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(handle, column)))
            case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(handle, column)))
            case SQLITE_TEXT:
                let text = sqlite3_column_text(handle, column).map { String(cString: $0) } ?? ""
                values.append(.text(text))
            case SQLITE_BLOB:
                let length = Int(sqlite3_column_bytes(handle, column))
                if let bytes = sqlite3_column_blob(handle, column), length > 0 {
                    values.append(.blob(Data(bytes: bytes, count: length)))
                } else {
                    values.append(.blob(Data()))
                }
            default: values.append(.null)
            }
        }
        return Row(values: values, columns: columns)
    }
}

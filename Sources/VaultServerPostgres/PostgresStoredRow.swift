import Foundation
import PostgresNIO
import VaultServer

/// A PostgreSQL row read by column name, with the same strictness as the SQLite one (`StoredRow`).
struct PostgresStoredRow: StoredRow {
    private let row: PostgresRandomAccessRow

    init(_ row: PostgresRow) { self.row = row.makeRandomAccess() }

    private func decode<T: PostgresDecodable>(_ type: T.Type, _ column: String) throws -> T {
        guard row.contains(column) else { throw StorageError.damaged("column \(column) is missing") }
        do {
            return try row[column].decode(T.self)
        } catch {
            throw StorageError.damaged("column \(column) cannot be read as \(T.self)")
        }
    }

    func string(_ column: String) throws -> String { try decode(String.self, column) }
    func optionalString(_ column: String) throws -> String? { try decode(String?.self, column) }
    func int(_ column: String) throws -> Int { try decode(Int.self, column) }
    func optionalInt(_ column: String) throws -> Int? { try decode(Int?.self, column) }
    func double(_ column: String) throws -> Double { try decode(Double.self, column) }
    func optionalDouble(_ column: String) throws -> Double? { try decode(Double?.self, column) }
    func bool(_ column: String) throws -> Bool { try decode(Bool.self, column) }
    func data(_ column: String) throws -> Data { try decode(Data.self, column) }
}

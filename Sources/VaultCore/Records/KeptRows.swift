import Foundation
import VaultLanguage
import VaultModel

/// A stored row that does not read back (a value of another type, text that does not decode): which table, which
/// row, why. A security tool whose point is to keep every answer never reads such a row as "nothing there": the
/// commands that read it say so, and `vault verify` lists it.
public struct DamagedRow: Sendable, Equatable, Codable {
    public var table: String
    /// The row's key (an attempt id, a receipt id).
    public var key: String
    /// What is wrong, for `--verbose` and the JSON (never a stored value).
    public var reason: String

    public init(table: String, key: String, reason: String) {
        self.table = table
        self.key = key
        self.reason = reason
    }

    /// The sentence the student reads.
    public var sentence: String {
        tr("A stored {table} row ({key}) cannot be read back; the others are shown. `vault verify` lists it.", ["table": table, "key": key])
    }

    public var error: VaultError { VaultError(.damagedRow, sentence, detail: reason) }
}

/// Rows read from one table: the values that read back, in order, and the rows that did not, named. Iterates over
/// the values; `damaged` is never empty in silence (the caller reports it).
public struct Kept<Value>: RandomAccessCollection {
    public var values: [Value]
    public var damaged: [DamagedRow]

    public init(values: [Value] = [], damaged: [DamagedRow] = []) {
        self.values = values
        self.damaged = damaged
    }

    public var startIndex: Int { values.startIndex }
    public var endIndex: Int { values.endIndex }
    public subscript(position: Int) -> Value { values[position] }
}

extension Kept: Sendable where Value: Sendable {}

extension StoredValueError {
    /// The row this value belongs to, named for `vault verify` and the lists that show the others.
    public func damagedRow(key: String) -> DamagedRow { DamagedRow(table: table ?? "vault", key: key, reason: description) }

    /// What `vault verify` lists for it.
    public var sentence: String {
        tr("A stored {table} value ({column}) cannot be read back.", ["table": table ?? "vault", "column": column])
    }

    /// What the student reads when a command stops at a value it cannot read (never the value itself).
    public var vaultError: VaultError {
        VaultError(
            .damagedRow,
            tr(
                "A stored {table} value ({column}) cannot be read back, so this was not done; nothing was changed. `vault verify` lists what is damaged.",
                ["table": table ?? "vault", "column": column]
            ),
            detail: description
        )
    }
}

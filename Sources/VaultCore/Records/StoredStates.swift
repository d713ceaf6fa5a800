import VaultLanguage
import VaultModel

/// A state or kind kept in a TEXT column: one Swift definition, written into SQL by `sql`, never as a bare string.
public protocol StoredState: RawRepresentable, Sendable, CaseIterable where RawValue == String {}

extension StoredState {
    /// The quoted SQL literal of this value (a fixed word from this enum, never user data).
    public var sql: String { "'\(rawValue)'" }

    /// `IN (...)` list of some values.
    public static func sqlList(_ values: [Self]) -> String { "(" + values.map(\.sql).joined(separator: ", ") + ")" }
}

/// What a row of the sync queue (and of the dead letters) carries.
public enum QueueKind: String, StoredState, Codable {
    case response, submission
}

/// Whether a queued upload goes when its backoff has passed, or is held for the student's decision on a conflict.
public enum QueueState: String, StoredState {
    case waiting
    case heldForConflict = "held_for_conflict"
}

/// Where one recorded answer is: waiting to go up; uploaded (the server said it stored it) and waiting for a receipt;
/// handed in (a verified receipt names it); held by a conflict; or given up.
public enum ResponseState: String, StoredState {
    case pending, uploaded, synced, conflict, dead
}

extension AttemptRecord.State: StoredState {}

extension Row {
    /// The stored state in column `index`; a word this enum does not know means the row was damaged.
    func state<S: StoredState>(_ type: S.Type, _ index: Int) throws -> S {
        guard let value = S(rawValue: try string(index)) else {
            throw VaultError(.databaseDamaged, tr("The vault holds a record in a state it does not know. Run `vault verify`."))
        }
        return value
    }

    /// The stored state in the column named `column`.
    func state<S: StoredState>(_ type: S.Type, _ column: String) throws -> S {
        guard let value = S(rawValue: try string(column)) else {
            throw VaultError(.databaseDamaged, tr("The vault holds a record in a state it does not know. Run `vault verify`."))
        }
        return value
    }
}

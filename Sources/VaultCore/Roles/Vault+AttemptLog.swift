import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

/// Each attempt's own record (issue 55): what happened during it, as a hash chain kept in the encrypted store, one
/// event per row. An event about an answer is written in the answer's own transaction. Never keystrokes, answer
/// text or pasted text: a question id and a count at most.
extension Vault {
    static let recordColumns = "seq, at, boot_ms, kind, question_id, count, previous, hash"

    /// The attempt's record, oldest first; a row that does not read back is damage, named.
    public func attemptLog(_ attemptID: String) throws -> [RecordEvent] {
        try database.rows("SELECT \(Self.recordColumns) FROM attempt_log WHERE attempt_id = ? ORDER BY seq", [attemptID]).map { row in
            try Self.recordEvent(row, attemptID: attemptID)
        }
    }

    static func recordEvent(_ row: Row, attemptID: String) throws -> RecordEvent {
        guard let kind = RecordEvent.Kind(rawValue: try row.string(3)), case .integer(let boot) = row[2] else {
            throw DamagedRow(table: "attempt_log", key: "\(attemptID)#\(try row.string(0))", reason: "an event of unknown kind").error
        }
        return RecordEvent(
            seq: try row.int(0),
            at: Timestamp.string(try row.date(1)),
            bootMs: boot,
            kind: kind,
            question: try row.optionalString(4),
            count: try row.optionalInt(5),
            previous: try row.string(6),
            hash: try row.string(7)
        )
    }

    /// The chain's last event of an attempt (nil: none yet).
    func lastEvent(_ attemptID: String) throws -> RecordEvent? {
        try database.row(
            "SELECT \(Self.recordColumns) FROM attempt_log WHERE attempt_id = ? ORDER BY seq DESC LIMIT 1",
            [attemptID]
        ).map { try Self.recordEvent($0, attemptID: attemptID) }
    }

    /// Appends one event (inside the caller's transaction when there is one) after `last`, read here when the caller
    /// has not read it; returns the event.
    @discardableResult
    func appendEvent(
        _ kind: RecordEvent.Kind,
        attemptID: String,
        question: String? = nil,
        count: Int? = nil,
        now: Date? = nil,
        after last: RecordEvent?? = nil
    ) throws -> RecordEvent {
        let at = now ?? clocks.wall()
        let event = RecordChain.next(
            after: try last ?? lastEvent(attemptID),
            at: Timestamp.string(at),  // the stored instant, to the millisecond: it reads back as the same text
            bootMs: Int64(clamping: clocks.boot().elapsed.wholeMilliseconds),
            kind: kind,
            question: question,
            count: count
        )
        try database.execute(
            "INSERT INTO attempt_log (attempt_id, \(Self.recordColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                attemptID, event.seq, at.millisecondsSince1970, Int(event.bootMs), event.kind.rawValue, event.question, event.count, event.previous,
                event.hash,
            ]
        )
        return event
    }

    /// An answer's events, with one read of the chain (this is on every answer save): "started" first when the
    /// record is empty (an untimed test starts with its first answer), then "answered" for the question, once a
    /// minute at most while the student keeps changing the same answer (an essay's unfinished line is saved every
    /// second as it is typed): a 3-hour essay makes at most 180 such events, not 10,800.
    func appendAnswered(attemptID: String, questionID: String, now: Date) throws {
        var last = try lastEvent(attemptID)
        if last == nil { last = try appendEvent(.started, attemptID: attemptID, now: now, after: .some(nil)) }
        if let last, last.kind == .answered, last.question == questionID,
            Int64(clamping: clocks.boot().elapsed.wholeMilliseconds) - last.bootMs < 60_000
        {
            return
        }
        try appendEvent(.answered, attemptID: attemptID, question: questionID, now: now, after: .some(last))
    }

    /// Whether the attempt's record has an event yet.
    func hasRecord(_ attemptID: String) throws -> Bool {
        try database.row("SELECT 1 FROM attempt_log WHERE attempt_id = ? LIMIT 1", [attemptID]) != nil
    }

    /// What the take screen sees of the student's screen: left and came back, text pasted (how many characters).
    /// Only for an attempt in progress; nothing else is recorded.
    public func recordScreenEvent(_ kind: RecordEvent.Kind, attemptID: String, question: String?, count: Int? = nil) throws {
        guard [.left, .returned, .pasted].contains(kind) else { return }
        try database.inTransaction {
            guard let row = try database.row("SELECT state FROM attempts WHERE id = ?", [attemptID]),
                try row.state(AttemptRecord.State.self, 0) == .inProgress
            else { return }
            try appendEvent(kind, attemptID: attemptID, question: question, count: count)
        }
    }

    /// The take screen opens: a session of this attempt that never closed (kill -9, a closed terminal, power loss)
    /// is recorded as ended without leaving, then resumed. True when it found one.
    @discardableResult
    public func beginTakeSession(attemptID: String) throws -> Bool {
        let key = "take.open.\(attemptID)"
        return try database.inTransaction {
            let unclean = try database.row("SELECT value FROM settings WHERE key = ?", [key]) != nil
            if unclean {
                try appendEvent(.endedUncleanly, attemptID: attemptID)
                try appendEvent(.resumed, attemptID: attemptID)
            }
            try database.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", [key, Self.storedTimeText(clocks.wall())])
            return unclean
        }
    }

    /// The take screen closes by any way it knows (`:q`, submit, Ctrl-C, time up, SIGTERM, a closed terminal).
    public func endTakeSession(attemptID: String) throws {
        let key = "take.open.\(attemptID)"
        try database.inTransaction {
            // A session spent offline is counted with its length, for the vault's own figures.
            if try lastKnownOffline(), let row = try database.row("SELECT value FROM settings WHERE key = ?", [key]) {
                let opened = try Self.storedTime(row, table: "settings", key: key)
                try count(.offlineSessions)
                try count(.offlineSessionMilliseconds, by: max(0, Int(saturating: (clocks.wall().timeIntervalSince(opened) * 1000).rounded())))
            }
            try database.execute("DELETE FROM settings WHERE key = ?", [key])
        }
    }

    /// The record as a hand-in carries it: the events and the vault key's signature over the attempt, the chain's
    /// head and its length. Nil when the attempt has none (a vault older than records).
    func recordUpload(attemptID: String) throws -> AttemptLogUpload? {
        let events = try attemptLog(attemptID)
        guard !events.isEmpty else { return nil }
        let key = try deviceKey()
        let statement = AttemptLogUpload.statement(attemptID: attemptID, head: RecordChain.head(events), count: events.count)
        return AttemptLogUpload(events: events, deviceKey: key.publicKey, signature: try key.signature(for: statement))
    }
}

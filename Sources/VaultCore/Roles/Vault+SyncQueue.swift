import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

/// One queued upload as the sync engine sees it.
public struct QueuedResponse: Sendable, Equatable {
    public var seq: Int
    /// The item and its answer as stored, which the batch carries as it is.
    public var outgoing: OutgoingResponse
    public var item: ResponseItem { outgoing.item }
    public var tries: Int
    public var encodedBytes: Int
}

public struct QueuedSubmission: Sendable, Equatable {
    public var seq: Int
    public var request: SubmissionRequest
    public var tries: Int
    public var title: String
}

/// A group of answers the server called a conflict: the assessment changed under them.
public struct ConflictGroup: Sendable, Equatable {
    public var assessmentID: String
    public var title: String
    public var teacherContact: String?
    public var localVersion: Int
    public var serverVersion: Int
    public var questionIDs: [String]
    public var responseIDs: [String]
    /// Attempts whose submission the server refused as outdated (409).
    public var attemptIDs: [String]
}

extension ConflictGroup {
    /// A group with nothing in it yet; the title and contact are filled from the cached document.
    init(assessmentID: String, localVersion: Int, serverVersion: Int) {
        self.init(
            assessmentID: assessmentID,
            title: assessmentID,
            teacherContact: nil,
            localVersion: localVersion,
            serverVersion: serverVersion,
            questionIDs: [],
            responseIDs: [],
            attemptIDs: []
        )
    }
}

public struct DeadLetter: Codable, Sendable, Equatable {
    public var id: Int
    public var kind: QueueKind
    public var refID: String
    public var assessmentID: String?
    public var reason: String
    public var createdAt: String
    public var payload: JSONValue?

    enum CodingKeys: String, CodingKey {
        case id, kind, reason, payload
        case refID = "ref_id"
        case assessmentID = "assessment_id"
        case createdAt = "created_at"
    }
}

/// The persisted sync queue: FIFO, an attempt's answers before its submission, rows marked synced only after
/// the server acknowledged them.
extension Vault {
    /// An upper bound on an item's JSON beyond its answer: field names, two UUIDs, a SHA-256 hex hash, ids, a timestamp.
    static let itemOverheadBytes = 700

    /// Queued answers, oldest first, whose backoff has passed (or all, when `ignoreBackoff`).
    /// CROSS JOIN keeps the queue as the outer loop, walked in `seq` order, so a batch costs its own size and not
    /// the length of the queue.
    ///
    /// An answer whose stored JSON no longer decodes is never sent in another form: it becomes a dead letter with a
    /// message saying so, and `verify` reports it.
    /// `afterSeq`: only queue entries after this one (the sync engine reads the next batch while one is in flight).
    public func queuedResponses(now: Date, ignoreBackoff: Bool, limit: Int = 10_000, afterSeq: Int = 0) throws -> [QueuedResponse] {
        var unreadable: [String] = []
        let queued: [QueuedResponse] = try database.rows(
            Self.queuedResponsesSQL,
            [afterSeq, ignoreBackoff, now.millisecondsSince1970, limit]
        ).compactMap { row in
            // A row that does not read back (its answer or another column) is never sent in another form: it
            // becomes a dead letter saying so; a row whose very id is damaged stops the sync, named.
            let stored: StoredResponse
            do {
                stored = try StoredResponse(row, offset: 2)
            } catch {
                unreadable.append(try row.string(2 + StoredResponse.Column.id.rawValue))
                return nil
            }
            guard let item = stored.item else {
                unreadable.append(stored.id)
                return nil
            }
            // The answer's stored JSON plus the fixed fields (ids, hash, timestamps) bound the encoded size.
            return QueuedResponse(
                seq: try row.int(0),
                outgoing: OutgoingResponse(item: item, answerText: stored.storedAnswer),
                tries: try row.int(1),
                encodedBytes: stored.storedAnswer.utf8.count + Self.itemOverheadBytes
            )
        }
        for id in unreadable {
            try moveToDeadLetters(kind: .response, refID: id, reason: Self.unreadableAnswerReason, now: now)
        }
        return queued
    }

    /// `+q.kind` keeps SQLite 3.15 from driving the query by the `(kind, ref_id)` unique index: it did, and then
    /// sorted the whole queue by `seq` for every batch (a 10,000-answer sync spent 0.8 s of its 1.1 s here). The
    /// plan is checked by a test.
    @_spi(Testing) public static let queuedResponsesSQL = """
        SELECT q.seq, q.tries, \(StoredResponse.selection)
        FROM sync_queue q CROSS JOIN responses r ON r.id = q.ref_id CROSS JOIN attempts t ON t.id = r.attempt_id
        WHERE q.seq > ? AND +q.kind = \(QueueKind.response.sql) AND r.state = \(ResponseState.pending.sql) AND (? OR q.next_try_at <= ?)
        ORDER BY q.seq LIMIT ?
        """

    static let unreadableAnswerReason =
        "This answer could not be read back from the vault (its stored form is damaged), so it was not uploaded. Answer the question again, or show the teacher."

    /// Submissions whose attempt has no answer left to upload, oldest first.
    public func queuedSubmissions(now: Date, ignoreBackoff: Bool) throws -> [QueuedSubmission] {
        try database.rows(
            """
            SELECT q.seq, q.tries, t.id, a.title
            FROM sync_queue q JOIN attempts t ON t.id = q.ref_id
            JOIN assessments a ON a.id = t.assessment_id AND a.version = t.assessment_version
            WHERE q.kind = \(QueueKind.submission.sql) AND (? OR q.next_try_at <= ?) AND q.state = \(QueueState.waiting.sql)
                AND NOT EXISTS (SELECT 1 FROM responses r WHERE r.attempt_id = t.id AND r.state IN \(ResponseState.sqlList([.pending, .conflict])))
            ORDER BY q.seq
            """,
            [ignoreBackoff, now.millisecondsSince1970]
        ).map { row in
            QueuedSubmission(
                seq: try row.int(0),
                request: try submissionRequest(attemptID: try row.string(2)),
                tries: try row.int(1),
                title: try row.string(3)
            )
        }
    }

    /// The submission of a submitted attempt, listing its current answers (the one place a `SubmissionRequest` is
    /// made: sync and the hand-in file send the same).
    func submissionRequest(attemptID: String) throws -> SubmissionRequest {
        guard
            let row = try database.row(
                """
                SELECT id, assessment_id, assessment_version, submitted_at, force_submit, timer_started_at, counted_ms, wall_back_ms
                FROM attempts WHERE id = ? AND submitted_at IS NOT NULL
                """,
                [attemptID]
            )
        else { throw VaultError(.notAllowed, tr("This attempt has not been submitted yet. Run `vault submit` first.")) }
        let answers = try currentAnswerSet(attemptID: attemptID)
        let forced = try row.bool(4)
        var request = SubmissionRequest(
            attemptId: try row.string(0),
            assessmentId: try row.string(1),
            assessmentVersion: try row.int(2),
            submittedAt: Timestamp.string(try row.date(3)),
            responseIds: answers.map(\.responseId).sorted(),
            force: forced ? true : nil,
            answers: answers
        )
        request.record = try recordUpload(attemptID: request.attemptId)
        if let unsealed = try database.row(
            "SELECT unsealed_at FROM sealed_keys WHERE assessment_id = ? AND version = ?",
            [request.assessmentId, request.assessmentVersion]
        ) {
            request.unsealedAt = Timestamp.string(try unsealed.date(0))
        }
        if let started = try row.optionalInt64(5) {
            // A timed attempt: the time used at submission (the larger of wall and counted time) and the clock flag.
            request.startedAt = Timestamp.string(Date(millisecondsSince1970: started))
            // Never a trap on a damaged time: an overflowing difference counts as none.
            let used = try row.int64(3).subtractingReportingOverflow(started)
            request.timeUsedMs = max(used.overflow ? 0 : Int(used.partialValue), try row.int(6))
            request.clockMovedBackMs = try row.int(7)
        }
        return request
    }

    /// Every queued upload, backoff or not.
    public func queueLength() throws -> Int {
        try database.scalarInt(
            """
            SELECT (SELECT count(*) FROM sync_queue q JOIN responses r ON r.id = q.ref_id WHERE q.kind = \(QueueKind.response.sql) AND r.state = \(ResponseState.pending.sql))
                 + (SELECT count(*) FROM sync_queue WHERE kind = \(QueueKind.submission.sql))
            """
        )
    }

    /// The earliest time after `now` at which a backed-off upload may be tried again (held conflicts excluded).
    public func nextRetryAt(after now: Date) throws -> Date? {
        try database.row(
            "SELECT min(next_try_at) FROM sync_queue WHERE next_try_at > ? AND state = \(QueueState.waiting.sql)",
            [now.millisecondsSince1970]
        )
        .flatMap { try $0.optionalDate(0) }
    }

    /// The server stored these answers (accepted, duplicate or superseded): they leave the queue and wait for the
    /// receipt that names them, which alone makes them handed in.
    public func markResponsesUploaded(_ ids: [String]) throws {
        let now = clocks.wall().millisecondsSince1970
        // Two statements per chunk of ids, not two per id: a batch of 100 is settled in one short transaction.
        try database.inTransaction {
            for start in stride(from: 0, to: ids.count, by: Self.idsPerStatement) {
                let chunk = Array(ids[start..<min(start + Self.idsPerStatement, ids.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                // How long they waited in the queue, for the vault's own figures (a count and a sum, no ids kept).
                if let waited = try database.row(
                    "SELECT count(*), coalesce(sum(? - enqueued_at), 0) FROM sync_queue WHERE kind = \(QueueKind.response.sql) AND ref_id IN (\(marks))",
                    [now] + chunk
                ) {
                    try count(.answersUploaded, by: try waited.int(0))
                    // A sum past Int64 is a REAL in SQLite: read as a number, held within Int.
                    try count(.queueMilliseconds, by: max(0, Int(saturating: try waited.double(1))))
                }
                // `+state`: the primary key finds the rows; an index on state would walk every pending answer per chunk.
                try database.execute(
                    "UPDATE responses SET state = \(ResponseState.uploaded.sql), sync_message = NULL WHERE id IN (\(marks)) AND +state = \(ResponseState.pending.sql)",
                    chunk
                )
                try database.execute("DELETE FROM sync_queue WHERE kind = \(QueueKind.response.sql) AND ref_id IN (\(marks))", chunk)
            }
        }
    }

    /// Under SQLite's default limit of 999 host parameters.
    static let idsPerStatement = 100

    /// The assessment changed under this answer: it waits for the student's decision, out of the queue.
    public func markResponseConflict(_ id: String, serverVersion: Int, message: String?) throws {
        try database.inTransaction {
            try database.execute(
                "UPDATE responses SET state = \(ResponseState.conflict.sql), conflict_version = ?, sync_message = ? WHERE id = ?",
                [serverVersion, message, id]
            )
            try database.execute("DELETE FROM sync_queue WHERE kind = \(QueueKind.response.sql) AND ref_id = ?", [id])
            try count(.conflicts)
        }
    }

    /// A failed try: count it and set the next time; returns true when the item gave up and became a dead letter.
    @discardableResult
    public func recordFailure(seq: Int, error: String, nextTryAt: Date, maxTries: Int) throws -> Bool {
        try database.inTransaction {
            try database.execute(
                "UPDATE sync_queue SET tries = tries + 1, next_try_at = ?, last_error = ? WHERE seq = ?",
                [nextTryAt.millisecondsSince1970, error, seq]
            )
            guard let row = try database.row("SELECT kind, ref_id, tries FROM sync_queue WHERE seq = ?", [seq]), try row.int(2) >= maxTries else {
                return false
            }
            try moveToDeadLetters(
                kind: try row.state(QueueKind.self, 0),
                refID: try row.string(1),
                reason: "Gave up after \(try row.int(2)) tries: \(error)",
                unseen: true
            )
            return true
        }
    }

    /// Moves an answer or a submission out of the queue into the dead letters, keeping its content. Atomic: a
    /// crash never leaves an answer marked dead without its dead letter.
    /// `unseen`: the server never received it (too large even alone, or failing until the tries ran out); it is
    /// reported to the server once (`unreportedGivenUp`), so the teacher's roster shows it. What the server refused it
    /// decided on itself (and records what the roster needs: closed, no attempts left), so that is not reported.
    public func moveToDeadLetters(kind: QueueKind, refID: String, reason: String, unseen: Bool = false, now: Date? = nil) throws {
        let now = now ?? clocks.wall()
        try database.inTransaction { try insertDeadLetter(kind: kind, refID: refID, reason: reason, unseen: unseen, now: now) }
    }

    private func insertDeadLetter(kind: QueueKind, refID: String, reason: String, unseen: Bool, now: Date) throws {
        let payload: Data
        let assessmentID: String?
        if kind == .response, let stored = try storedResponse(refID) {
            if let item = stored.item {
                payload = try CanonicalJSON.encode(item)
            } else {
                // Never a changed copy of the answer: the dead letter names it, the damaged original stays in place.
                payload = try CanonicalJSON.encode(
                    ["id": stored.id, "attempt_id": stored.attemptID, "question_id": stored.questionID, "answer": "unreadable"])
            }
            assessmentID = stored.assessmentID
            try database.execute("UPDATE responses SET state = \(ResponseState.dead.sql), sync_message = ? WHERE id = ?", [reason, refID])
        } else {
            let row = try database.row("SELECT assessment_id, assessment_version FROM attempts WHERE id = ?", [refID])
            assessmentID = try row?.string(0)
            payload = try CanonicalJSON.encode([
                "attempt_id": refID, "assessment_id": assessmentID ?? "", "assessment_version": "\(try row?.int(1) ?? 0)",
            ])
        }
        try database.execute("DELETE FROM sync_queue WHERE kind = ? AND ref_id = ?", [kind.rawValue, refID])
        try database.execute(
            "INSERT INTO dead_letters (kind, ref_id, assessment_id, reason, payload, created_at, unseen) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [kind.rawValue, refID, assessmentID, reason, payload, now.millisecondsSince1970, unseen]
        )
    }

    /// Dead letters the server has not heard of, by attempt: the assessment, the attempt, how many, and their ids.
    public func unreportedGivenUp() throws -> [(assessmentID: String, attemptID: String, ids: [Int])] {
        var groups: [String: (assessmentID: String, ids: [Int])] = [:]
        for row in try database.rows(
            """
            SELECT d.id, d.assessment_id, CASE d.kind WHEN \(QueueKind.response.sql) THEN r.attempt_id ELSE d.ref_id END
            FROM dead_letters d LEFT JOIN responses r ON r.id = d.ref_id
            WHERE d.unseen = 1 AND d.reported_at IS NULL AND d.assessment_id IS NOT NULL
            ORDER BY d.id
            """
        ) {
            guard let attempt = try row.optionalString(2) else { continue }
            let assessmentID = try row.string(1)
            groups[attempt, default: (assessmentID, [])].ids.append(try row.int(0))
        }
        return groups.map { ($0.value.assessmentID, $0.key, $0.value.ids) }.sorted { $0.attemptID < $1.attemptID }
    }

    /// The server has been told of these dead letters.
    public func markReported(_ ids: [Int], now: Date? = nil) throws {
        let now = now ?? clocks.wall()
        try database.inTransaction {
            for id in ids { try database.execute("UPDATE dead_letters SET reported_at = ? WHERE id = ?", [now.millisecondsSince1970, id]) }
        }
    }

    func storedResponse(_ id: String) throws -> StoredResponse? {
        try database.row("SELECT \(StoredResponse.selection) FROM \(StoredResponse.fromClause) WHERE r.id = ?", [id])
            .map { try StoredResponse($0) }
    }

    /// The server's receipt: the attempt is done and its submission leaves the queue.
    public func markSubmitted(attemptID: String, receiptID: String) throws {
        try database.inTransaction {
            try database.execute(
                "UPDATE attempts SET state = \(AttemptRecord.State.synced.sql), receipt_id = ? WHERE id = ?",
                [receiptID, attemptID]
            )
            try database.execute("DELETE FROM sync_queue WHERE kind = \(QueueKind.submission.sql) AND ref_id = ?", [attemptID])
        }
    }

    /// The server lacks answers we thought it had (a 422, or a receipt that leaves them out): they go back into the
    /// queue. Returns the ids that did.
    @discardableResult
    public func requeueResponses(_ ids: [String], now: Date? = nil) throws -> [String] {
        let now = now ?? clocks.wall()
        return try database.inTransaction {
            var requeued: [String] = []
            for id in ids
            where try database.row("SELECT 1 FROM responses WHERE id = ? AND state IN \(ResponseState.sqlList([.uploaded, .synced]))", [id]) != nil {
                try database.execute("UPDATE responses SET state = \(ResponseState.pending.sql) WHERE id = ?", [id])
                try database.execute(
                    "INSERT OR IGNORE INTO sync_queue (kind, ref_id, enqueued_at) VALUES (\(QueueKind.response.sql), ?, ?)",
                    [id, now.millisecondsSince1970]
                )
                requeued.append(id)
            }
            return requeued
        }
    }

    /// Conflicts waiting for a decision, one group per assessment.
    public func conflictGroups() throws -> [ConflictGroup] {
        var groups: [String: ConflictGroup] = [:]
        for row in try database.rows(
            """
            SELECT t.assessment_id, t.assessment_version, r.conflict_version, r.question_id, r.id FROM responses r
            JOIN attempts t ON t.id = r.attempt_id WHERE r.state = \(ResponseState.conflict.sql) ORDER BY r.answered_at
            """
        ) {
            let id = try row.string(0)
            let localVersion = try row.int(1)
            let serverVersion = try row.optionalInt(2) ?? 0
            var group = groups[id] ?? ConflictGroup(assessmentID: id, localVersion: localVersion, serverVersion: serverVersion)
            let question = try row.string(3)
            if !group.questionIDs.contains(question) { group.questionIDs.append(question) }
            group.responseIDs.append(try row.string(4))
            group.serverVersion = max(group.serverVersion, serverVersion)
            groups[id] = group
        }
        for row in try database.rows(
            """
            SELECT t.id, t.assessment_id, t.assessment_version, q.conflict_version FROM sync_queue q JOIN attempts t ON t.id = q.ref_id
            WHERE q.kind = \(QueueKind.submission.sql) AND q.state = \(QueueState.heldForConflict.sql)
            """
        ) {
            let id = try row.string(1)
            let localVersion = try row.int(2)
            let serverVersion = try row.optionalInt(3) ?? 0
            var group = groups[id] ?? ConflictGroup(assessmentID: id, localVersion: localVersion, serverVersion: serverVersion)
            group.attemptIDs.append(try row.string(0))
            groups[id] = group
        }
        return try groups.values.sorted { $0.assessmentID < $1.assessmentID }.map { group in
            var group = group
            // Its title and contact from the version held here; an evicted one has none to give (damage is thrown).
            do {
                let document = try loadAssessment(id: group.assessmentID, version: group.localVersion).assessment
                group.title = document.title
                group.teacherContact = document.teacherContact
            } catch let error as VaultError where error.code == .notFound {}
            return group
        }
    }

    /// A submission refused as outdated (409): held for the student's decision.
    public func markSubmissionConflict(attemptID: String, serverVersion: Int) throws {
        try database.execute(
            "UPDATE sync_queue SET state = \(QueueState.heldForConflict.sql), conflict_version = ? WHERE kind = \(QueueKind.submission.sql) AND ref_id = ?",
            [serverVersion, attemptID]
        )
    }

    /// "Submit anyway": the conflicting answers and the submission go again with force.
    public func forceConflicts(_ group: ConflictGroup, now: Date? = nil) throws {
        let now = now ?? clocks.wall()
        try database.inTransaction {
            for id in group.responseIDs {
                try database.execute(
                    "UPDATE responses SET state = \(ResponseState.pending.sql), force_pending = 1, sync_message = NULL WHERE id = ?",
                    [id]
                )
                try database.execute(
                    "INSERT OR IGNORE INTO sync_queue (kind, ref_id, enqueued_at) VALUES (\(QueueKind.response.sql), ?, ?)",
                    [id, now.millisecondsSince1970]
                )
            }
            for attempt in group.attemptIDs + (try attemptsOf(group)) {
                try database.execute("UPDATE attempts SET force_submit = 1 WHERE id = ?", [attempt])
                try releaseHeldSubmission(attempt)
            }
        }
    }

    /// "Discard and re-download": the conflicting answers are dropped; the rest of the attempt goes up (forced).
    public func discardConflicts(_ group: ConflictGroup) throws {
        try database.inTransaction {
            for id in group.responseIDs {
                try database.execute("DELETE FROM sync_queue WHERE kind = \(QueueKind.response.sql) AND ref_id = ?", [id])
                try database.execute("DELETE FROM responses WHERE id = ?", [id])
            }
            for attempt in group.attemptIDs + (try attemptsOf(group)) {
                try database.execute("UPDATE attempts SET force_submit = 1 WHERE id = ?", [attempt])
                try releaseHeldSubmission(attempt)
            }
        }
    }

    /// A submission held for a conflict goes again at the next sync.
    private func releaseHeldSubmission(_ attemptID: String) throws {
        try database.execute(
            """
            UPDATE sync_queue SET state = \(QueueState.waiting.sql), conflict_version = NULL, last_error = NULL, next_try_at = 0
            WHERE kind = \(QueueKind.submission.sql) AND ref_id = ?
            """,
            [attemptID]
        )
    }

    private func attemptsOf(_ group: ConflictGroup) throws -> [String] {
        try database.rows(
            "SELECT id FROM attempts WHERE assessment_id = ? AND assessment_version = ? AND state = \(AttemptRecord.State.submitted.sql)",
            [group.assessmentID, group.localVersion]
        )
        .map { try $0.string(0) }
    }

    // MARK: Dead letters

    public func deadLetters() throws -> [DeadLetter] {
        try database.rows("SELECT \(DeadLetter.selection) FROM dead_letters ORDER BY id").map { try DeadLetter($0) }
    }

    private func deadLetter(_ id: Int) throws -> DeadLetter {
        guard let row = try database.row("SELECT \(DeadLetter.selection) FROM dead_letters WHERE id = ?", [id]) else {
            throw VaultError(.notFound, tr("There is no dead letter {id}; `vault dead-letters list` shows them.", ["id": id]))
        }
        return try DeadLetter(row)
    }

    /// Puts a dead letter back in the queue for the next sync.
    public func retryDeadLetter(_ id: Int, now: Date? = nil) throws {
        let now = now ?? clocks.wall()
        try database.inTransaction {
            let letter = try deadLetter(id)
            if letter.kind == .response {
                guard try database.row("SELECT 1 FROM responses WHERE id = ?", [letter.refID]) != nil else {
                    throw VaultError(.notFound, tr("The answer of dead letter {id} is no longer in the vault.", ["id": id]))
                }
                try database.execute("UPDATE responses SET state = \(ResponseState.pending.sql), sync_message = NULL WHERE id = ?", [letter.refID])
            }
            try database.execute(
                "INSERT OR IGNORE INTO sync_queue (kind, ref_id, enqueued_at) VALUES (?, ?, ?)",
                [letter.kind.rawValue, letter.refID, now.millisecondsSince1970]
            )
            try database.execute("DELETE FROM dead_letters WHERE id = ?", [id])
        }
    }

    public func discardDeadLetter(_ id: Int) throws {
        try database.inTransaction {
            let letter = try deadLetter(id)
            if letter.kind == .response {
                try database.execute("DELETE FROM responses WHERE id = ? AND state = \(ResponseState.dead.sql)", [letter.refID])
            }
            try database.execute("DELETE FROM dead_letters WHERE id = ?", [id])
        }
    }
}

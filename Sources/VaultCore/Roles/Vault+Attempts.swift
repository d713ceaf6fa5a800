import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

/// Taking an assessment offline: every answer is committed (encrypted, fsynced) before the call returns.
extension Vault {
    /// Resumes the open attempt on `assessmentID`, or starts one on the newest cached version.
    /// An expired copy, or one past its `not_after`, cannot start a new attempt; an open one can always be finished.
    public func openAttempt(on assessmentID: String, now: Date? = nil) throws -> AttemptRecord {
        let now = now ?? clocks.wall()
        if let existing = try database.row(
            "SELECT id FROM attempts WHERE assessment_id = ? AND state = \(AttemptRecord.State.inProgress.sql) ORDER BY started_at DESC LIMIT 1",
            [assessmentID]
        ) {
            return try attempt(try existing.string(0), now: now)
        }
        let (assessment, expiresAt): (Assessment, Date)
        do {
            (assessment, expiresAt) = try loadAssessment(id: assessmentID, now: now)
        } catch let error as VaultError where error.code == .notFound {
            try count(.cacheMisses)
            throw error
        }
        // Handed in before: its attempt, or (evicted and downloaded again, issue 71) its answer sheet.
        if let done = try database.row(
            """
            SELECT state FROM attempts WHERE assessment_id = ? AND assessment_version = ? AND state != \(AttemptRecord.State.inProgress.sql)
            UNION ALL SELECT \(AttemptRecord.State.synced.sql) FROM answer_sheets WHERE assessment_id = ? AND assessment_version = ? LIMIT 1
            """,
            [assessmentID, assessment.version ?? 0, assessmentID, assessment.version ?? 0]
        ) {
            throw VaultError(
                .notAllowed,
                try done.state(AttemptRecord.State.self, 0) == .synced
                    ? tr("You already submitted {title} and it was uploaded. A submitted attempt cannot be changed.", ["title": assessment.title])
                    : tr("You already submitted {title}. A submitted attempt cannot be changed.", ["title": assessment.title])
            )
        }
        if expiresAt <= now {
            throw VaultError(
                .notAllowed,
                tr(
                    "Your copy of {title} has expired, so a new attempt cannot start. Download it again when you are online.",
                    ["title": assessment.title]
                )
            )
        }
        if let notAfter = assessment.notAfter.flatMap(Timestamp.date), notAfter <= now {
            throw VaultError(
                .notAllowed,
                tr("{title} closed on {when}; no new attempt can start.", ["title": assessment.title, "when": PeopleDates.dayAndClock(notAfter)])
            )
        }
        let id = UUID().uuidString.lowercased()
        try database.inTransaction {
            try database.execute(
                "INSERT INTO attempts (id, assessment_id, assessment_version, state, started_at) VALUES (?, ?, ?, \(AttemptRecord.State.inProgress.sql), ?)",
                [id, assessmentID, assessment.version ?? 0, now.millisecondsSince1970]
            )
            try recordAccess(id: assessmentID, version: assessment.version ?? 0, now: now)
        }
        return try attempt(id, now: now)
    }

    /// The most recent attempt on an assessment, whatever its state, or nil.
    public func latestAttempt(on assessmentID: String, now: Date? = nil) throws -> AttemptRecord? {
        let now = now ?? clocks.wall()
        return try database.row("SELECT id FROM attempts WHERE assessment_id = ? ORDER BY started_at DESC LIMIT 1", [assessmentID])
            .map { try attempt(try $0.string(0), now: now) }
    }

    /// The latest answer to each question of an attempt (dead letters left out).
    func currentAnswers(attemptID: String) throws -> [String: JSONValue] {
        // An answer that does not read back is damage, named; never an unanswered question.
        try currentAnswerRows(attemptID: attemptID).mapValues { row in
            guard let answer = StoredResponse.decodeAnswer(row.answer) else {
                throw DamagedRow(table: "responses", key: row.id, reason: "the stored answer is not JSON").error
            }
            return answer
        }
    }

    /// The attempt's current answers as a submission lists them and a receipt must state them: response id, question
    /// id and the SHA-256 of the answer's canonical JSON (as the server computes it from what it stored).
    public func currentAnswerSet(attemptID: String) throws -> [SubmittedAnswer] {
        try currentAnswerRows(attemptID: attemptID).map { question, row in
            // An answer that does not decode is digested as stored: its receipt then names other bytes, which
            // `vault verify` reports with the answer itself.
            let canonical = try StoredResponse.decodeAnswer(row.answer).map { try CanonicalJSON.encode($0) } ?? Data(row.answer.utf8)
            return SubmittedAnswer(responseId: row.id, questionId: question, answerSha256: answerDigest(canonicalAnswer: canonical))
        }.sorted { $0.questionId < $1.questionId }
    }

    /// The latest row per question, by `answered_at` then id: the server's rule for which answer is current.
    private func currentAnswerRows(attemptID: String) throws -> [String: (id: String, answer: String)] {
        var rows: [String: (id: String, answer: String)] = [:]
        for answer in try database.rows(
            """
            SELECT question_id, answer, id FROM responses WHERE attempt_id = ? AND state != \(ResponseState.dead.sql)
            ORDER BY \(AnswerOrder.sql(time: "answered_at", id: "id"))
            """,
            [attemptID]
        ) {
            rows[try answer.string(0)] = (try answer.string(2), try answer.string(1))
        }
        return rows
    }

    public func attempt(_ id: String, now: Date? = nil) throws -> AttemptRecord {
        let now = now ?? clocks.wall()
        guard let row = try database.row("SELECT \(AttemptRow.selection) FROM attempts WHERE id = ?", [id]).map(AttemptRow.init)
        else { throw VaultError(.notFound, tr("There is no attempt {id}.", ["id": id])) }
        let (assessment, expiresAt) = try loadAssessment(id: row.assessmentID, version: row.assessmentVersion, now: now)
        let answers = try currentAnswers(attemptID: id)
        return AttemptRecord(
            id: id,
            assessment: assessment,
            state: row.state,
            startedAt: row.startedAt,
            submittedAt: row.submittedAt,
            activeMilliseconds: row.activeMilliseconds,
            currentQuestion: row.currentQuestion,
            flagged: row.flagged,
            answers: answers,
            expiresAt: expiresAt,
            time: row.time,
            continuedAt: row.continuedAt
        )
    }

    /// Records one answer durably. A pending (not yet uploaded) answer to the same question is replaced under a new
    /// id, so a copy already in flight can never overwrite it on the server; an uploaded one gets a newer answer
    /// queued beside it (the server keeps the latest by `answered_at`).
    ///
    /// A timed attempt past its limit (and grace) takes no more answers: it is submitted with what was saved before,
    /// and the call throws saying so. Every save moves the attempt's clock checkpoint.
    @discardableResult
    public func recordAnswer(
        attemptID: String,
        questionID: String,
        answer: JSONValue,
        timeSpentMilliseconds: Int = 0,
        activeMilliseconds: Int? = nil,
        currentQuestion: Int? = nil,
        now: Date? = nil
    ) throws -> String {
        let now = now ?? clocks.wall()
        let saved: String? = try database.inTransaction {
            guard
                let attempt = try database.row(
                    "SELECT assessment_id, assessment_version, state FROM attempts WHERE id = ?",
                    [attemptID]
                )
            else { throw VaultError(.notFound, tr("There is no attempt {attempt}.", ["attempt": attemptID])) }
            guard try attempt.state(AttemptRecord.State.self, 2) == .inProgress else {
                throw VaultError(.notAllowed, tr("This attempt was submitted and can no longer be changed."))
            }
            guard let hash = try questionHashes(id: try attempt.string(0), version: try attempt.int(1))[questionID] else {
                throw VaultError(.notFound, tr("The assessment has no question {question}.", ["question": questionID]))
            }
            if try checkpointTime(attemptID: attemptID, start: true) == .submittedAtLimit { return nil }
            // The record: an untimed attempt starts with its first answer; the answer's event is in its transaction.
            try appendAnswered(attemptID: attemptID, questionID: questionID, now: now)
            var spent = max(0, timeSpentMilliseconds)
            // Strictly later than every answer this vault holds to the question (a clock set back, two saves in one
            // millisecond), so the current answer is the latest by time here and on the server alike.
            let answeredAt = max(
                now.millisecondsSince1970,
                try database.row(
                    "SELECT max(answered_at) FROM responses WHERE attempt_id = ? AND question_id = ?",
                    [attemptID, questionID]
                )?.optionalInt64(0).map { $0 == .max ? .max : $0 + 1 } ?? .min  // a damaged latest never traps
            )
            for pending in try database.rows(
                "SELECT id, time_spent_ms FROM responses WHERE attempt_id = ? AND question_id = ? AND state = \(ResponseState.pending.sql)",
                [attemptID, questionID]
            ) {
                spent += try pending.int(1)
                try database.execute("DELETE FROM sync_queue WHERE kind = \(QueueKind.response.sql) AND ref_id = ?", [try pending.string(0)])
                try database.execute("DELETE FROM responses WHERE id = ?", [try pending.string(0)])
            }
            let id = UUID().uuidString.lowercased()
            let text = try CanonicalJSON.text(answer)
            try database.execute(
                """
                INSERT INTO responses (id, attempt_id, question_id, question_hash, answer, time_spent_ms, answered_at, state)
                VALUES (?, ?, ?, ?, ?, ?, ?, \(ResponseState.pending.sql))
                """,
                [id, attemptID, questionID, hash, text, spent, answeredAt]
            )
            try database.execute(
                "INSERT INTO sync_queue (kind, ref_id, enqueued_at) VALUES (\(QueueKind.response.sql), ?, ?)",
                [id, now.millisecondsSince1970]
            )
            if let activeMilliseconds {
                try database.execute("UPDATE attempts SET active_ms = MAX(active_ms, ?) WHERE id = ?", [activeMilliseconds, attemptID])
            }
            if let currentQuestion {
                try database.execute("UPDATE attempts SET current_question = ? WHERE id = ?", [currentQuestion, attemptID])
            }
            return id
        }
        guard let saved else { throw Self.timeUp(try attempt(attemptID).assessment.title, answerLost: true) }
        return saved
    }

    func questionHashes(id: String, version: Int) throws -> [String: String] {
        let key = "\(id)@\(version)"
        if let cached = questionHashCache[key] { return cached }
        // No such version: no questions. A version whose hashes do not read back is damage, named (never "no such
        // question", which would refuse every answer to it in silence).
        let text = try database.row("SELECT question_hashes FROM assessments WHERE id = ? AND version = ?", [id, version])?.string(0) ?? "{}"
        let hashes: [String: String]
        do {
            hashes = try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
        } catch {
            throw DamagedRow(table: "assessments", key: key, reason: "its question hashes do not decode: \(error)").error
        }
        questionHashCache[key] = hashes
        return hashes
    }

    /// Saves where the student is, the flags, and the active time (never decreasing).
    public func saveProgress(attemptID: String, activeMilliseconds: Int? = nil, currentQuestion: Int? = nil, flagged: Set<String>? = nil) throws {
        try database.inTransaction {
            _ = try checkpointTime(attemptID: attemptID, start: false)
            if let activeMilliseconds {
                try database.execute(
                    "UPDATE attempts SET active_ms = MAX(active_ms, ?) WHERE id = ? AND state = \(AttemptRecord.State.inProgress.sql)",
                    [activeMilliseconds, attemptID]
                )
            }
            if let currentQuestion {
                try database.execute("UPDATE attempts SET current_question = ? WHERE id = ?", [currentQuestion, attemptID])
            }
            if let flagged {
                let before = Set(
                    (try database.row("SELECT flags FROM attempts WHERE id = ?", [attemptID])?.optionalString(0) ?? "").split(separator: ",").map(
                        String.init
                    )
                )
                for question in flagged.subtracting(before).sorted() { try appendEvent(.flagged, attemptID: attemptID, question: question) }
                for question in before.subtracting(flagged).sorted() { try appendEvent(.unflagged, attemptID: attemptID, question: question) }
                try database.execute("UPDATE attempts SET flags = ? WHERE id = ?", [flagged.sorted().joined(separator: ","), attemptID])
            }
        }
    }

    /// Finishes the attempt and queues its submission after its answers. The attempt is read-only afterwards.
    /// `timeUp`: the take screen saw its time run out (its record says so before the hand-in).
    public func submitAttempt(_ attemptID: String, timeUp: Bool = false, now: Date? = nil) throws {
        let now = now ?? clocks.wall()
        try database.inTransaction {
            guard let state = try database.row("SELECT state FROM attempts WHERE id = ?", [attemptID]) else {
                throw VaultError(.notFound, tr("There is no attempt {attempt}.", ["attempt": attemptID]))
            }
            guard try state.state(AttemptRecord.State.self, 0) == .inProgress else {
                throw VaultError(.notAllowed, tr("This attempt was already submitted."))
            }
            // The last checkpoint of a timed attempt goes with it (time used, clock anomalies).
            if try checkpointTime(attemptID: attemptID, start: false) == .submittedAtLimit { return }
            if timeUp { try appendEvent(.timeUp, attemptID: attemptID, now: now) }
            try markSubmitted(attemptID: attemptID, at: now)
        }
    }

    /// Inside a transaction: the attempt becomes read-only and its submission is queued after its answers.
    func markSubmitted(attemptID: String, at now: Date) throws {
        try appendEvent(.submitted, attemptID: attemptID, now: now)
        try count(.attemptsSubmitted)
        if try lastKnownOffline() { try count(.attemptsSubmittedOffline) }
        try database.execute(
            "UPDATE attempts SET state = \(AttemptRecord.State.submitted.sql), submitted_at = ? WHERE id = ?",
            [now.millisecondsSince1970, attemptID]
        )
        try database.execute(
            "INSERT INTO sync_queue (kind, ref_id, enqueued_at) VALUES (\(QueueKind.submission.sql), ?, ?)",
            [attemptID, now.millisecondsSince1970]
        )
    }
}

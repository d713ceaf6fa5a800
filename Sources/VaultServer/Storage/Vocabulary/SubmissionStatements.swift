import Foundation
import VaultAPI
import VaultRules

/// A hand-in: the facts `SubmissionPlan` decides on, read in the transaction that writes its decision.
public enum SubmissionStatements {
    /// `SubmissionRecord.keptApart` as a condition on a submission's row (its flags are a comma-separated list).
    static let keptApart =
        "flags LIKE '%\(SubmissionFlag.revokedDevice.rawValue)%' AND (late_decision IS NULL OR late_decision <> '\(LateDecision.accepted.rawValue)')"

    static func submission(attemptID: String) -> SQLStatement {
        SQLStatement(
            "SELECT \(SubmissionRecord.selection("s")) FROM submissions s WHERE s.attempt_id = ?",
            [.text(attemptID)],
            columns: SubmissionRecord.columns
        )
    }

    static func attempt(id: String) -> SQLStatement {
        SQLStatement(
            "SELECT user_name, assessment_id, started_at FROM attempts WHERE id = ?",
            [.text(id)],
            columns: ["user_name", "assessment_id", "started_at"]
        )
    }

    /// When the attempt's current answers were given and when they arrived (the server's judgement of its time).
    static func answerTimes(attemptID: String) -> SQLStatement {
        SQLStatement(
            "SELECT answered_at_ms, received_at FROM responses WHERE attempt_id = ? AND superseded = {false}",
            [.text(attemptID)],
            columns: ["answered_at_ms", "received_at"]
        )
    }

    static func head(id: String) -> SQLStatement {
        SQLStatement(
            "SELECT current_version, deleted, closed_at FROM assessments WHERE id = ?",
            [.text(id)],
            columns: ["current_version", "deleted", "closed_at"]
        )
    }

    /// The version handed in: the teacher's document (what is scored) and, unless it was decoded before, the served
    /// one (what the rules check against).
    static func version(_ key: DocumentKey, served: Bool) -> SQLStatement {
        SQLStatement(
            "SELECT \(served ? "served, " : "")source FROM assessment_versions WHERE id = ? AND version = ?",
            [.text(key.id), .integer(key.version)],
            columns: served ? ["served", "source"] : ["source"]
        )
    }

    /// Who owns the responses a hand-in names, at most 500 ids a statement (SQLite takes 999 variables).
    static func responseOwners(_ ids: [String]) -> [SQLStatement] {
        stride(from: 0, to: ids.count, by: 500).map { start in
            let chunk = ids[start..<min(start + 500, ids.count)]
            return SQLStatement(
                "SELECT id, attempt_id, user_name FROM responses WHERE id IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ", ")))",
                chunk.map(SQLValue.text),
                columns: ["id", "attempt_id", "user_name"]
            )
        }
    }

    /// The student's other hand-ins and other attempts of the assessment; those kept apart (a revoked device's,
    /// not accepted: `SubmissionRecord.keptApart`) are not theirs, so they neither use up an attempt nor make the
    /// student's own a second one.
    static func others(user: String, assessmentID: String, attemptID: String) -> SQLStatement {
        let apart = "SELECT attempt_id FROM submissions WHERE \(keptApart)"
        return SQLStatement(
            """
            SELECT (SELECT count(*) FROM submissions WHERE user_name = ? AND assessment_id = ? AND attempt_id <> ? AND NOT (\(keptApart))) AS submitted,
                (SELECT count(*) FROM attempts WHERE user_name = ? AND assessment_id = ? AND id <> ? AND id NOT IN (\(apart))) AS attempts
            """,
            [.text(user), .text(assessmentID), .text(attemptID), .text(user), .text(assessmentID), .text(attemptID)],
            columns: ["submitted", "attempts"]
        )
    }

    static func write(_ write: SubmissionWrite) -> SQLStatement {
        switch write {
        case .insert(let record):
            return SQLStatement(
                """
                INSERT INTO submissions (attempt_id, user_name, assessment_id, assessment_version, submitted_at, forced, receipt_id,
                    received_at, response_count, started_at, time_used_ms, clock_moved_back_ms, unsealed_at, flags, via)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(record.attemptID), .text(record.user), .text(record.assessmentID), .integer(record.assessmentVersion),
                    .text(record.submittedAt), .bool(record.forced), .text(record.receiptID), .real(record.receivedAt),
                    .integer(record.responseCount), record.startedAt.map(SQLValue.text) ?? .null,
                    record.timeUsedMilliseconds.map(SQLValue.integer) ?? .null, record.clockMovedBackMilliseconds.map(SQLValue.integer) ?? .null,
                    record.unsealedAt.map(SQLValue.text) ?? .null, .text(record.flagsText), .text(record.via.rawValue),
                ]
            )
        case .amend(let record):
            return SQLStatement(
                "UPDATE submissions SET response_count = ?, signed_receipt = NULL WHERE attempt_id = ?",
                [.integer(record.responseCount), .text(record.attemptID)]
            )
        }
    }
}

extension SharedStatements {
    public func replaceClosingHandIn(attemptID: String, madeAt: Date, listed: [String], now: Date) async throws -> [String: Double]? {
        let reads = [
            TeachingStatements.closingHandInToReplace(attemptID: attemptID, madeAt: madeAt, listed: listed),
            TeachingStatements.gradesCarried(attemptID: attemptID),
        ]
        return try await readThenWrite(reads, queue: nil) { tables in
            guard let found = tables[0].first else { return (nil, []) }
            var carried: [String: Double] = [:]
            for row in tables[1] { carried[try row.string("question_id")] = try row.double("points") }
            let writes = TeachingStatements.replaceClosingHandIn(
                attemptID: attemptID,
                assessmentID: try found.string("assessment_id"),
                student: try found.string("user_name"),
                at: now
            )
            return (carried, writes)
        }
    }

    /// A hand-in, decided by `SubmissionPlan` on facts read in the transaction that writes the decision, with the
    /// score kept beside it. On PostgreSQL the hand-ins of one assessment are queued (`readThenWrite`'s `queue`).
    public func submit(
        _ request: SubmissionRequest,
        user: String,
        via: SubmissionChannel,
        now: Date,
        madeAt: Date?
    ) async throws
        -> SubmissionOutcome
    {
        let receiptID = Receipts.newID()
        let key = DocumentKey(id: request.assessmentId, version: request.assessmentVersion)
        let documents = documents
        let owners = SubmissionStatements.responseOwners(SubmissionFacts.lookedUpIDs(request))
        let reads =
            [
                SubmissionStatements.submission(attemptID: request.attemptId), SubmissionStatements.attempt(id: request.attemptId),
                SubmissionStatements.head(id: request.assessmentId), SubmissionStatements.version(key, served: documents.cached(key) == nil),
                ScoringStatements.currentAnswers(attemptID: request.attemptId),
                SubmissionStatements.others(user: user, assessmentID: request.assessmentId, attemptID: request.attemptId),
                TeachingStatements.extraMinutes(assessmentID: request.assessmentId, user: user),
                ScoringStatements.submittedSource(attemptID: request.attemptId), ScoringStatements.grades(attemptID: request.attemptId),
                SubmissionStatements.answerTimes(attemptID: request.attemptId),
                DrawStatements.draw(assessmentID: request.assessmentId, user: user),
            ] + owners
        return try await readThenWrite(reads, queue: "submissions:" + request.assessmentId) { tables in
            var responses: [String: (attemptID: String, user: String)] = [:]
            for row in tables.dropFirst(reads.count - owners.count).joined() {
                responses[try row.string("id")] = (try row.string("attempt_id"), try row.string("user_name"))
            }
            let version = tables[3].first
            let others = tables[5].first
            let facts = SubmissionFacts(
                attempt: try tables[1].first.map { AttemptOwner(user: try $0.string("user_name"), assessmentID: try $0.string("assessment_id")) },
                existing: try tables[0].first.map { try SubmissionRecord(row: $0) },
                head: try tables[2].first.map {
                    AssessmentHead(
                        currentVersion: try $0.int("current_version"),
                        deleted: try $0.bool("deleted"),
                        closedAt: try $0.optionalDouble("closed_at")
                    )
                },
                responses: responses,
                held: try tables[4].map(ScoringStatements.answer),
                document: try version.map { try documents.cached(key) ?? documents.decoded(key, bytes: try $0.data("served")) },
                otherSubmittedAttempts: try others?.int("submitted") ?? 0,
                otherAttempts: try others?.int("attempts") ?? 0,
                extraMinutes: try tables[6].first?.int("extra_minutes") ?? 0,
                attemptStartedAt: try tables[1].first?.optionalDouble("started_at"),
                answerTimes: try tables[9].map {
                    TimeAuthority.AnswerTime(answeredAtMilliseconds: Int64(try $0.int("answered_at_ms")), receivedAt: try $0.double("received_at"))
                }
            )
            let plan = SubmissionPlan.decide(request, user: user, now: now, facts: facts, receiptID: receiptID, via: via, madeAt: madeAt)
            guard let write = plan.write else { return (plan.outcome, []) }
            var writes = [SubmissionStatements.write(write)]
            // The score kept beside the hand-in, from the version it is of: the new one's, or the stored one's.
            let source: Data? =
                switch write {
                case .insert: try version?.data("source")
                case .amend: try tables[7].first?.data("source")
                }
            let answers = facts.held.map { (questionID: $0.questionID, answer: $0.answer) }
            let draw = try tables[10].first?.string("draw")
            if let source, let totals = Scoring.kept(source: source, draw: draw, answers: answers, grades: try tables[8].map(ScoringStatements.grade))
            {
                writes.append(ScoringStatements.keepTotals(totals, attemptID: request.attemptId))
            }
            return (plan.outcome, writes)
        }
    }
}

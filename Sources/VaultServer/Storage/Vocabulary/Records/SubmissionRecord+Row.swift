import Foundation
import VaultAPI
import VaultRules

/// The `submissions` table: one column list for every query that reads a submission, one mapper.
extension SubmissionRecord: StoredRecord {
    public static let columns = [
        "attempt_id", "user_name", "assessment_id", "assessment_version", "submitted_at", "forced", "receipt_id", "received_at",
        "response_count", "started_at", "time_used_ms", "clock_moved_back_ms", "signed_receipt", "unsealed_at", "flags",
        "via", "late_decision", "score", "max_score", "pending", "kept_points", "scored_version",
        "classroom",
    ]

    public init(row: some StoredRow) throws {
        let signed = try row.optionalString("signed_receipt")
        self.init(
            attemptID: try row.string("attempt_id"),
            user: try row.string("user_name"),
            assessmentID: try row.string("assessment_id"),
            assessmentVersion: try row.int("assessment_version"),
            submittedAt: try row.string("submitted_at"),
            forced: try row.bool("forced"),
            receiptID: try row.string("receipt_id"),
            receivedAt: try row.double("received_at"),
            responseCount: try row.int("response_count"),
            startedAt: try row.optionalString("started_at"),
            timeUsedMilliseconds: try row.optionalInt("time_used_ms"),
            clockMovedBackMilliseconds: try row.optionalInt("clock_moved_back_ms"),
            signedReceipt: try signed.map { text in
                guard let receipt = SignedReceipt(storedText: text) else { throw StorageError.column("signed_receipt", "is not a receipt") }
                return receipt
            },
            unsealedAt: try row.optionalString("unsealed_at"),
            flags: try SubmissionRecord.flags(stored: try row.string("flags")),
            via: try SubmissionChannel(rawValue: try row.string("via")) ?? { throw StorageError.column("via", "is not a channel") }(),
            lateDecision: try row.optionalString("late_decision").map { word in
                guard let decision = LateDecision(rawValue: word) else { throw StorageError.column("late_decision", "is not a decision") }
                return decision
            }
        )
        scoredVersion = try row.optionalInt("scored_version")
        classroom = try row.optionalString("classroom")
        // Each question's automatic points: none for a score kept before they were.
        let automatic = try row.optionalString("kept_points").map { text in
            do {
                return try Scoring.Totals.automatic(stored: text)
            } catch {
                throw StorageError.column("kept_points", "is not a question's points")
            }
        }
        // All three, or none (a submission stored before scores were kept); one without the others is damaged.
        switch (try row.optionalDouble("score"), try row.optionalDouble("max_score"), try row.optionalInt("pending")) {
        case (let score?, let maxScore?, let pending?):
            totals = Scoring.Totals(score: score, maxScore: maxScore, pending: pending, automatic: automatic)
        case (nil, nil, nil): totals = nil
        default: throw StorageError.column("score", "is kept without its maximum or questions waiting")
        }
    }

    /// What the teacher's view shows of it.
    public var received: ReceivedResponses.Submission {
        ReceivedResponses.Submission(
            attemptId: attemptID,
            assessmentVersion: assessmentVersion,
            submittedAt: submittedAt,
            forced: forced,
            receiptId: receiptID,
            user: user,
            startedAt: startedAt,
            timeUsedMs: timeUsedMilliseconds,
            clockMovedBackMs: clockMovedBackMilliseconds,
            unsealedAt: unsealedAt,
            flags: flags
        )
    }
}

/// The `responses` table as the teacher's view reads it.
extension ReceivedResponses.Response: StoredRecord {
    public static let columns = [
        "id", "attempt_id", "question_id", "assessment_version", "answer", "answered_at", "forced", "superseded", "user_name",
        "received_at", "answered_at_ms",
    ]

    public init(row: some StoredRow) throws {
        let receivedAt = try row.double("received_at")
        guard let answer = try? JSONDecoder().decode(JSONValue.self, from: Data(try row.string("answer").utf8)) else {
            throw StorageError.column("answer", "is not JSON")
        }
        self.init(
            id: try row.string("id"),
            attemptId: try row.string("attempt_id"),
            questionId: try row.string("question_id"),
            assessmentVersion: try row.int("assessment_version"),
            answer: answer,
            answeredAt: try row.string("answered_at"),
            forced: try row.bool("forced"),
            superseded: try row.bool("superseded"),
            user: try row.string("user_name"),
            receivedAt: Timestamp.string(epoch: receivedAt),
            answeredInFuture: ResponseRules.answeredInFuture(answeredAtMilliseconds: Int64(try row.int("answered_at_ms")), receivedAt: receivedAt)
        )
    }
}

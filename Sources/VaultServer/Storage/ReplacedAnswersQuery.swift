import Foundation
import VaultAPI
import VaultRules

/// An answer of an attempt that does not count: replaced by a later answer to its question (from the same device or
/// another of the student's), or given after the attempt was handed in on another device. Kept, never discarded:
/// the teacher's answer sheet shows it.
public struct ReplacedAnswer: Sendable, Equatable {
    public var questionID: String
    public var answer: JSONValue
    public var answeredAt: String
    /// Given after the attempt's hand-in (on another device): kept for the teacher, not counted.
    public var afterHandIn: Bool
    public init(questionID: String, answer: JSONValue, answeredAt: String, afterHandIn: Bool) {
        self.questionID = questionID
        self.answer = answer
        self.answeredAt = answeredAt
        self.afterHandIn = afterHandIn
    }
}

/// The statement both stores run for an attempt's replaced answers (`$1` the attempt), and how its rows read.
public enum ReplacedAnswersQuery {
    /// Question, response id, answer (canonical JSON), answered at, answered at in ms, the hand-in's `submitted_at`.
    public static let sql = """
        SELECT r.question_id, r.id, r.answer, r.answered_at, r.answered_at_ms,
            (SELECT s.submitted_at FROM submissions s WHERE s.attempt_id = r.attempt_id)
        FROM responses r WHERE r.attempt_id = $1 AND r.superseded ORDER BY r.question_id, r.answered_at_ms, r.id
        """

    /// One row as read; an answer that no longer decodes is a damaged row, named.
    public static func answer(
        questionID: String,
        responseID: String,
        answer: String,
        answeredAt: String,
        answeredAtMilliseconds: Int64,
        handedIn: String?
    ) throws -> ReplacedAnswer {
        guard let value = JSONReader.storedAnswer(answer) else { throw StorageError.damaged("the stored answer \(responseID)") }
        let late = AttemptOwner.handedIn(handedIn).map { answeredAtMilliseconds > $0 } ?? false
        return ReplacedAnswer(questionID: questionID, answer: value, answeredAt: answeredAt, afterHandIn: late)
    }
}

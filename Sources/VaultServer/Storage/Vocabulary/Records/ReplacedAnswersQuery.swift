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

/// How a row of an attempt's replaced answers (`ResultStatements.replacedAnswers`) reads.
public enum ReplacedAnswersQuery {
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

import Foundation
import VaultAPI

/// Scoring from the answer keys. A question scores its `points` (1 when unset) or 0; nil means the teacher decides.
public enum Scoring {
    public static func maxPoints(_ question: Question) -> Double { question.points ?? 1 }

    /// The points `answer` earns, or nil when only a teacher can say (an essay; a short text without accepted answers).
    public static func points(for answer: JSONValue?, question: Question) -> Double? {
        let full = maxPoints(question)
        guard let answer else {
            return question.type == .essay || (question.type == .shortText && (question.acceptedAnswers ?? []).isEmpty) ? nil : 0
        }
        switch question.type {
        case .singleChoice, .trueFalse:
            guard let key = question.answerKey?.first else { return nil }
            return answer == key ? full : 0
        case .multipleChoice:
            guard let key = question.answerKey else { return nil }
            // All or nothing: exactly the keyed choices, in any order.
            guard case .array(let values) = answer else { return 0 }
            return Set(values.compactMap(\.stringValue)) == Set(key.compactMap(\.stringValue)) && values.count == key.count ? full : 0
        case .numeric:
            guard let key = question.answerKey?.first?.numberValue else { return nil }
            guard let value = answer.numberValue else { return 0 }
            return abs(value - key) <= (question.tolerance ?? 0) + 1e-9 ? full : 0
        case .shortText:
            guard let accepted = question.acceptedAnswers, !accepted.isEmpty else { return nil }
            guard let text = answer.stringValue else { return 0 }
            return accepted.map(normalized).contains(normalized(text)) ? full : 0
        case .essay:
            return nil
        }
    }

    /// Case-folded, trimmed, inner whitespace collapsed to one space, Unicode NFC.
    public static func normalized(_ text: String) -> String {
        text.precomposedStringWithCanonicalMapping.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The result of a submitted attempt: automatic points, the teacher's grades over them, correct answers only
    /// once released.
    public static func result(
        for record: SubmissionRecord,
        document: Assessment,
        answers: [String: JSONValue],
        grades: [String: Double],
        released: Bool
    ) -> AttemptResult {
        var questions: [AttemptResult.QuestionResult] = []
        for question in document.questions {
            let points = grades[question.id] ?? Self.points(for: answers[question.id], question: question)
            let correct: [JSONValue]? =
                released ? (question.answerKey ?? question.acceptedAnswers.map { $0.map(JSONValue.string) }) : nil
            questions.append(.init(questionId: question.id, points: points, maxPoints: maxPoints(question), correctAnswer: correct))
        }
        return AttemptResult(
            attemptId: record.attemptID,
            assessmentId: record.assessmentID,
            assessmentVersion: record.assessmentVersion,
            user: record.user,
            released: released,
            score: questions.compactMap(\.points).reduce(0, +),
            maxScore: questions.map(\.maxPoints).reduce(0, +),
            pending: questions.filter { $0.points == nil }.count,
            questions: questions
        )
    }
}

/// What the store reads for one submitted attempt's result.
public struct ResultInput: Sendable {
    public var record: SubmissionRecord
    /// The teacher's document for the submitted version (answer keys included).
    public var document: Assessment
    public var answers: [String: JSONValue]
    public var grades: [String: Double]
    /// The teacher released the results (or the assessment shows them at submission).
    public var released: Bool
    public init(record: SubmissionRecord, document: Assessment, answers: [String: JSONValue], grades: [String: Double], released: Bool) {
        self.record = record
        self.document = document
        self.answers = answers
        self.grades = grades
        self.released = released
    }

    public var result: AttemptResult {
        Scoring.result(for: record, document: document, answers: answers, grades: grades, released: released)
    }
}

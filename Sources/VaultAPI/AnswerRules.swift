import Foundation

/// What a valid answer is, per question type: one rule for both sides. The client's parser turns typed text into a
/// value and asks this; the server checks every uploaded value with the same function.
public enum AnswerRules {
    /// Text limits when a question sets no `max_length`, in characters.
    public static let defaultShortTextLimit = 1_000
    public static let defaultEssayLimit = 20_000

    public static func maxLength(of question: Question) -> Int {
        question.maxLength ?? (question.type == .essay ? defaultEssayLimit : defaultShortTextLimit)
    }

    /// What the question accepts, in words a student can act on.
    public static func accepted(by question: Question) -> String {
        let ids = (question.choices ?? []).map(\.id).joined(separator: ", ")
        switch question.type {
        case .singleChoice: return "one of \(ids)"
        case .multipleChoice: return "choice ids separated by commas, each once, from \(ids)"
        case .trueFalse: return "true or false"
        case .numeric: return "a decimal number such as 3.14"
        case .shortText, .essay: return "text of at most \(maxLength(of: question)) characters"
        }
    }

    /// True when `answer` is a valid answer to `question`.
    public static func isValid(_ answer: JSONValue, for question: Question) -> Bool {
        let choiceIDs = Set((question.choices ?? []).map(\.id))
        switch question.type {
        case .singleChoice:
            return answer.stringValue.map(choiceIDs.contains) ?? false
        case .multipleChoice:
            guard let values = answer.arrayValue, !values.isEmpty else { return false }
            let ids = values.compactMap(\.stringValue)
            return ids.count == values.count && Set(ids).count == ids.count && ids.allSatisfy(choiceIDs.contains)
        case .trueFalse:
            return answer.boolValue != nil
        case .numeric:
            return answer.numberValue?.isFinite ?? false
        case .shortText, .essay:
            guard let text = answer.stringValue else { return false }
            return text.contains { !$0.isWhitespace } && text.count <= maxLength(of: question)
        }
    }

    /// Nil when valid, else one sentence naming the question and what it accepts.
    public static func problem(with answer: JSONValue, for question: Question) -> String? {
        isValid(answer, for: question)
            ? nil : "That answer does not fit question \(question.id). Accepted: \(accepted(by: question))."
    }
}

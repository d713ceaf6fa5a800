import Foundation

/// What a valid answer is, per question type: one rule for both sides. The client's parser turns typed text into a
/// value and asks this; the server checks every uploaded value with the same function.
public enum AnswerRules {
    /// Text limits when a question sets no `max_length`, in characters.
    public static let defaultShortTextLimit = 1_000
    public static let defaultEssayLimit = 20_000

    public static func maxLength(of question: Question) -> Int {
        switch question.body {
        case .essay(let essay): essay.maxLength ?? defaultEssayLimit
        case .shortText(let text): text.maxLength ?? defaultShortTextLimit
        case .singleChoice, .multipleChoice, .trueFalse, .numeric, .matching, .ordering, .fillInBlanks: defaultShortTextLimit
        }
    }

    /// What the question accepts, in words a student can act on.
    public static func accepted(by question: Question) -> String {
        switch question.body {
        case .singleChoice(let body): return "one of \(body.choices.map(\.id).joined(separator: ", "))"
        case .multipleChoice(let body): return "choice ids separated by commas, each once, from \(body.choices.map(\.id).joined(separator: ", "))"
        case .trueFalse: return "true or false"
        case .numeric: return "a decimal number such as 3.14"
        case .shortText, .essay: return "text of at most \(maxLength(of: question)) characters"
        case .matching: return "pairs of a left number and a right letter, such as 1c 2a"
        case .ordering: return "every item's letter once, in your order, such as c a b"
        case .fillInBlanks: return "one line per blank, in order (a choice blank takes its letter)"
        }
    }

    /// The longest text a blank takes.
    public static let blankLimit = 200

    /// A matching answer's pair `[left, right]`.
    public static func pair(_ value: JSONValue) -> (left: String, right: String)? {
        guard let parts = value.arrayValue, parts.count == 2, let left = parts[0].stringValue, let right = parts[1].stringValue else { return nil }
        return (left, right)
    }

    /// True when `answer` is a valid answer to `question`.
    public static func isValid(_ answer: JSONValue, for question: Question) -> Bool {
        switch question.body {
        case .singleChoice(let body):
            return answer.stringValue.map { id in body.choices.contains { $0.id == id } } ?? false
        case .multipleChoice(let body):
            guard let values = answer.arrayValue, !values.isEmpty else { return false }
            let ids = values.compactMap(\.stringValue)
            let choiceIDs = Set(body.choices.map(\.id))
            return ids.count == values.count && Set(ids).count == ids.count && ids.allSatisfy(choiceIDs.contains)
        case .trueFalse:
            return answer.boolValue != nil
        case .numeric:
            return answer.numberValue?.isFinite ?? false
        case .shortText, .essay:
            guard let text = answer.stringValue else { return false }
            return text.contains { !$0.isWhitespace } && text.count <= maxLength(of: question)
        case .matching(let body):
            guard let values = answer.arrayValue, !values.isEmpty else { return false }
            let pairs = values.compactMap(pair)
            let left = Set(body.left.map(\.id))
            let right = Set(body.right.map(\.id))
            return pairs.count == values.count && Set(pairs.map(\.left)).count == pairs.count
                && pairs.allSatisfy { left.contains($0.left) && right.contains($0.right) }
        case .ordering(let body):
            guard let values = answer.arrayValue else { return false }
            let ids = values.compactMap(\.stringValue)
            return ids.count == values.count && ids.count == body.items.count && Set(ids) == Set(body.items.map(\.id))
        case .fillInBlanks(let body):
            guard case .object(let values) = answer, !values.isEmpty else { return false }
            let blanks = Dictionary(body.blanks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            return values.allSatisfy { id, value in
                guard let blank = blanks[id], let text = value.stringValue else { return false }
                switch blank.kind {
                case .choice(let choices, _): return choices.contains { $0.id == text }
                case .text: return text.contains { !$0.isWhitespace } && text.count <= blankLimit
                }
            }
        }
    }

    /// Nil when valid, else one sentence naming the question and what it accepts.
    public static func problem(with answer: JSONValue, for question: Question) -> String? {
        isValid(answer, for: question)
            ? nil : "That answer does not fit question \(question.id). Accepted: \(accepted(by: question))."
    }
}

/// Which of two answers to one question is the current one: the later by the device's clock, to the millisecond, and
/// of two given in the same millisecond the greater id. The one rule, used by the server's batch plan; the vault's and
/// the server's SQL order by the same two columns through `sql` (ascending: the last row is the current answer).
public enum AnswerOrder {
    public static func isLater(_ answer: (milliseconds: Int64, id: String), than other: (milliseconds: Int64, id: String)) -> Bool {
        (answer.milliseconds, answer.id) > (other.milliseconds, other.id)
    }

    /// `ORDER BY` terms for a table whose answer time (integer milliseconds) and id are the columns named.
    public static func sql(time: String, id: String) -> String { "\(time), \(id)" }
}

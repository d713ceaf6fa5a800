import Foundation
import VaultAPI

/// Turns what a student typed into the JSON answer for a question, or says what is accepted.
public enum AnswerParser {
    /// The value for `text`, checked by `AnswerRules` (the rule the server applies too); a misfit says what the
    /// question accepts.
    public static func parse(_ text: String, for question: Question) throws -> JSONValue {
        let misfit = VaultError(
            .invalidData,
            "That answer does not fit question \(question.id). Accepted: \(AnswerRules.accepted(by: question))."
        )
        guard let value = candidate(text, for: question), AnswerRules.isValid(value, for: question) else { throw misfit }
        return value
    }

    /// Text to a value of the question's type, before the rules are applied; nil when it cannot be read as one.
    private static func candidate(_ text: String, for question: Question) -> JSONValue? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch question.type {
        case .singleChoice:
            return .string(trimmed)
        case .multipleChoice:
            let picked = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard Set(picked).count == picked.count else { return nil }
            // Stored in the question's order, so the same choice set is always the same answer.
            let order = (question.choices ?? []).map(\.id)
            guard picked.allSatisfy(order.contains) else { return nil }
            return .array(order.filter(picked.contains).map(JSONValue.string))
        case .trueFalse:
            switch trimmed.lowercased() {
            case "true", "t", "yes", "y": return .bool(true)
            case "false", "f", "no", "n": return .bool(false)
            default: return nil
            }
        case .numeric:
            guard trimmed.range(of: #"^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$"#, options: .regularExpression) != nil,
                let number = Double(trimmed.replacingOccurrences(of: ",", with: "."))
            else { return nil }
            return .number(number)
        case .shortText:
            return .string(trimmed)
        case .essay:
            return .string(text.trimmingCharacters(in: .newlines))
        }
    }

    /// How an answer reads back to the student.
    public static func display(_ answer: JSONValue, for question: Question) -> String {
        switch answer {
        case .string(let text): return text
        case .array(let values): return values.compactMap(\.stringValue).joined(separator: ", ")
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        default: return ""
        }
    }
}

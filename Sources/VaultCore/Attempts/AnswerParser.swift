import Foundation
import VaultAPI

/// Turns what a student typed into the JSON answer for a question, or says what is accepted.
public enum AnswerParser {
    public static func parse(_ text: String, for question: Question) throws -> JSONValue {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let choiceIDs = question.choices?.map(\.id) ?? []
        func reject(_ accepted: String) -> VaultError {
            VaultError(.invalidData, "That answer does not fit question \(question.id). Accepted: \(accepted).")
        }
        switch question.type {
        case .singleChoice:
            guard choiceIDs.contains(trimmed) else { throw reject("one of \(choiceIDs.joined(separator: ", "))") }
            return .string(trimmed)
        case .multipleChoice:
            let picked = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !picked.isEmpty, picked.allSatisfy(choiceIDs.contains), Set(picked).count == picked.count else {
                throw reject("choice ids separated by commas, each once, from \(choiceIDs.joined(separator: ", "))")
            }
            // Stored in the question's order, so the same choice set is always the same answer.
            return .array(choiceIDs.filter(picked.contains).map(JSONValue.string))
        case .trueFalse:
            switch trimmed.lowercased() {
            case "true", "t", "yes", "y": return .bool(true)
            case "false", "f", "no", "n": return .bool(false)
            default: throw reject("true or false")
            }
        case .numeric:
            guard let number = Double(trimmed.replacingOccurrences(of: ",", with: ".")), number.isFinite,
                trimmed.range(of: #"^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$"#, options: .regularExpression) != nil
            else { throw reject("a decimal number such as 3.14") }
            return .number(number)
        case .shortText, .essay:
            let limit = question.maxLength ?? (question.type == .essay ? 20_000 : 1_000)
            let value = question.type == .essay ? text.trimmingCharacters(in: .newlines) : trimmed
            guard !value.isEmpty else { throw reject("some text") }
            guard value.count <= limit else { throw reject("text of at most \(limit) characters (this has \(value.count))") }
            return .string(value)
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

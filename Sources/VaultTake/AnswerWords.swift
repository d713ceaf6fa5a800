import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

/// An answer in the letters and texts the student saw: "b) 5", "a) Oxygen, c) Nitrogen", "1 b) Paris; 2 a) Lima",
/// "[1] cat; [2] b) mat". The take screen says the whole answer with it after every change, and `vault results` the
/// student's answer and the correct one. Never an internal id or JSON.
public enum AnswerWords {
    /// `value` (an answer of `question`) in words.
    public static func text(_ value: JSONValue, for question: Question) -> String {
        let letters = TakeSession.letters
        switch question.body {
        case .singleChoice(let body), .multipleChoice(let body):
            let chosen = value.arrayValue?.compactMap(\.stringValue) ?? value.stringValue.map { [$0] } ?? []
            return chosen.compactMap { choice($0, in: body.choices) }.joined(separator: ", ")
        case .trueFalse:
            return value.boolValue.map { $0 ? tr("true") : tr("false") } ?? ""
        case .matching(let body):
            let left = body.left.map(\.id)
            let right = body.right
            return (value.arrayValue ?? []).compactMap(AnswerRules.pair).compactMap { pair -> String? in
                guard let number = left.firstIndex(of: pair.left), let position = right.firstIndex(where: { $0.id == pair.right }) else { return nil }
                return "\(number + 1) \(letters[position])) \(right[position].text)"
            }
            .joined(separator: "; ")
        case .ordering(let body):
            let items = body.items
            return (value.arrayValue ?? []).compactMap { $0.stringValue.flatMap { id in choice(id, in: items) } }.joined(separator: ", ")
        case .fillInBlanks(let body):
            guard case .object(let values) = value else { return "" }
            return body.blanks.compactMap { blank -> String? in
                guard let filled = values[blank.id]?.stringValue else { return nil }
                return "[\(blank.id)] " + (choice(filled, in: blank.options) ?? filled)
            }
            .joined(separator: "; ")
        case .numeric, .shortText, .essay:
            return AnswerParser.display(value, for: question)
        }
    }

    /// The correct answer a released result gives (`correct_answer`), in words; nil when there is none to show.
    /// Several accepted texts read "Paris or paris"; a catch-all pattern (`*`) is never shown as a correct answer.
    public static func correct(_ key: [JSONValue], for question: Question) -> String? {
        let words: String
        switch question.body {
        case .singleChoice, .trueFalse, .numeric, .fillInBlanks:
            words = key.first.map { text($0, for: question) } ?? ""
        case .multipleChoice, .matching, .ordering:
            words = text(.array(key), for: question)
        case .shortText, .essay:
            words = key.compactMap(\.stringValue).filter { !isCatchAll($0) }.joined(separator: " " + tr("or") + " ")
        }
        return words.isEmpty ? nil : words
    }

    /// A pattern that accepts any text (GIFT and Moodle's `*`), which is no answer to learn from.
    public static func isCatchAll(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return !trimmed.isEmpty && trimmed.allSatisfy { $0 == "*" }
    }

    /// "b) 5": the letter the student saw and the choice's text.
    private static func choice(_ id: String, in choices: [Choice]) -> String? {
        choices.firstIndex { $0.id == id }.map { "\(TakeSession.letters[$0])) \(choices[$0].text)" }
    }
}

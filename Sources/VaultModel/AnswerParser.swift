import Foundation
import VaultAPI
import VaultLanguage

/// Turns what a student typed into the JSON answer for a question, or says what is accepted.
public enum AnswerParser {
    /// The value for `text`, checked by `AnswerRules` (the rule the server applies too); a misfit says what the
    /// question accepts.
    public static func parse(_ text: String, for question: Question) throws -> JSONValue {
        let misfit = VaultError(.invalidData, misfitSentence(question))
        if case .numeric = question.body, case .ambiguous(let typed, let thousands, let decimal) = number(text) {
            // `1.000` or `1,000`: a thousand to one student, one to another. Asked, never saved as either (issue 71).
            throw VaultError(
                .invalidData,
                tr(
                    "{typed} could be {thousands} or {decimal}. Type it without a thousands separator: {thousands}, or {decimal}.",
                    ["typed": typed, "thousands": display(.number(thousands), for: question), "decimal": display(.number(decimal), for: question)]
                )
            )
        }
        guard let value = candidate(text, for: question), AnswerRules.isValid(value, for: question) else { throw misfit }
        return value
    }

    /// A number as a student types it, in any language's digits, with a decimal separator (`.` or `,`) and grouping
    /// separators (`.`, `,`, a space, the Arabic `٬`) in the right places: every group after the first of three
    /// digits, the decimal separator the last one and of another kind. One separator followed by exactly three digits
    /// reads two ways in the world's locales (`1.000` is a thousand in Spanish and one in English), so it is read by
    /// the student's language (`decimalSeparator`, the catalog's, as CLDR has it): its decimal separator makes a
    /// decimal (`3.141` in English, `3,141` in Spanish), the other Latin separator a thousand (`1,234` in English).
    /// `000` after it (`1.000`, `1,000`, `۱,۰۰۰`: nobody writes a fraction of zeros) and a Latin separator in a
    /// language whose own is neither (Persian `٫`) are `ambiguous`: asked, never read as one of them.
    public enum NumberReading: Equatable {
        case value(Double)
        case ambiguous(typed: String, thousands: Double, decimal: Double)
        case notANumber
    }

    public static func number(_ text: String, decimalSeparator: Character = Language.traits.decimalSeparator) -> NumberReading {
        let typed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        // Persian and Arabic-Indic digits as 0-9 (their decimal separator as "."), the Arabic thousands sign kept as one.
        let digits = String(
            String.UnicodeScalarView(
                westernDigits(typed.replacingOccurrences(of: "\u{066C}", with: "\u{00A0}")).unicodeScalars.map { $0 == "\u{202F}" ? "\u{00A0}" : $0 }
            )
        )
        guard let match = digits.wholeMatch(of: /([+-]?)([0-9.,\u{00A0} ]*[0-9]|[.,][0-9]+)([eE][+-]?[0-9]+)?/) else { return .notANumber }
        let sign = String(match.1)
        let body = String(match.2)
        let exponent = String(match.3 ?? "")
        let separators = body.filter { !$0.isNumber }
        func double(_ plain: String) -> Double? { Double(sign + plain + exponent) }
        guard let last = separators.last else { return double(body).map(NumberReading.value) ?? .notANumber }
        var parts = body.split(separator: last, omittingEmptySubsequences: false).map(String.init)
        // Grouped only: every group after the first three digits; a single separator before three digits reads both ways.
        func grouped(_ text: String, by separator: Character) -> String? {
            let groups = text.split(separator: separator, omittingEmptySubsequences: false)
            guard let first = groups.first, (1...3).contains(first.count), groups.dropFirst().allSatisfy({ $0.count == 3 }) else { return nil }
            return groups.joined()
        }
        let kinds = Set(separators)
        if kinds.count == 1 {
            if separators.count > 1 || last == " " || last == "\u{00A0}" {
                return grouped(body, by: last).flatMap(double).map(NumberReading.value) ?? .notANumber
            }
            // One "." or ",": a decimal, unless exactly three digits follow a whole part (a whole part of 0 groups
            // nothing: 0,125 is a decimal); then the student's language decides, or the student is asked.
            let decimal = double(parts[0] + "." + parts[1])
            guard parts[1].count == 3, !parts[0].isEmpty, parts[0].first != "0", let thousands = double(parts.joined()), let decimal else {
                return decimal.map(NumberReading.value) ?? .notANumber
            }
            let latin: Set<Character> = [".", ","]
            if parts[1] == "000" || !latin.contains(decimalSeparator) {
                return .ambiguous(typed: typed, thousands: thousands, decimal: decimal)
            }
            return .value(last == decimalSeparator ? decimal : thousands)
        }
        // Two kinds: the last separator is the decimal one (once), the others group the whole part.
        guard [".", ","].contains(last), parts.count == 2 else { return .notANumber }
        let whole = parts.removeFirst()
        guard !whole.contains(last), let groupedWhole = grouped(whole, by: whole.first { !$0.isNumber } ?? " ") else { return .notANumber }
        return double(groupedWhole + "." + parts[0]).map(NumberReading.value) ?? .notANumber
    }

    /// What the question accepts, as the student reads it (the server says `AnswerRules.accepted` in English).
    static func misfitSentence(_ question: Question) -> String {
        let id = question.id
        switch question.body {
        case .singleChoice(let body):
            return tr(
                "That answer does not fit question {id}. Accepted: one of {ids}.",
                ["id": id, "ids": letters.prefix(body.choices.count).joined(separator: ", ")]
            )
        case .multipleChoice(let body):
            return tr(
                "That answer does not fit question {id}. Accepted: choice ids separated by commas, each once, from {ids}.",
                ["id": id, "ids": letters.prefix(body.choices.count).joined(separator: ", ")]
            )
        case .trueFalse: return tr("That answer does not fit question {id}. Accepted: true or false.", ["id": id])
        case .numeric: return tr("That answer does not fit question {id}. Accepted: a decimal number such as 3.14.", ["id": id])
        case .shortText, .essay:
            return trn(
                "That answer does not fit question {id}. Accepted: text of at most {n} character.",
                "That answer does not fit question {id}. Accepted: text of at most {n} characters.",
                AnswerRules.maxLength(of: question),
                ["id": id]
            )
        case .matching:
            return tr("That answer does not fit question {id}. Accepted: pairs of a left number and a right letter, such as 1c 2a.", ["id": id])
        case .ordering:
            return tr("That answer does not fit question {id}. Accepted: every item's letter once, in your order, such as c a b.", ["id": id])
        case .fillInBlanks:
            return tr("That answer does not fit question {id}. Accepted: one line per blank, in order (a choice blank takes its letter).", ["id": id])
        }
    }

    /// Text to a value of the question's type, before the rules are applied; nil when it cannot be read as one.
    private static func candidate(_ text: String, for question: Question) -> JSONValue? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch question.body {
        case .singleChoice(let body):
            return .string(choiceID(trimmed, in: body.choices))
        case .multipleChoice(let body):
            let picked = westernDigits(trimmed).split(separator: ",").map { choiceID($0.trimmingCharacters(in: .whitespaces), in: body.choices) }
                .filter { !$0.isEmpty }
            guard Set(picked).count == picked.count else { return nil }
            // Stored in the author's order (the same on every device, whatever order the student was shown), so the
            // same choice set is always the same answer.
            let order = question.inAuthorOrder.body.choices.map(\.id)
            guard picked.allSatisfy(order.contains) else { return nil }
            return .array(order.filter(picked.contains).map(JSONValue.string))
        case .trueFalse:
            let word = scriptVariants(trimmed.lowercased())
            if trueWords.contains(word) { return .bool(true) }
            if falseWords.contains(word) { return .bool(false) }
            return nil
        case .numeric:
            guard case .value(let value) = number(trimmed) else { return nil }
            return .number(value)
        case .shortText:
            return .string(trimmed)
        case .essay:
            return .string(text.trimmingCharacters(in: .newlines))
        case .matching(let body):
            // "1c 2a 3a": a left item by its number, a right item by its letter; stored in the left items' order.
            let (left, right) = (body.left, body.right)
            var pairs: [Int: String] = [:]
            // A left item's number in any script's digits (`۱b ۲a`, as a Persian keyboard types it).
            for token in westernDigits(trimmed).lowercased().split(whereSeparator: { $0 == " " || $0 == "," || $0 == "،" }) {
                guard let letter = token.last, let number = Int(token.dropLast()), left.indices.contains(number - 1),
                    let position = letters.firstIndex(of: String(letter)), position < right.count, pairs[number] == nil
                else { return nil }
                pairs[number] = right[position].id
            }
            guard !pairs.isEmpty else { return nil }
            return .array(pairs.keys.sorted().map { .array([.string(left[$0 - 1].id), .string(pairs[$0]!)]) })
        case .ordering(let body):
            // "c a b": the items' letters in the student's order.
            let items = body.items
            var ids: [JSONValue] = []
            for token in trimmed.lowercased().split(whereSeparator: { $0 == " " || $0 == "," }) {
                guard let position = letters.firstIndex(of: String(token)), position < items.count else { return nil }
                ids.append(.string(items[position].id))
            }
            return .array(ids)
        case .fillInBlanks(let body):
            // One line per blank, in order; a choice blank takes its letter; an empty line leaves that blank open.
            var values: [String: JSONValue] = [:]
            let lines = text.components(separatedBy: "\n")
            for (blank, line) in zip(body.blanks, lines) {
                let entry = line.trimmingCharacters(in: .whitespaces)
                guard !entry.isEmpty else { continue }
                switch blank.kind {
                case .choice(let choices, _):
                    guard let position = letters.firstIndex(of: entry.lowercased()), position < choices.count else { return nil }
                    values[blank.id] = .string(choices[position].id)
                case .text:
                    values[blank.id] = .string(entry)
                }
            }
            guard
                lines.count <= max(body.blanks.count, 1)
                    || lines.dropFirst(body.blanks.count).allSatisfy({
                        $0.trimmingCharacters(in: .whitespaces).isEmpty
                    })
            else { return nil }
            return .object(values)
        }
    }

    /// True and false in the words the screens ask in (the true/false sentence of each catalog), the yes and no of
    /// each language (issue 71: `sí`, `sim`, `oui`, `ndiyo`, `بله`, `نعم`), and their first letters where no language
    /// reads them the other way. Persian and Arabic words are kept in one spelling (`scriptVariants`): صحیح typed with
    /// the Persian ی or the Arabic ي is the same word.
    static let trueWords: Set<String> = Set(
        [
            "true", "t", "yes", "y", "verdadero", "cierto", "sí", "verdadeiro", "sim", "vrai", "oui", "v", "kweli", "ndiyo", "ndio",
            "صحيح", "درست", "بله", "آری", "آره", "نعم",
        ]
        .map(scriptVariants)
    )
    static let falseWords: Set<String> = Set(
        [
            "false", "f", "no", "n", "falso", "não", "nao", "faux", "non", "si kweli", "uongo", "hapana", "خطأ", "خطا", "نادرست", "غلط",
            "خیر", "نه", "لا", "خاطئ",
        ]
        .map(scriptVariants)
    )

    /// One spelling for the letters Persian and Arabic keyboards type differently: ي and ى as ی, ك as ک.
    static func scriptVariants(_ word: String) -> String {
        String(
            String.UnicodeScalarView(
                word.unicodeScalars.map { scalar -> Unicode.Scalar in
                    switch scalar.value {
                    case 0x064A, 0x0649: "\u{06CC}"
                    case 0x0643: "\u{06A9}"
                    default: scalar
                    }
                }
            )
        )
    }

    /// Persian and Arabic-Indic digits as 0-9, their decimal separator as ".", the Arabic comma as ",": what a
    /// student types in the digits their screen prints.
    public static func westernDigits(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.compactMap { scalar -> Unicode.Scalar? in
                    switch scalar.value {
                    case 0x06F0...0x06F9: Unicode.Scalar(scalar.value - 0x06F0 + 0x30)
                    case 0x0660...0x0669: Unicode.Scalar(scalar.value - 0x0660 + 0x30)
                    case 0x066B: "."
                    case 0x060C: ","
                    case 0x066C: nil  // the Arabic thousands separator
                    default: scalar
                    }
                }
            )
        )
    }

    /// A choice as the student names it: the letter they were shown (a, b, c, … by position in their own order),
    /// else a choice's id as the document spells it (scripts). A letter wins: with shuffled choices the letter is what
    /// the student read, and an id that happens to be a letter names another choice.
    static func choiceID(_ typed: String, in choices: [Choice]) -> String {
        if let position = letters.firstIndex(of: typed.lowercased()), position < choices.count { return choices[position].id }
        return typed
    }

    /// Letters by position: a, b, c, …
    public static let letters = (0..<26).map { String(UnicodeScalar(UInt8(97 + $0))) }

    /// How an answer reads back to the student.
    public static func display(_ answer: JSONValue, for question: Question) -> String {
        switch question.body {
        case .matching(let body):
            let left = body.left.map(\.id)
            let right = body.right.map(\.id)
            return (answer.arrayValue ?? []).compactMap(AnswerRules.pair).compactMap { pair in
                guard let number = left.firstIndex(of: pair.left), let position = right.firstIndex(of: pair.right) else { return nil }
                return "\(number + 1)\(letters[position])"
            }.joined(separator: " ")
        case .ordering(let body):
            let items = body.items.map(\.id)
            return (answer.arrayValue ?? []).compactMap { $0.stringValue.flatMap(items.firstIndex).map { letters[$0] } }.joined(separator: " ")
        case .fillInBlanks(let body):
            guard case .object(let values) = answer else { return "" }
            return body.blanks.compactMap { blank in
                guard let value = values[blank.id]?.stringValue else { return nil }
                let shown = blank.options.firstIndex { $0.id == value }.map { letters[$0] } ?? value
                return "[\(blank.id)] \(shown)"
            }.joined(separator: "; ")
        case .singleChoice, .multipleChoice, .trueFalse, .numeric, .shortText, .essay: break
        }
        switch answer {
        case .string(let text): return text
        case .array(let values): return values.compactMap(\.stringValue).joined(separator: ", ")
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        default: return ""
        }
    }
}

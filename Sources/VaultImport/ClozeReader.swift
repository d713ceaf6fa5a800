import Foundation
import VaultAPI

/// Moodle's embedded answers (cloze, `multianswer`): a text with sub-questions written `{1:SHORTANSWER:=Berlin~%50%Bonn}`,
/// `{2:MULTICHOICE:=red~blue}` or `{1:NUMERICAL:=4:0.1}`, taken as fill in the blanks: each sub-question becomes a
/// blank `[n]`, a short answer a text blank (its `%weights%` kept), a multiple choice a choice blank (with weights
/// when it has any), a number a text blank accepting the number as written. This syntax is Moodle's own small
/// language (not XML), read here; the surrounding HTML has already been made text.
enum ClozeReader {
    /// The prompt with `[1]`, `[2]`… and the blanks; a sub-question this cannot take skips the whole question.
    static func read(_ text: String, notes: inout [String], name: String) throws -> (prompt: String, blanks: [Blank]) {
        var prompt = ""
        var blanks: [Blank] = []
        var marks: [Double] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            guard let close = closing(rest, from: open) else { throw ItemSkip(reason: "a sub-question is not closed with }") }
            let body = String(rest[rest.index(after: open)..<close])
            let parts = body.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            // Braces that are not a sub-question ({} in maths, say) stay as they are.
            guard parts.count == 3, let type = kind(String(parts[1])) else {
                prompt += rest[...close]
                rest = rest[rest.index(after: close)...]
                continue
            }
            prompt += rest[..<open]
            let id = String(blanks.count + 1)
            marks.append(Double(parts[0].trimmingCharacters(in: .whitespaces)).flatMap { $0 > 0 ? $0 : nil } ?? 1)
            blanks.append(try blank(id: id, type: type, answers: String(parts[2])))
            prompt += "[\(id)]"
            rest = rest[rest.index(after: close)...]
        }
        prompt += rest
        guard !blanks.isEmpty else { throw ItemSkip(reason: "it has no embedded answers {n:TYPE:…}") }
        if Set(marks).count > 1 {
            notes.append("\(name): its gaps carry different marks in Moodle; here each gap counts the same.")
        }
        return (prompt.trimmingCharacters(in: .whitespacesAndNewlines), blanks)
    }

    enum Kind { case text, choice, number }

    static func kind(_ word: String) -> Kind? {
        switch word.trimmingCharacters(in: .whitespaces).uppercased() {
        case "SHORTANSWER", "SA", "MW", "SHORTANSWER_C", "SAC", "MWC": .text
        case "MULTICHOICE", "MC", "MULTICHOICE_V", "MCV", "MULTICHOICE_H", "MCH", "MULTICHOICE_S", "MCS", "MULTICHOICE_VS", "MCVS",
            "MULTICHOICE_HS", "MCHS":
            .choice
        case "NUMERICAL", "NM": .number
        default: nil
        }
    }

    static func blank(id: String, type: Kind, answers: String) throws -> Blank {
        let entries = split(answers)
        guard !entries.isEmpty else { throw ItemSkip(reason: "gap \(id) has no answers") }
        switch type {
        case .choice:
            guard entries.count >= 2, entries.contains(where: { $0.weight > 0 }) else {
                throw ItemSkip(reason: "gap \(id) needs two choices and one that earns marks")
            }
            let weighted = entries.contains { $0.weight != 0 && $0.weight != 1 }
            let choices = entries.enumerated().map { offset, entry in
                Choice(id: ImportSupport.choiceID(offset), text: entry.text, weight: weighted ? entry.weight : nil)
            }
            let best = entries.enumerated().max { $0.element.weight < $1.element.weight }?.offset ?? 0
            return Blank(id: id, choices: choices, answer: choices[best].id)
        case .text, .number:
            let accepted = entries.filter { $0.weight > 0 }
            guard accepted.contains(where: { $0.weight >= 1 }) else { throw ItemSkip(reason: "gap \(id) has no answer with full marks") }
            let texts = accepted.map { type == .number ? String($0.text.split(separator: ":").first ?? "") : $0.text }
            var weights: [String: Double] = [:]
            for (text, entry) in zip(texts, accepted) where entry.weight < 1 { weights[text] = weights[text] ?? entry.weight }
            var tolerances: [String: Double]?
            if type == .number {
                // `4:0.1`: compared as a number, within its tolerance.
                var numbers: [String: Double] = [:]
                for (text, entry) in zip(texts, accepted) {
                    guard Double(text) != nil else { throw ItemSkip(reason: "gap \(id)'s answer \(text) is not a number") }
                    let parts = entry.text.split(separator: ":")
                    numbers[text] = numbers[text] ?? (parts.count > 1 ? Double(parts[1]).map(abs) ?? 0 : 0)
                }
                tolerances = numbers
            }
            return Blank(id: id, kind: .text(accepted: texts, weights: weights.isEmpty ? nil : weights, tolerances: tolerances))
        }
    }

    /// `=right~%50%half~wrong`, each with an optional `#feedback`; `\` escapes the next character.
    static func split(_ answers: String) -> [(text: String, weight: Double)] {
        var entries: [(String, Double)] = []
        var current = ""
        var escaped = false
        var pieces: [String] = []
        for character in answers {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "~" {
                pieces.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        pieces.append(current)
        for piece in pieces {
            var text = Substring(piece)
            var weight = 0.0
            if text.hasPrefix("=") {
                weight = 1
                text = text.dropFirst()
            } else if text.hasPrefix("%"), let end = text.dropFirst().firstIndex(of: "%") {
                weight = min(1, max(-1, (Double(text[text.index(after: text.startIndex)..<end]) ?? 0) / 100))
                text = text[text.index(after: end)...]
            }
            if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { entries.append((trimmed, weight)) }
        }
        return entries
    }

    /// The `}` that closes the brace at `open`, skipping escaped ones.
    static func closing(_ text: Substring, from open: Substring.Index) -> Substring.Index? {
        var index = text.index(after: open)
        while index < text.endIndex {
            if text[index] == "\\" {
                index = text.index(after: index)
                if index < text.endIndex { index = text.index(after: index) }
                continue
            }
            if text[index] == "}" { return index }
            index = text.index(after: index)
        }
        return nil
    }
}

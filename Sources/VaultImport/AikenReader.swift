import Foundation
import VaultAPI

/// Aiken: a question's text, its options `A. text` or `A) text` one per line, then `ANSWER: X`. Single choice only.
enum AikenReader {
    static func read(_ text: String) throws -> ImportReport {
        var report = ImportReport()
        // As Moodle imports Aiken: every question's choices (and a matching question's options) shuffled for each student.
        report.shuffleChoices = true
        var prompt: [String] = []
        var options: [(letter: String, text: String)] = []
        var startLine = 1
        for (offset, raw) in text.components(separatedBy: .newlines).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let number = offset + 1
            if line.isEmpty {
                if options.isEmpty, prompt.isEmpty { startLine = number + 1 }
                continue
            }
            if line.uppercased().hasPrefix("ANSWER:") {
                let answer = line.dropFirst("ANSWER:".count).trimmingCharacters(in: .whitespaces).uppercased()
                let name = "question at line \(startLine)"
                if prompt.isEmpty || options.count < 2 {
                    report.skipped.append(.init(item: name, reason: "it needs a question and at least two options before ANSWER:"))
                } else if let index = options.firstIndex(where: { $0.letter.uppercased() == answer }) {
                    let choices = options.enumerated().map { Choice(id: ImportSupport.choiceID($0.offset), text: $0.element.text) }
                    report.add(
                        Question(
                            id: "q",
                            prompt: prompt.joined(separator: "\n"),
                            points: 1,
                            body: .singleChoice(.init(choices: choices, answerKey: [.string(choices[index].id)]))
                        )
                    )
                } else {
                    report.skipped.append(.init(item: name, reason: "ANSWER: \(answer) names none of its options"))
                }
                prompt = []
                options = []
                startLine = number + 1
                continue
            }
            if let found = option(line), !prompt.isEmpty {
                options.append(found)
            } else if options.isEmpty {
                prompt.append(line)
            } else {
                throw ImportError("Line \(number) is neither an option (A. text) nor ANSWER: X, so this is not an Aiken file as written.")
            }
        }
        if !prompt.isEmpty || !options.isEmpty {
            report.skipped.append(.init(item: "question at line \(startLine)", reason: "it has no ANSWER: line"))
        }
        return report
    }

    /// `A. text` or `A) text`: the letter and the text; nil for any other line. Read by Unicode scalars: a
    /// pattern's match ranges could split a character (a space followed by a combining mark is one), and mapping
    /// them back to the string trapped (found by the import_readers fuzz target; the input is a regression).
    static func option(_ line: String) -> (letter: String, text: String)? {
        let scalars = Array(line.unicodeScalars)
        guard scalars.count >= 3, scalars[0].isASCII, scalars[0].properties.isAlphabetic, scalars[1] == "." || scalars[1] == ")",
            scalars[2].properties.isWhitespace
        else { return nil }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars[3...].drop { $0.properties.isWhitespace })
        return (String(scalars[0]), String(text))
    }

    /// An Aiken file has `ANSWER:` lines and nothing that looks like another format.
    static func looksLike(_ text: String) -> Bool {
        // Line by line (a multi-line pattern's `^\\s*` ran across runs of blank lines, quadratic in them).
        text.split(whereSeparator: \.isNewline).contains { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("ANSWER:") else { return false }
            let letter = trimmed.dropFirst("ANSWER:".count).trimmingCharacters(in: .whitespaces)
            return letter.count == 1 && letter.first.map { $0.isASCII && $0.isLetter } == true
        }
    }
}

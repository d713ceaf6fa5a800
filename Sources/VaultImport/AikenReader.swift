import Foundation
import VaultAPI

/// Aiken: a question's text, its options `A. text` or `A) text` one per line, then `ANSWER: X`. Single choice only.
enum AikenReader {
    static func read(_ text: String) throws -> (questions: [Question], skipped: [ImportResult.Skipped]) {
        var questions: [Question] = []
        var skipped: [ImportResult.Skipped] = []
        var prompt: [String] = []
        var options: [(letter: String, text: String)] = []
        var startLine = 1
        let option = try NSRegularExpression(pattern: "^([A-Za-z])[.)]\\s+(.*)$")
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
                    skipped.append(.init(item: name, reason: "it needs a question and at least two options before ANSWER:"))
                } else if let index = options.firstIndex(where: { $0.letter.uppercased() == answer }) {
                    let choices = options.enumerated().map { Choice(id: ImportSupport.choiceID($0.offset), text: $0.element.text) }
                    questions.append(
                        Question(
                            id: "q\(questions.count + 1)",
                            type: .singleChoice,
                            prompt: prompt.joined(separator: "\n"),
                            points: 1,
                            choices: choices,
                            answerKey: [.string(choices[index].id)]
                        )
                    )
                } else {
                    skipped.append(.init(item: name, reason: "ANSWER: \(answer) names none of its options"))
                }
                prompt = []
                options = []
                startLine = number + 1
                continue
            }
            let range = NSRange(line.startIndex..., in: line)
            if let match = option.firstMatch(in: line, range: range), !prompt.isEmpty {
                options.append((String(line[Range(match.range(at: 1), in: line)!]), String(line[Range(match.range(at: 2), in: line)!])))
            } else if options.isEmpty {
                prompt.append(line)
            } else {
                throw ImportError("Line \(number) is neither an option (A. text) nor ANSWER: X, so this is not an Aiken file as written.")
            }
        }
        if !prompt.isEmpty || !options.isEmpty {
            skipped.append(.init(item: "question at line \(startLine)", reason: "it has no ANSWER: line"))
        }
        return (questions, skipped)
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

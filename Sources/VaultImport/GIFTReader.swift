import Foundation
import VaultAPI

/// Moodle's GIFT text format: `// comments`, `::title::`, a question's text and its answers in `{…}`. Read here:
/// essays `{}`, true/false `{T}` `{TRUE}` `{F}` `{FALSE}`, multiple choice `{=right ~wrong}` and weighted
/// `{~%50%a ~%50%b ~%-100%c}`, short answer `{=a =b}`, numeric `{#3.14:0.01}`, `{#1..2}` and `{#=3:0 =%50%3.1:0.1}`,
/// text before and after the answers (the blank shown as _____), `[html]` / `[markdown]` / `[plain]` text formats,
/// feedback `#…` (dropped: a terminal test gives none), `$CATEGORY:` (flattened) and the escapes `\~ \= \# \{ \} \:`.
/// Matching `{=item -> match …}` pairs left items with right ones (scored per pair).
enum GIFTReader {
    static func read(_ text: String) throws -> ImportReport {
        var report = ImportReport()
        // As Moodle imports GIFT: every question's choices (and a matching question's options) shuffled for each student.
        report.shuffleChoices = true
        var missingAlt = 0
        for block in blocks(text) {
            let name = block.title.map { "\"\($0)\"" } ?? "question at line \(block.line)"
            do {
                guard let question = try question(block, missingAlt: &missingAlt, notes: &report.notes, name: name) else { continue }
                report.add(question)
            } catch let skip as ItemSkip {
                report.skipped.append(.init(item: name, reason: skip.reason))
            }
        }
        if missingAlt > 0 { report.notes.append(ImportSupport.missingAltNote(missingAlt)) }
        return report
    }

    struct Block {
        var line: Int
        var title: String?
        var body: String
    }

    /// Questions are separated by blank lines; comments and categories are dropped.
    static func blocks(_ text: String) -> [Block] {
        var blocks: [Block] = []
        var lines: [String] = []
        var start = 1
        func flush() {
            let body = lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            lines = []
            guard !body.isEmpty else { return }
            var block = Block(line: start, title: nil, body: body)
            if body.hasPrefix("::"), let end = body.range(of: "::", range: body.index(body.startIndex, offsetBy: 2)..<body.endIndex) {
                block.title = unescape(String(body[body.index(body.startIndex, offsetBy: 2)..<end.lowerBound])).trimmingCharacters(in: .whitespaces)
                block.body = String(body[end.upperBound...]).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            blocks.append(block)
        }
        for (offset, line) in text.components(separatedBy: .newlines).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("//") || trimmed.hasPrefix("$CATEGORY:") { continue }
            if trimmed.isEmpty {
                flush()
                start = offset + 2
            } else {
                if lines.isEmpty { start = offset + 1 }
                lines.append(line)
            }
        }
        flush()
        return blocks
    }

    /// The index of the first unescaped `character` from `start`.
    static func unescaped(_ character: Character, in text: [Character], from start: Int) -> Int? {
        var index = start
        while index < text.count {
            if text[index] == "\\" {
                index += 2
                continue
            }
            if text[index] == character { return index }
            index += 1
        }
        return nil
    }

    static func unescape(_ text: String) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                result.append(character == "n" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// Text in its format: `[html]` markup removed, `[markdown]` and `[plain]` kept as written.
    static func prose(_ raw: String, missingAlt: inout Int) -> String {
        var text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        var html = false
        for format in ["[html]", "[markdown]", "[plain]", "[moodle]"] where text.lowercased().hasPrefix(format) {
            html = format == "[html]"
            text = String(text.dropFirst(format.count))
        }
        let plain = unescape(text)
        return html ? ImportSupport.text(fromHTML: plain, missingAlt: &missingAlt) : ImportSupport.tidy(plain)
    }

    static func question(_ block: Block, missingAlt: inout Int, notes: inout [String], name: String) throws -> Question? {
        let characters = Array(block.body)
        guard let open = unescaped("{", in: characters, from: 0) else {
            // Text alone is a description in GIFT, not a question.
            throw ItemSkip(reason: "it has no answers in { } (a description, not a question)")
        }
        guard let close = unescaped("}", in: characters, from: open + 1) else { throw ItemSkip(reason: "its { has no closing }") }
        let before = prose(String(characters[..<open]), missingAlt: &missingAlt)
        let after = prose(String(characters[(close + 1)...]), missingAlt: &missingAlt)
        let prompt = after.isEmpty ? before : before + " _____ " + after
        guard !prompt.isEmpty else { throw ItemSkip(reason: "it has no question text") }
        let answers = String(characters[(open + 1)..<close]).trimmingCharacters(in: .whitespacesAndNewlines)
        return Question(id: "q", prompt: prompt, points: 1, body: try body(answers))
    }

    /// The question's body from what its braces hold.
    static func body(_ answers: String) throws -> QuestionBody {
        let upper = answers.uppercased().components(separatedBy: "#")[0].trimmingCharacters(in: .whitespaces)
        if answers.isEmpty { return .essay(.init(maxLength: 20_000)) }
        if ["T", "TRUE", "F", "FALSE"].contains(upper) { return .trueFalse(.init(answerKey: [.bool(upper.hasPrefix("T"))])) }
        if answers.hasPrefix("#") { return .numeric(try numeric(String(answers.dropFirst()))) }
        if answers.contains("->") { return .matching(try matching(answers)) }
        let entries = try choices(answers)
        guard !entries.isEmpty else { throw ItemSkip(reason: "its answers are neither =right nor ~wrong") }
        if entries.allSatisfy(\.right) {
            // Short answer: every answer accepted, `=%50%text` for half credit.
            let weights = Dictionary(
                entries.compactMap { entry in entry.weight.flatMap { $0 == 100 ? nil : (entry.text, Self.share($0)) } },
                uniquingKeysWith: { first, _ in first }
            )
            return .shortText(.init(maxLength: 200, acceptedAnswers: entries.map(\.text), acceptedAnswerWeights: weights.isEmpty ? nil : weights))
        }
        let weighted = entries.contains { $0.weight != nil }
        let choices = entries.enumerated().map { offset, entry in
            Choice(
                id: ImportSupport.choiceID(offset),
                text: entry.text,
                weight: weighted ? Self.share(entry.weight ?? (entry.right ? 100 : 0)) : nil
            )
        }
        let right = entries.enumerated().filter { $0.element.right || ($0.element.weight ?? 0) > 0 }.map { choices[$0.offset].id }
        guard !right.isEmpty else { throw ItemSkip(reason: "none of its answers is marked right (= or a positive %weight%)") }
        // `=` marks the one right answer of a single-answer question (other answers may earn part of it); without
        // one, a single 100% answer is one too, and anything else is a multiple-answer question.
        let full = entries.enumerated().filter { $0.element.right || ($0.element.weight ?? 0) >= 100 }.map { choices[$0.offset].id }
        if entries.contains(where: \.right) || (full.count == 1 && right.count == 1) {
            return .singleChoice(.init(choices: choices, answerKey: [.string(full.first ?? right[0])]))
        }
        return .multipleChoice(.init(choices: choices, answerKey: right.map { .string($0) }))
    }

    /// A GIFT or Moodle percentage as a weight in [-1, 1].
    static func share(_ percent: Double) -> Double { min(1, max(-1, percent / 100)) }

    struct Entry {
        var right: Bool
        var weight: Double?
        var text: String
    }

    /// `=text`, `~text`, `~%50%text`, each with an optional `#feedback`.
    static func choices(_ answers: String) throws -> [Entry] {
        var entries: [Entry] = []
        let characters = Array(answers)
        var index = 0
        while index < characters.count {
            let mark = characters[index]
            guard mark == "=" || mark == "~" else {
                if mark.isWhitespace {
                    index += 1
                    continue
                }
                throw ItemSkip(reason: "its answers are neither =right nor ~wrong")
            }
            var end = index + 1
            while end < characters.count {
                if characters[end] == "\\" {
                    end += 2
                    continue
                }
                if characters[end] == "=" || characters[end] == "~" { break }
                end += 1
            }
            var raw = String(characters[(index + 1)..<min(end, characters.count)])
            var weight: Double?
            if raw.hasPrefix("%"), let close = raw.dropFirst().firstIndex(of: "%") {
                weight = Double(raw[raw.index(after: raw.startIndex)..<close])
                raw = String(raw[raw.index(after: close)...])
            }
            let feedback = unescaped("#", in: Array(raw), from: 0)
            // An answer's `[html]`, `[markdown]` or `[plain]` is its format, not its text.
            var ignored = 0
            let text = prose(feedback.map { String(Array(raw)[..<$0]) } ?? raw, missingAlt: &ignored)
            entries.append(Entry(right: mark == "=", weight: weight, text: text))
            index = end
        }
        return entries
    }

    /// `=left -> right` pairs: left items in order, right items the distinct answers in order of first use.
    static func matching(_ answers: String) throws -> QuestionBody.Matching {
        var pairs: [(item: String, match: String)] = []
        for entry in try choices(answers) {
            let parts = entry.text.components(separatedBy: "->")
            guard entry.right, parts.count == 2 else { throw ItemSkip(reason: "its pairs are not all written =item -> match") }
            pairs.append((parts[0].trimmingCharacters(in: .whitespaces), parts[1].trimmingCharacters(in: .whitespaces)))
        }
        guard let (left, right, key) = ImportSupport.matching(pairs) else {
            throw ItemSkip(reason: "a matching question needs pairs with at least two different matches")
        }
        return .init(left: left, right: right, answerKey: key)
    }

    /// `3.14:0.01`, `1..2`, or `=3.14:0 =%50%3.1:0.1` (the first full-marks answer counts).
    static func numeric(_ body: String) throws -> QuestionBody.Numeric {
        var spec = body.trimmingCharacters(in: .whitespaces)
        if spec.hasPrefix("=") {
            let answers = spec.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            spec = answers.first { !$0.hasPrefix("%") || $0.hasPrefix("%100%") }.map { $0.replacingOccurrences(of: "%100%", with: "") } ?? ""
        }
        spec = spec.components(separatedBy: "#")[0].trimmingCharacters(in: .whitespaces)
        if let range = spec.range(of: "..") {
            guard let low = Double(spec[..<range.lowerBound]), let high = Double(spec[range.upperBound...]), low <= high else {
                throw ItemSkip(reason: "its numeric range \(spec) is not two numbers low..high")
            }
            return .init(answerKey: [.number((low + high) / 2)], tolerance: (high - low) / 2)
        }
        let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
        guard let value = parts.first.flatMap(Double.init) else { throw ItemSkip(reason: "its numeric answer \(spec) is not a number") }
        return .init(answerKey: [.number(value)], tolerance: parts.count > 1 ? Double(parts[1]) ?? 0 : 0)
    }

    /// GIFT has answer blocks in braces and usually `::titles::`.
    static func looksLike(_ text: String) -> Bool {
        // A `{` with a `}` after it, found in one pass (a pattern over many `{` and no `}` was quadratic).
        guard let open = text.firstIndex(of: "{") else { return false }
        return text[open...].contains("}")
    }
}

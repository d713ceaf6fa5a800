import Foundation
import VaultAPI

/// Moodle XML (`<quiz><question type="…">`): categories flattened, questions in file order. Read: multichoice
/// (single and multiple; fractions other than 0 and 100 become choice weights), truefalse, shortanswer (answers with a
/// positive fraction accepted, partial ones weighted), numerical (with its tolerance), essay, matching, ordering,
/// ddwtos and gapselect (choice blanks), cloze / multianswer (`ClozeReader`: fill in the blanks), base64 `<file>`
/// pictures as media. Skipped and named: description, drag and drop onto images, calculated and every other type.
enum MoodleXMLReader {
    static func read(_ root: MarkupElement) throws -> ImportReport {
        guard root.name == "quiz" else { throw ImportError("This XML is not a Moodle quiz (its root is <\(root.name)>, not <quiz>).") }
        var report = ImportReport()
        var missingAlt = 0
        for (offset, element) in root.all("question").enumerated() {
            let type = element.attributes["type"] ?? ""
            let name = element.value("name").map { "\"\($0)\"" } ?? "question \(offset + 1)"
            if type == "category" {
                if report.title == nil, let path = element.value("category") { report.title = path.split(separator: "/").last.map(String.init) }
                continue
            }
            let html = element.child("questiontext")?.attributes["format"].map { $0 == "html" || $0 == "moodle_auto_format" } ?? true
            let raw = element.value("questiontext") ?? ""
            var prompt = html ? ImportSupport.text(fromHTML: raw, missingAlt: &missingAlt) : ImportSupport.tidy(raw)
            let points = element.value("defaultgrade").flatMap(Double.init) ?? 1
            guard !prompt.isEmpty || type == "description" else {
                report.skipped.append(.init(item: name, reason: "it has no question text"))
                continue
            }
            let answers = element.all("answer").map { answer in
                (
                    text: (answer.child("text")?.text ?? answer.text).trimmingCharacters(in: .whitespacesAndNewlines),
                    fraction: Double(answer.attributes["fraction"] ?? "0") ?? 0, answer: answer
                )
            }
            let body: QuestionBody
            switch type {
            case "multichoice":
                let single = (element.value("single") ?? "true") != "false"
                // Fractions other than 0 and 100 are partial credit: every choice then carries its weight.
                let weighted = answers.contains { $0.fraction != 0 && $0.fraction != 100 }
                let choices = answers.enumerated().map { entry in
                    Choice(
                        id: ImportSupport.choiceID(entry.offset),
                        text: ImportSupport.text(fromHTML: entry.element.text, missingAlt: &missingAlt),
                        weight: weighted ? GIFTReader.share(entry.element.fraction) : nil
                    )
                }
                let right = answers.enumerated().filter { $0.element.fraction > 0 }.map { choices[$0.offset].id }
                guard choices.count >= 2, !right.isEmpty else {
                    report.skipped.append(.init(item: name, reason: "it needs two choices and one with a positive fraction"))
                    continue
                }
                let keyed =
                    single ? answers.enumerated().filter { $0.element.fraction >= 100 }.map { choices[$0.offset].id }.prefix(1).map { $0 } : right
                let key = QuestionBody.Choices(choices: choices, answerKey: (keyed.isEmpty ? [right[0]] : keyed).map { .string($0) })
                body = single ? .singleChoice(key) : .multipleChoice(key)
            case "truefalse":
                guard let right = answers.first(where: { $0.fraction >= 100 }) else {
                    report.skipped.append(.init(item: name, reason: "neither true nor false has full marks"))
                    continue
                }
                body = .trueFalse(.init(answerKey: [.bool(right.text.lowercased() == "true")]))
            case "shortanswer":
                let accepted = answers.filter { $0.fraction > 0 }.map(\.text)
                guard answers.contains(where: { $0.fraction >= 100 }) else {
                    report.skipped.append(.init(item: name, reason: "no answer has full marks"))
                    continue
                }
                let weights = Dictionary(
                    answers.filter { $0.fraction > 0 && $0.fraction < 100 }.map { ($0.text, GIFTReader.share($0.fraction)) },
                    uniquingKeysWith: { first, _ in first }
                )
                if accepted.contains(where: { $0.contains("*") }) {
                    report.notes.append("\(name): the wildcard * is compared as written (not as any text).")
                }
                body = .shortText(.init(maxLength: 200, acceptedAnswers: accepted, acceptedAnswerWeights: weights.isEmpty ? nil : weights))
            case "numerical":
                guard let right = answers.first(where: { $0.fraction >= 100 }), let value = Double(right.text) else {
                    report.skipped.append(.init(item: name, reason: "no full-marks answer is a number"))
                    continue
                }
                body = .numeric(.init(answerKey: [.number(value)], tolerance: right.answer.value("tolerance").flatMap(Double.init) ?? 0))
            case "essay":
                body = .essay(.init(maxLength: 20_000))
            case "description":
                report.skipped.append(.init(item: name, reason: "a description is not a question"))
                continue
            case "matching":
                let pairs = element.all("subquestion").map { sub in
                    (
                        item: ImportSupport.text(fromHTML: sub.child("text")?.text ?? "", missingAlt: &missingAlt),
                        match: (sub.child("answer")?.child("text")?.text ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                    )
                }
                guard let (left, right, key) = ImportSupport.matching(pairs) else {
                    report.skipped.append(.init(item: name, reason: "a matching question needs pairs with at least two different matches"))
                    continue
                }
                body = .matching(.init(left: left, right: right, answerKey: key))
            case "ordering":
                let items = answers.enumerated().map {
                    Choice(id: ImportSupport.choiceID($0.offset), text: ImportSupport.text(fromHTML: $0.element.text, missingAlt: &missingAlt))
                }
                guard items.count >= 2 else {
                    report.skipped.append(.init(item: name, reason: "an ordering question needs at least two items"))
                    continue
                }
                // Moodle lists the items in the right order; the student sees them shuffled by a fixed rotation.
                body = .ordering(.init(items: Array(items.dropFirst()) + [items[0]], answerKey: items.map { .string($0.id) }))
            case "ddwtos", "gapselect":
                guard let blanks = gaps(element, prompt: &prompt, kind: type == "ddwtos" ? "dragbox" : "selectoption") else {
                    report.skipped.append(.init(item: name, reason: "its gaps [[n]] do not name its choices"))
                    continue
                }
                body = .fillInBlanks(.init(blanks: blanks))
            case "multianswer", "cloze":
                do {
                    let (text, blanks) = try ClozeReader.read(prompt, notes: &report.notes, name: name)
                    prompt = text
                    body = .fillInBlanks(.init(blanks: blanks))
                } catch let skip as ItemSkip {
                    report.skipped.append(.init(item: name, reason: skip.reason))
                    continue
                }
            default:
                report.skipped.append(.init(item: name, reason: "\(type.isEmpty ? "an untyped" : type) question cannot be taken in a terminal"))
                continue
            }
            var question = Question(id: "q", prompt: prompt, points: points > 0 ? points : 1, body: body)
            // Moodle's <shuffleanswers> per question (its default, 1, where absent); an ordering question is always
            // shuffled (the rotation above is only its order with shuffling turned off).
            let shuffles = element.value("shuffleanswers").map { ["1", "true"].contains($0.lowercased()) } ?? true
            if type == "ordering" || shuffles { question.shuffle = true }
            question.media = media(element.child("questiontext"), html: raw)
            report.add(question)
        }
        if missingAlt > 0 { report.notes.append(ImportSupport.missingAltNote(missingAlt)) }
        return report
    }

    /// `[[n]]` gaps (drag-and-drop words, select missing words): each gap becomes a choice blank whose choices are
    /// those of the right choice's group and whose answer is choice n; the prompt shows the gaps as [1], [2], ….
    static func gaps(_ element: MarkupElement, prompt: inout String, kind: String) -> [Blank]? {
        let options = element.all(kind).map { option in
            (text: (option.child("text")?.text ?? "").trimmingCharacters(in: .whitespacesAndNewlines), group: option.value("group") ?? "1")
        }
        let pattern = try! NSRegularExpression(pattern: "\\[\\[(\\d+)\\]\\]")
        var blanks: [Blank] = []
        var text = prompt
        for match in pattern.matches(in: prompt, range: NSRange(prompt.startIndex..., in: prompt)).reversed() {
            guard let number = Int(prompt[Range(match.range(at: 1), in: prompt)!]), options.indices.contains(number - 1) else { return nil }
            let group = options[number - 1].group
            let members = options.enumerated().filter { $0.element.group == group }
            let choices = members.enumerated().map { Choice(id: ImportSupport.choiceID($0.offset), text: $0.element.element.text) }
            guard let right = members.firstIndex(where: { $0.offset == number - 1 }), choices.count >= 2 else { return nil }
            blanks.insert(Blank(id: "", choices: choices, answer: choices[right].id), at: 0)
            text.replaceSubrange(Range(match.range, in: text)!, with: "[#gap#]")
        }
        guard !blanks.isEmpty else { return nil }
        for index in blanks.indices {
            blanks[index].id = "\(index + 1)"
            if let range = text.range(of: "[#gap#]") { text.replaceSubrange(range, with: "[\(index + 1)]") }
        }
        prompt = text
        return blanks
    }

    /// Moodle's base64 `<file>`s of a question text, each with the alt text of the `<img>` that shows it.
    static func media(_ text: MarkupElement?, html: String) -> [Media]? {
        let files = (text?.all("file") ?? []).filter { ($0.attributes["encoding"] ?? "") == "base64" }
        guard !files.isEmpty else { return nil }
        // Each <img>'s alt text by the file name its src ends in (`@@PLUGINFILE@@/name.png`): one pass over the tags,
        // one lookup per file.
        var altByName: [String: String] = [:]
        for case .tag(let tag) in HTMLTags.pieces(html) where tag.name == "img" && !tag.closing {
            guard let source = tag.attribute("src") else { continue }
            let name = String((source.removingPercentEncoding ?? source).split(separator: "/").last ?? "")
            if altByName[name] == nil { altByName[name] = tag.attribute("alt") ?? "" }
        }
        return files.compactMap { file in
            let name = file.attributes["name"] ?? "file"
            let data = file.text.filter { !$0.isWhitespace }
            guard Data(base64Encoded: data) != nil else { return nil }
            let alt = altByName[name] ?? ""
            let type = name.lowercased().hasSuffix(".png") ? "image/png" : name.lowercased().hasSuffix(".gif") ? "image/gif" : "image/jpeg"
            return Media(name: name, mimeType: type, data: data, alt: alt)
        }
    }
}

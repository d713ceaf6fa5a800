import Foundation
import VaultAPI

/// Moodle XML (`<quiz><question type="…">`): categories flattened, questions in file order. Read: multichoice
/// (single and multiple, by fraction), truefalse, shortanswer (full-marks answers accepted), numerical (with its
/// tolerance), essay. Skipped and named: description, matching, ddwtos, gapselect, multianswer (cloze), calculated
/// and every other type, which the terminal cannot take yet.
enum MoodleXMLReader {
    static func read(_ root: MarkupElement) throws -> (questions: [Question], skipped: [ImportResult.Skipped], notes: [String], title: String?) {
        guard root.name == "quiz" else { throw ImportError("This XML is not a Moodle quiz (its root is <\(root.name)>, not <quiz>).") }
        var questions: [Question] = []
        var skipped: [ImportResult.Skipped] = []
        var notes: [String] = []
        var title: String?
        var missingAlt = 0
        for (offset, element) in root.all("question").enumerated() {
            let type = element.attributes["type"] ?? ""
            let name = element.value("name").map { "\"\($0)\"" } ?? "question \(offset + 1)"
            if type == "category" {
                if title == nil, let path = element.value("category") { title = path.split(separator: "/").last.map(String.init) }
                continue
            }
            let html = element.child("questiontext")?.attributes["format"].map { $0 == "html" || $0 == "moodle_auto_format" } ?? true
            let raw = element.value("questiontext") ?? ""
            let prompt = html ? ImportSupport.text(fromHTML: raw, missingAlt: &missingAlt) : ImportSupport.tidy(raw)
            let points = element.value("defaultgrade").flatMap(Double.init) ?? 1
            var question = Question(id: "q\(questions.count + 1)", type: .essay, prompt: prompt, points: points > 0 ? points : 1)
            guard !prompt.isEmpty || type == "description" else {
                skipped.append(.init(item: name, reason: "it has no question text"))
                continue
            }
            let answers = element.all("answer").map { answer in
                (
                    text: (answer.child("text")?.text ?? answer.text).trimmingCharacters(in: .whitespacesAndNewlines),
                    fraction: Double(answer.attributes["fraction"] ?? "0") ?? 0, answer: answer
                )
            }
            switch type {
            case "multichoice":
                let single = (element.value("single") ?? "true") != "false"
                let choices = answers.enumerated().map { entry in
                    Choice(id: ImportSupport.choiceID(entry.offset), text: ImportSupport.text(fromHTML: entry.element.text, missingAlt: &missingAlt))
                }
                let right = answers.enumerated().filter { $0.element.fraction > 0 }.map { choices[$0.offset].id }
                guard choices.count >= 2, !right.isEmpty else {
                    skipped.append(.init(item: name, reason: "it needs two choices and one with a positive fraction"))
                    continue
                }
                question.choices = choices
                question.type = single ? .singleChoice : .multipleChoice
                question.answerKey =
                    (single
                    ? answers.enumerated().filter { $0.element.fraction >= 100 }.map { choices[$0.offset].id }.prefix(1).map { $0 }
                    : right).map { .string($0) }
                if question.answerKey?.isEmpty ?? true { question.answerKey = [.string(right[0])] }
                if answers.contains(where: { $0.fraction > 0 && $0.fraction < 100 }) {
                    notes.append("\(name): partial credit (fractions) is scored all or nothing: every right choice and no other.")
                }
            case "truefalse":
                guard let right = answers.first(where: { $0.fraction >= 100 }) else {
                    skipped.append(.init(item: name, reason: "neither true nor false has full marks"))
                    continue
                }
                question.type = .trueFalse
                question.answerKey = [.bool(right.text.lowercased() == "true")]
            case "shortanswer":
                let accepted = answers.filter { $0.fraction >= 100 }.map(\.text)
                guard !accepted.isEmpty else {
                    skipped.append(.init(item: name, reason: "no answer has full marks"))
                    continue
                }
                if accepted.contains(where: { $0.contains("*") }) {
                    notes.append("\(name): the wildcard * is compared as written (not as any text).")
                }
                question.type = .shortText
                question.maxLength = 200
                question.acceptedAnswers = accepted
            case "numerical":
                guard let right = answers.first(where: { $0.fraction >= 100 }), let value = Double(right.text) else {
                    skipped.append(.init(item: name, reason: "no full-marks answer is a number"))
                    continue
                }
                question.type = .numeric
                question.answerKey = [.number(value)]
                question.tolerance = right.answer.value("tolerance").flatMap(Double.init) ?? 0
            case "essay":
                question.type = .essay
                question.maxLength = 20_000
            case "description":
                skipped.append(.init(item: name, reason: "a description is not a question"))
                continue
            case "matching", "ddwtos", "gapselect", "multianswer", "ordering":
                skipped.append(.init(item: name, reason: "\(type) questions cannot be taken in the terminal yet"))
                continue
            default:
                skipped.append(.init(item: name, reason: "\(type.isEmpty ? "an untyped" : type) question cannot be taken in a terminal"))
                continue
            }
            questions.append(question)
        }
        if missingAlt > 0 { notes.append("\(missingAlt) picture(s) have no description (alt text); add one so every student can follow.") }
        return (questions, skipped, notes, title)
    }
}

import Foundation
import VaultAPI
import VaultCore
import VaultTake
import VaultTerminal

/// How the take screen shows what its session says. Two: the visual screen, and the screen-reader mode.
protocol TakeRenderer: AnyObject {
    func startScreen(_ session: TakeSession, limit: Duration)
    func question(_ session: TakeSession, note: String?, time: AttemptTimeStatus)
    func say(_ text: String)
    func essayPrompt(time: AttemptTimeStatus)
    func blankPrompt(_ session: TakeSession, index: Int, time: AttemptTimeStatus)
    func askSubmit(unanswered: Int)
    func clock(_ remaining: Duration)
    func announce(_ remaining: Duration)
}

extension TakeRenderer {
    var columns: Int { min(DisplayWidth.terminalColumns, 100) }

    func write(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }

    /// A sentence (or several lines), wrapped to the terminal; the assessment's text in it can never drive the
    /// terminal (`TerminalText`).
    func say(_ text: String) { write(DisplayWidth.wrapped(TerminalText.visible(text), width: columns - 1) + "\n") }

    func startScreen(_ session: TakeSession, limit: Duration) {
        let assessment = session.attempt.assessment
        say(assessment.title)
        if let description = assessment.description { say(description) }
        say(
            "\(Plural.count(session.count, "question")). Time limit: \(TakeTimeText.spoken(limit)) (any extra time you were given is included). "
                + "The clock starts when you answer yes and keeps running until you submit, even if you leave."
        )
        write("Start now? [y/N] ")
    }

    /// "Blank [2] of 3 (a) red  b) blue): ": the blank's place, and its choices when it has some.
    func blankPrompt(_ session: TakeSession, index: Int, time: AttemptTimeStatus) {
        write((time.remaining.map { TakeTimeText.spoken($0) + " left. " } ?? "") + Self.blankPromptText(session.question, index: index))
    }

    static func blankPromptText(_ question: Question, index: Int) -> String {
        guard let blanks = question.blanks, index < blanks.count else { return "> " }
        let blank = blanks[index]
        let choices = blank.choices.map { " (" + zip(TakeSession.letters, $0).map { "\($0)) \($1.text)" }.joined(separator: "  ") + ")" } ?? ""
        return TerminalText.visible("Blank [\(blank.id)], \(index + 1) of \(blanks.count)\(choices): ")
    }

    func askSubmit(unanswered: Int) {
        say(
            unanswered > 0
                ? "\(Plural.count(unanswered, "question is", plural: "questions are")) unanswered. Submit anyway? [y/N]"
                : "Submit now? You cannot change answers afterwards. [y/N]"
        )
    }

    /// The instruction for a question's type, as a sentence.
    static func instruction(_ question: Question) -> String {
        switch question.type {
        case .singleChoice: "Type the letter of one choice."
        case .multipleChoice: "Type a letter to choose it or take it back, or several letters separated by commas."
        case .trueFalse: "Answer t for true or f for false."
        case .numeric: "Type a number."
        case .shortText: "Type your answer" + (question.maxLength.map { " (at most \($0) characters)" } ?? "") + "."
        case .essay:
            "Type your answer; every line is saved when you press Enter, and a line with only . finishes it"
                + (question.maxLength.map { " (at most \($0) characters)" } ?? "") + "."
        case .matching: "Pair each numbered item with a letter, such as 1c 2a; pairs add to those you gave, and 1- clears item 1."
        case .ordering: "Type every letter once, in your order, such as c a b."
        case .fillInBlanks: "Fill the blanks one by one: type each blank's text, or a choice blank's letter, and press Enter."
        }
    }

    /// The lines that show a question's items: choices, matching's two lists, ordering's items, the blanks' choices.
    static func itemLines(_ question: Question, current: JSONValue?) -> [String] {
        itemTexts(question, current: current).map { TerminalText.visible($0) }
    }

    private static func itemTexts(_ question: Question, current: JSONValue?) -> [String] {
        let letters = TakeSession.letters
        switch question.type {
        case .matching:
            let paired = Dictionary(
                (current?.arrayValue ?? []).compactMap(AnswerRules.pair).map { ($0.left, $0.right) },
                uniquingKeysWith: { a, _ in a }
            )
            let right = question.right ?? []
            var lines = (question.left ?? []).enumerated().map { offset, item in
                let choice = paired[item.id].flatMap { id in right.firstIndex { $0.id == id } }.map { " -> \(letters[$0])" } ?? ""
                return "  \(offset + 1). \(item.text)\(choice)"
            }
            lines += zip(letters, right).map { "  \($0)) \($1.text)" }
            return lines
        case .ordering:
            return zip(letters, question.items ?? []).map { "  \($0)) \($1.text)" }
        case .fillInBlanks:
            return (question.blanks ?? []).compactMap { blank in
                guard let choices = blank.choices else { return nil }
                return "  [\(blank.id)] " + zip(letters, choices).map { "\($0)) \($1.text)" }.joined(separator: "  ")
            }
        default:
            return []
        }
    }
}

/// Time said in words: "12 minutes", "1 minute", "40 seconds".
/// The visual screen: each question on a cleared screen with a live countdown on line 2 (on a terminal), or the
/// same text appended (from a pipe).
final class VisualTakeRenderer: TakeRenderer {
    let console: Console
    let interactive: Bool

    init(console: Console, interactive: Bool) {
        self.console = console
        self.interactive = interactive
    }

    func question(_ session: TakeSession, note: String?, time: AttemptTimeStatus) {
        let width = columns
        let question = session.question
        var text = interactive ? "\u{1B}[2J\u{1B}[H" : ""
        let position = "  —  Question \(session.index + 1) of \(session.count)"
        // The title is cut by display width (wide and right-to-left scripts), so the header fits its line.
        let title = DisplayWidth.truncated(TerminalText.visible(session.attempt.assessment.title), to: width - DisplayWidth.of(position))
        text += console.bold(title) + position + "\n"
        text += (time.remaining.map { "time left \(AttemptTimeStatus.clockText($0))" } ?? "") + "\n"
        text += String(repeating: "─", count: min(width, 80)) + "\n"
        let flag = session.attempt.flagged.contains(question.id) ? " [flagged]" : ""
        text += DisplayWidth.wrapped(TerminalText.visible(question.prompt) + flag, width: width - 1) + "\n\n"
        let current = session.attempt.answers[question.id]
        switch question.type {
        case .singleChoice, .multipleChoice:
            let selected = Set(current?.arrayValue?.compactMap(\.stringValue) ?? current?.stringValue.map { [$0] } ?? [])
            for (letter, choice) in zip(TakeSession.letters, question.choices ?? []) {
                let mark =
                    question.type == .multipleChoice ? (selected.contains(choice.id) ? "[x]" : "[ ]") : (selected.contains(choice.id) ? "(*)" : "( )")
                let lines = DisplayWidth.wrap(TerminalText.visible(choice.text), width: width - 10)
                text += "  \(mark) \(letter)) " + lines.joined(separator: "\n         ") + "\n"
            }
            text += "\n" + Self.instruction(question) + "\n"
        case .trueFalse, .numeric:
            text +=
                Self.instruction(question) + (current.map { "  Current: \(TerminalText.visible(AnswerParser.display($0, for: question)))" } ?? "")
                + "\n"
        case .matching, .ordering, .fillInBlanks:
            for line in Self.itemLines(question, current: current) { text += DisplayWidth.wrapped(line, width: width - 1) + "\n" }
            text += "\n" + DisplayWidth.wrapped(Self.instruction(question), width: width - 1) + "\n"
            if let current { text += "Current: \(TerminalText.visible(AnswerParser.display(current, for: question)))\n" }
        case .shortText, .essay:
            text += DisplayWidth.wrapped(Self.instruction(question), width: width - 1) + "\n"
            if let current {
                text += "Current answer" + (question.type == .essay ? " (:e continues it)" : "") + ":\n"
                text += DisplayWidth.wrapped(TerminalText.visible(AnswerParser.display(current, for: question)), width: width - 1) + "\n"
            }
        }
        text += "\n" + (note.map { DisplayWidth.wrapped(TerminalText.visible($0), width: width - 1) + "\n" } ?? "")
        text += question.type == .fillInBlanks ? Self.blankPromptText(question, index: 0) : "> "
        write(text)
    }

    func essayPrompt(time: AttemptTimeStatus) { write("  ") }

    func clock(_ remaining: Duration) {
        guard interactive else { return }
        // Save the cursor, rewrite the clock line (line 2), restore the cursor.
        write("\u{1B}7\u{1B}[2;1H\u{1B}[Ktime left \(AttemptTimeStatus.clockText(remaining))\u{1B}8")
    }

    func announce(_ remaining: Duration) {}
}

/// The screen-reader mode: append-only. No cursor movement, no line rewritten in place, no colour, no box drawing;
/// each question said once as sentences; what went wrong first, hints last; the time left said at each prompt and
/// at 10, 5 and 1 minutes left.
final class AccessibleTakeRenderer: TakeRenderer {
    private var spokenQuestion: Int?

    func question(_ session: TakeSession, note: String?, time: AttemptTimeStatus) {
        if let note { say(note) }
        if spokenQuestion != session.index {
            spokenQuestion = session.index
            let question = session.question
            var sentences = ["Question \(session.index + 1) of \(session.count)."]
            if session.attempt.flagged.contains(question.id) { sentences.append("You flagged this question.") }
            say(sentences.joined(separator: " ") + " " + question.prompt)
            for (number, pair) in zip(TakeSession.letters, question.choices ?? []).enumerated() {
                say("Choice \(pair.0), \(number + 1) of \(question.choices?.count ?? 0): \(pair.1.text)")
            }
            for line in Self.itemLines(question, current: nil) { say(line.trimmingCharacters(in: .whitespaces)) }
            if let current = session.attempt.answers[question.id] {
                say("Your answer now: \(AnswerParser.display(current, for: question)).")
            }
            say(Self.instruction(question) + " Type ? for help.")
        }
        prompt(time, question: session.question)
    }

    func essayPrompt(time: AttemptTimeStatus) { prompt(time) }

    private func prompt(_ time: AttemptTimeStatus, question: Question? = nil) {
        let ask = question?.type == .fillInBlanks ? Self.blankPromptText(question!, index: 0) : "Your answer: "
        write((time.remaining.map { TakeTimeText.spoken($0) + " left. " } ?? "") + ask)
    }

    func clock(_ remaining: Duration) {}

    func announce(_ remaining: Duration) { write("\n" + TakeTimeText.spoken(remaining) + " left.\n") }
}

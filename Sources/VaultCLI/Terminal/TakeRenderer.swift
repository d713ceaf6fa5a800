import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultModel
import VaultTake
import VaultTerminal

/// What the take screen has written: everything goes to standard output through here, so the line being typed can
/// be drawn after the prompt it follows (`tail`, the text after the last newline).
final class TakeOutput {
    /// The text written since the last newline (the prompt a typed line follows).
    private(set) var tail = ""
    /// Counts the writes that moved the text on (a clock rewritten in place does not).
    private(set) var generation = 0

    /// Text that moves the screen on.
    func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
        generation += 1
        // By scalars: "\r\n" is one Character in Swift, and would not be found as "\n".
        let scalars = text.unicodeScalars
        if let newline = scalars.lastIndex(of: "\n") { tail = String(scalars[scalars.index(after: newline)...]) } else { tail += text }
    }

    /// Text drawn in place (the clock, the line being edited): the prompt and what follows it are unchanged.
    func writeInPlace(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
}

/// How the take screen shows what its session says. Two: the visual screen, and the screen-reader mode.
protocol TakeRenderer: AnyObject {
    var output: TakeOutput { get }
    func startScreen(_ session: TakeSession, limit: Duration)
    func question(_ session: TakeSession, note: String?, time: AttemptTimeStatus)
    func say(_ text: String)
    func essayPrompt(time: AttemptTimeStatus)
    func blankPrompt(_ session: TakeSession, index: Int, time: AttemptTimeStatus)
    func askSubmit(unanswered: Int)
    func clock(_ remaining: Duration)
    func announce(_ remaining: Duration)
    /// The screen is closing: leave the terminal as it was found.
    func finish()
}

extension TakeRenderer {
    var columns: Int { min(DisplayWidth.terminalColumns, 100) }

    func write(_ text: String) { output.write(text) }

    /// A sentence (or several lines), wrapped to the terminal; the assessment's text in it can never drive the
    /// terminal (`TerminalText`).
    func say(_ text: String) { write(Language.markedLines(DisplayWidth.wrapped(TerminalText.visible(text), width: columns - 1)) + "\n") }

    func startScreen(_ session: TakeSession, limit: Duration) {
        let assessment = session.attempt.assessment
        say(assessment.title)
        if let description = assessment.description { say(description) }
        say(
            trn(
                "{n} question. Time limit: {limit} (any extra time you were given is included). The clock starts when you answer yes and keeps running until you submit, even if you leave.",
                "{n} questions. Time limit: {limit} (any extra time you were given is included). The clock starts when you answer yes and keeps running until you submit, even if you leave.",
                session.count,
                ["limit": TakeTimeText.spoken(limit)]
            )
        )
        say(
            tr(
                "This attempt keeps a record your teacher sees: when you start, which questions you answer (never what you write), when you leave the exam screen, how many characters you paste, and when you hand in. `vault log` shows it to you."
            )
        )
        write(tr("Start now? [y/N]") + " ")
    }

    /// "Blank [2] of 3 (a) red  b) blue): ": the blank's place, and its choices when it has some.
    func blankPrompt(_ session: TakeSession, index: Int, time: AttemptTimeStatus) {
        write((time.remaining.map { Self.timeLeft($0) + " " } ?? "") + Self.blankPromptText(session.question, index: index))
    }

    static func blankPromptText(_ question: Question, index: Int) -> String {
        guard case .fillInBlanks(let body) = question.body, index < body.blanks.count else { return "> " }
        let blanks = body.blanks
        let blank = blanks[index]
        let options = blank.options
        let choices = options.isEmpty ? "" : " (" + zip(TakeSession.letters, options).map { "\($0)) \($1.text)" }.joined(separator: "  ") + ")"
        return TerminalText.visible(
            tr("Blank [{blank}], {number} of {count}{choices}:", ["blank": blank.id, "number": index + 1, "count": blanks.count, "choices": choices])
                + " "
        )
    }

    func askSubmit(unanswered: Int) {
        say(
            unanswered > 0
                ? trn("{n} question is unanswered. Submit anyway? [y/N]", "{n} questions are unanswered. Submit anyway? [y/N]", unanswered)
                : tr("Submit now? You cannot change answers afterwards. [y/N]")
        )
    }

    /// The prompt under a question: a fill-in-the-blanks question asks for its first blank until it is answered;
    /// once it is, the usual prompt (Enter moves on, typing fills the blanks again from the first).
    static func promptText(_ question: Question, answered: Bool) -> String {
        guard case .blanks = TakeSession.entry(for: question), !answered else { return "> " }
        return blankPromptText(question, index: 0)
    }

    /// "3 minutes left.": the time left as a sentence.
    static func timeLeft(_ remaining: Duration) -> String { tr("{time} left.", ["time": TakeTimeText.spoken(remaining)]) }

    /// The instruction for a question, as a sentence; an answered fill-in-the-blanks question says how to change it.
    static func instruction(_ question: Question, answered: Bool) -> String {
        guard case .fillInBlanks = question.body, answered else { return instruction(question) }
        return tr("Press Enter to go on, or type the first blank's answer to fill the blanks again.")
    }

    /// The instruction for a question's type, as a sentence.
    static func instruction(_ question: Question) -> String {
        switch question.body {
        case .singleChoice: tr("Type the letter of one choice.")
        case .multipleChoice: tr("Type a letter to choose it or take it back, or several letters separated by commas.")
        case .trueFalse: tr("Answer t for true or f for false.")
        case .numeric: tr("Type a number.")
        case .shortText(let body):
            body.maxLength.map { trn("Type your answer (at most {n} character).", "Type your answer (at most {n} characters).", $0) }
                ?? tr("Type your answer.")
        case .essay(let body):
            body.maxLength.map {
                trn(
                    "Type your answer; every line is saved when you press Enter, and a line with only . finishes it (at most {n} character).",
                    "Type your answer; every line is saved when you press Enter, and a line with only . finishes it (at most {n} characters).",
                    $0
                )
            } ?? tr("Type your answer; every line is saved when you press Enter, and a line with only . finishes it.")
        case .matching: tr("Pair each numbered item with a letter, such as 1c 2a; pairs add to those you gave, and 1- clears item 1.")
        case .ordering: tr("Type every letter once, in your order, such as c a b.")
        case .fillInBlanks: tr("Fill the blanks one by one: type each blank's text, or a choice blank's letter, and press Enter.")
        }
    }

    /// The lines that show a question's items: choices, matching's two lists, ordering's items, the blanks' choices.
    static func itemLines(_ question: Question, current: JSONValue?) -> [String] {
        itemTexts(question, current: current).map { TerminalText.visible($0) }
    }

    private static func itemTexts(_ question: Question, current: JSONValue?) -> [String] {
        let letters = TakeSession.letters
        switch question.body {
        case .matching(let body):
            let paired = Dictionary(
                (current?.arrayValue ?? []).compactMap(AnswerRules.pair).map { ($0.left, $0.right) },
                uniquingKeysWith: { a, _ in a }
            )
            let right = body.right
            var lines = body.left.enumerated().map { offset, item in
                let choice = paired[item.id].flatMap { id in right.firstIndex { $0.id == id } }.map { " -> \(letters[$0])" } ?? ""
                return "  \(offset + 1). \(item.text)\(choice)"
            }
            lines += zip(letters, right).map { "  \($0)) \($1.text)" }
            return lines
        case .ordering(let body):
            return zip(letters, body.items).map { "  \($0)) \($1.text)" }
        case .fillInBlanks(let body):
            return body.blanks.compactMap { blank in
                guard case .choice(let choices, _) = blank.kind else { return nil }
                return "  [\(blank.id)] " + zip(letters, choices).map { "\($0)) \($1.text)" }.joined(separator: "  ")
            }
        case .singleChoice, .multipleChoice, .trueFalse, .numeric, .shortText, .essay:
            return []
        }
    }
}

/// The visual screen: each question on a cleared screen under a pinned header (title and progress on row 1, the
/// clock on row 2, a rule on row 3) on a terminal, or the same text appended (from a pipe). Below the header a scroll
/// region holds the question and whatever the student types, so however far an essay or the help scrolls, the
/// header rows never move and the clock never paints over the student's text.
final class VisualTakeRenderer: TakeRenderer {
    let console: Console
    let interactive: Bool
    let output = TakeOutput()
    /// The rows the header takes; the scroll region starts below them.
    static let headerRows = 3
    /// Whether a scroll region is set (the terminal is tall enough for one).
    private var pinned = false

    /// How the question's pictures are drawn (`off`: their descriptions only), and in which colours.
    let pictures: PictureMode
    let pictureColors: PictureColors

    init(console: Console, interactive: Bool, pictures: PictureMode = .off, pictureColors: PictureColors = .none) {
        self.console = console
        self.interactive = interactive
        self.pictures = pictures
        self.pictureColors = pictureColors
    }

    func question(_ session: TakeSession, note: String?, time: AttemptTimeStatus) {
        let width = columns
        let question = session.question
        var text = ""
        let position = "  —  " + tr("Question {number} of {count}", ["number": session.index + 1, "count": session.count])
        // The title is cut by display width (wide and right-to-left scripts), so the header fits its line.
        let title = DisplayWidth.truncated(TerminalText.visible(session.attempt.assessment.title), to: width - DisplayWidth.of(position))
        let header = console.bold(title) + position
        let clock = time.remaining.map { clockLine($0) } ?? ""
        let rule = String(repeating: "─", count: min(width, 80))
        if interactive {
            let rows = DisplayWidth.terminalRows
            pinned = rows >= Self.headerRows + 5
            // Reset any region, clear, draw the header, then confine scrolling to the rows below it. Setting a region
            // homes the cursor, so the question starts on the first row of the region, placed explicitly.
            // Kitty keeps images apart from the text: the last question's picture is deleted with the screen.
            text += (pictures == .kitty ? "\u{1B}_Ga=d\u{1B}\\" : "") + "\u{1B}[r\u{1B}[2J\u{1B}[H" + header + "\r\n" + clock + "\r\n" + rule
            text += pinned ? "\u{1B}[\(Self.headerRows + 1);\(rows)r\u{1B}[\(Self.headerRows + 1);1H" : "\r\n"
        } else {
            text += header + "\n" + (time.remaining.map { Self.clockText($0) } ?? "") + "\n" + rule + "\n"
        }
        let flag = session.attempt.flagged.contains(question.id) ? " [" + tr("flagged") + "]" : ""
        let head = text
        text = ""
        text += DisplayWidth.wrapped(TerminalText.visible(question.prompt) + flag, width: width - 1) + "\n\n"
        // The pictures under the prompt, in the scroll region: they scroll with the question, never over the header;
        // drawn by chafa, so never marked or made visible as the document's text is.
        var drawn = ""
        if !QuestionPictures.images(question).isEmpty {
            let rows = interactive ? DisplayWidth.terminalRows - Self.headerRows : DisplayWidth.terminalRows
            drawn = QuestionPictures.text(question, mode: pictures, colors: pictureColors, columns: width, rows: rows) + "\n"
        }
        let prompt = text
        text = ""
        let current = session.attempt.answers[question.id]
        switch question.body {
        case .singleChoice(let body), .multipleChoice(let body):
            let selected = Set(current?.arrayValue?.compactMap(\.stringValue) ?? current?.stringValue.map { [$0] } ?? [])
            let boxes = TakeSession.entry(for: question) == .toggledChoices
            for (letter, choice) in zip(TakeSession.letters, body.choices) {
                let mark = boxes ? (selected.contains(choice.id) ? "[x]" : "[ ]") : (selected.contains(choice.id) ? "(*)" : "( )")
                let lines = DisplayWidth.wrap(TerminalText.visible(choice.text), width: width - 10)
                text += Language.marked("  \(mark) \(letter)) " + lines.joined(separator: "\n         ")) + "\n"
            }
            text += "\n" + DisplayWidth.wrapped(Self.instruction(question), width: width - 1) + "\n"
        case .trueFalse, .numeric:
            let current =
                current.map { "  " + tr("Current: {answer}", ["answer": TerminalText.visible(AnswerWords.text($0, for: question))]) } ?? ""
            text += DisplayWidth.wrapped(Self.instruction(question) + current, width: width - 1) + "\n"
        case .matching, .ordering, .fillInBlanks:
            for line in Self.itemLines(question, current: current) { text += DisplayWidth.wrapped(Language.marked(line), width: width - 1) + "\n" }
            text += "\n" + DisplayWidth.wrapped(Self.instruction(question, answered: current != nil), width: width - 1) + "\n"
            if let current { text += tr("Current: {answer}", ["answer": TerminalText.visible(AnswerParser.display(current, for: question))]) + "\n" }
        case .shortText, .essay:
            text += DisplayWidth.wrapped(Self.instruction(question), width: width - 1) + "\n"
            if let current {
                text += (TakeSession.entry(for: question) == .essay ? tr("Current answer (:e continues it):") : tr("Current answer:")) + "\n"
                text += DisplayWidth.wrapped(TerminalText.visible(AnswerParser.display(current, for: question)), width: width - 1) + "\n"
            }
        }
        text += "\n" + (note.map { DisplayWidth.wrapped(TerminalText.visible($0), width: width - 1) + "\n" } ?? "")
        // Right to left: every line of the question marked, so a bidi-aware terminal lays each out right to left.
        write(head + Language.markedLines(prompt) + drawn + Language.markedLines(text) + Self.promptText(question, answered: current != nil))
    }

    func essayPrompt(time: AttemptTimeStatus) { write("  ") }

    /// "time left 03:06"; in the last minute marked in red, and with words too (NO_COLOR, or a terminal without colour).
    private func clockLine(_ remaining: Duration) -> String {
        guard remaining < .seconds(60) else { return Self.clockText(remaining) }
        let clock = Language.digits(AttemptTimeStatus.clockText(remaining))
        return console.red(
            console.color
                ? tr("time left {clock} — last minute", ["clock": clock]) : tr("time left {clock} — last minute: submit soon (:s)", ["clock": clock])
        )
    }

    /// "time left 03:06", in the language's words and digits.
    static func clockText(_ remaining: Duration) -> String {
        tr("time left {clock}", ["clock": Language.digits(AttemptTimeStatus.clockText(remaining))])
    }

    func clock(_ remaining: Duration) {
        guard interactive else { return }
        // Save the cursor, rewrite the clock's own row (outside the scroll region, so never the student's text),
        // restore the cursor.
        output.writeInPlace("\u{1B}7\u{1B}[2;1H\u{1B}[2K\(clockLine(remaining))\u{1B}8")
    }

    func announce(_ remaining: Duration) {}

    func finish() {
        guard interactive, pinned else { return }
        // The whole screen scrolls again; the cursor stays where it was (setting a region would home it).
        output.writeInPlace("\u{1B}7\u{1B}[r\u{1B}8")
        pinned = false
    }
}

/// The screen-reader mode: append-only. No cursor movement, no line rewritten in place, no colour, no box drawing;
/// each question said once as sentences; what went wrong first, hints last; the time left said at each prompt and
/// at 10, 5 and 1 minutes left.
final class AccessibleTakeRenderer: TakeRenderer {
    let output = TakeOutput()
    private var spokenQuestion: Int?

    func question(_ session: TakeSession, note: String?, time: AttemptTimeStatus) {
        if let note { say(note) }
        if spokenQuestion != session.index {
            spokenQuestion = session.index
            let question = session.question
            var sentences = [tr("Question {number} of {count}.", ["number": session.index + 1, "count": session.count])]
            if session.attempt.flagged.contains(question.id) { sentences.append(tr("You flagged this question.")) }
            say(sentences.joined(separator: " ") + " " + question.prompt)
            // A picture is never drawn here: its description is said instead.
            for (number, media) in QuestionPictures.images(question).enumerated() {
                say(QuestionPictures.caption(media, number: number + 1, count: QuestionPictures.images(question).count))
            }
            let choices = question.body.choices
            for (number, pair) in zip(TakeSession.letters, choices).enumerated() {
                let count = choices.count
                say(
                    tr("Choice {letter}, {number} of {count}: {text}", ["letter": pair.0, "number": number + 1, "count": count, "text": pair.1.text])
                )
            }
            for line in Self.itemLines(question, current: nil) { say(Language.marked(line.trimmingCharacters(in: .whitespaces))) }
            if let current = session.attempt.answers[question.id] {
                say(tr("Your answer now: {answer}.", ["answer": AnswerParser.display(current, for: question)]))
            }
            say(Self.instruction(question) + " " + tr("Type ? for help."))
        }
        prompt(time, question: session.question, answered: session.attempt.answers[session.question.id] != nil)
    }

    func essayPrompt(time: AttemptTimeStatus) { prompt(time) }

    private func prompt(_ time: AttemptTimeStatus, question: Question? = nil, answered: Bool = false) {
        let yourAnswer = tr("Your answer:") + " "
        let ask = question.map { Self.promptText($0, answered: answered) == "> " ? yourAnswer : Self.promptText($0, answered: answered) }
        write((time.remaining.map { Self.timeLeft($0) + " " } ?? "") + (ask ?? yourAnswer))
    }

    func clock(_ remaining: Duration) {}

    func finish() {}

    func announce(_ remaining: Duration) { write("\n" + Self.timeLeft(remaining) + "\n") }
}

import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

/// The take screen as a state machine: a value that takes one event at a time (a typed line, a clock tick, a
/// signal, a resize) and returns what to do, in order. It never waits and never touches the vault or the terminal:
/// the driver performs the effects (saving before the screen moves on) and feeds the next event. So nothing is ever
/// held while the student types, the clock keeps ticking in every mode, and tests drive it without a terminal.
public struct TakeSession: Sendable {
    public enum Mode: Sendable, Equatable {
        /// A timed test's start screen: the clock starts only on yes.
        case starting
        case question
        /// An essay being typed: every entered line is already saved as the question's draft.
        case essay(lines: [String])
        /// A fill-in-the-blanks question answered blank by blank: the lines so far, one per blank.
        case blanks(lines: [String])
        case confirmSubmit
        /// A line typed at an essay that already has a saved answer: replace it only when the student says so.
        case confirmReplace(String)
        case finished
    }

    public enum Signal: Sendable, Equatable {
        case interrupt, hangup, terminate

        /// What shells expect: 128 + the signal's number.
        public var exitStatus: Int32 {
            switch self {
            case .interrupt: 130
            case .hangup: 129
            case .terminate: 143
            }
        }
    }

    public enum Event: Sendable, Equatable {
        /// The driver is ready: the first event.
        case begin
        case line(String)
        /// The line being typed and not yet entered, as it stands now (the driver sends it within a second of the
        /// last key, and before a signal or the time running out), so an essay's unfinished line is never lost.
        case draft(String)
        /// Ctrl-D or a closed pipe.
        case endOfInput
        /// One second passed.
        case tick
        case signal(Signal)
        case resize
    }

    /// What the driver knows as it passes an event.
    public struct Now: Sendable, Equatable {
        /// The attempt's clock, as the vault measures it.
        public var time: AttemptTimeStatus
        /// Time since the session began, by the driver's clock (for the time spent on each answer).
        public var elapsed: Duration
        public init(time: AttemptTimeStatus, elapsed: Duration) {
            self.time = time
            self.elapsed = elapsed
        }
    }

    public enum Effect: Sendable, Equatable {
        /// Show the start screen of a timed test and ask whether to start.
        case showStartScreen
        case startClock
        /// Show the current question (the note first where the renderer says errors first).
        case showQuestion(note: String?)
        /// A sentence for the student.
        case say(String)
        /// Ask for the next line of an essay (the draft so far is saved).
        case promptEssayLine
        /// Ask for one blank of a fill-in-the-blanks question (its position among the blanks).
        case promptBlank(Int)
        /// Ask the y/N question before submitting.
        case askSubmit(unanswered: Int)
        /// Save an answer (or an essay's draft) durably before anything else is shown.
        case record(questionID: String, value: JSONValue, spentMilliseconds: Int)
        /// Save the position (and the clock's checkpoint).
        case saveProgress(currentQuestion: Int)
        case saveFlags(Set<String>)
        case submit
        /// Submit because the time ran out with the screen open: the attempt's record says "time up", as it does when
        /// the time runs out with no screen open (issue 71), never a hand-in the student chose.
        case submitAtTimeUp
        /// Rewrite the countdown (the visual screen only).
        case updateClock(Duration)
        /// Say how much time is left (10, 5 and 1 minutes before the end).
        case announceTime(Duration)
        case exit(Int32)
    }

    public private(set) var mode: Mode
    public private(set) var attempt: AttemptRecord
    public private(set) var index: Int
    private let needsStartConfirmation: Bool
    private var shownAt: Duration = .zero
    private var ticks = 0
    /// The essay whose first line, not yet entered, is being saved as its draft (until the line is entered).
    private var firstLineDraft: String?
    /// The line being handled began as the current essay's first-line draft.
    private var enteringDraft = false
    /// The last minute mark announced (10, 5, 1), so each is said once.
    private var announced: Int?

    /// Minutes before the end at which the time left is said.
    public static let announcements = [10, 5, 1]

    public init(attempt: AttemptRecord, needsStartConfirmation: Bool) {
        self.attempt = attempt
        self.needsStartConfirmation = needsStartConfirmation
        // Resuming where the student was, except on a saved essay (where a stray line could land): then on the first
        // question without an answer, if there is one.
        let questions = attempt.assessment.questions
        let was = min(max(attempt.currentQuestion, 0), max(questions.count - 1, 0))
        let onSavedEssay = questions.indices.contains(was) && Self.entry(for: questions[was]) == .essay && attempt.answers[questions[was].id] != nil
        index = onSavedEssay ? (questions.firstIndex { attempt.answers[$0.id] == nil } ?? was) : was
        mode = .question
    }

    public var question: Question { attempt.assessment.questions[index] }

    /// How the screen takes an answer, per type: the take screen's one table of types.
    public enum Entry: Sendable, Equatable {
        /// A letter picks the choice and moves on.
        case oneChoice
        /// A letter toggles a choice; the screen stays for more.
        case toggledChoices
        /// Pairs such as `1b`, added to those given.
        case pairs
        /// Lines until a line with a single `.`.
        case essay
        /// One line per blank.
        case blanks(count: Int)
        /// One line read as the answer.
        case line
    }

    public static func entry(for question: Question) -> Entry {
        switch question.body {
        case .singleChoice: .oneChoice
        case .multipleChoice: .toggledChoices
        case .matching: .pairs
        case .essay: .essay
        case .fillInBlanks(let body): .blanks(count: body.blanks.count)
        case .trueFalse, .numeric, .shortText, .ordering: .line
        }
    }

    private var entry: Entry { Self.entry(for: question) }
    public var count: Int { attempt.assessment.questions.count }
    public var isTimed: Bool { attempt.timeLimit != nil }

    public mutating func handle(_ event: Event, now: Now) -> [Effect] {
        if mode == .finished { return [] }
        switch event {
        case .signal(let signal): return leave(signal.exitStatus, say: signal != .hangup)
        case .begin: return begin(now)
        case .tick: return tick(now)
        case .resize: return mode == .question ? [.showQuestion(note: nil)] : []
        case .draft(let text): return draft(text, now: now)
        case .endOfInput:
            if mode == .starting { return stop(Self.notStarted, status: 0) }
            return leave(0, say: true)
        case .line(let line):
            // A line whose beginning was saved as the essay's first-line draft finishes that draft (no question asked).
            enteringDraft = firstLineDraft == question.id
            firstLineDraft = nil
            if mode != .starting, isTimed, now.time.hasRunOut { return timeUp() }
            switch mode {
            case .starting: return answerStart(line, now: now)
            case .question: return command(line, now: now)
            case .essay(let lines): return essayLine(line, lines: lines, now: now)
            case .blanks(let lines): return blankLine(line, lines: lines, now: now)
            case .confirmSubmit: return confirm(line)
            case .confirmReplace(let pending): return confirmReplace(line, pending: pending, now: now)
            case .finished: return []
            }
        }
    }

    // MARK: Beginning and ending

    private mutating func begin(_ now: Now) -> [Effect] {
        if needsStartConfirmation {
            mode = .starting
            return [.showStartScreen]
        }
        if isTimed, now.time.hasRunOut { return timeUp() }
        shownAt = now.elapsed
        skipMarks(now)
        return (isTimed ? [.startClock] : []) + continuedNote(now) + [.say(intro), .showQuestion(note: nil)]
    }

    /// An attempt begun on another device says so, once per opening, with the time its clock kept.
    private func continuedNote(_ now: Now) -> [Effect] {
        guard attempt.continuedAt != nil else { return [] }
        let started = attempt.time.startedAt.map { PeopleDates.dayAndClock($0) }
        let sentence =
            switch (started, now.time.remaining) {
            case (let at?, let left?):
                tr("You started this test on another device at {time}; {left} left.", ["time": at, "left": TakeTimeText.spoken(left)])
            case (let at?, nil): tr("You started this test on another device at {time}.", ["time": at])
            case (nil, let left?): tr("You started this test on another device; {left} left.", ["left": TakeTimeText.spoken(left)])
            case (nil, nil): tr("You started this test on another device.")
            }
        return [.say(sentence)]
    }

    private mutating func answerStart(_ line: String, now: Now) -> [Effect] {
        guard Self.isYes(line) else { return stop(Self.notStarted, status: 0) }
        mode = .question
        shownAt = now.elapsed
        skipMarks(now)
        return [.startClock, .say(intro), .showQuestion(note: nil)]
    }

    /// Marks the time left already passed when the screen opens are not announced (the prompt says the time).
    private mutating func skipMarks(_ now: Now) {
        guard let remaining = now.time.remaining else { return }
        announced = Self.announcements.last { remaining <= .seconds($0 * 60) }
    }

    public var intro: String {
        let title = attempt.assessment.title
        if attempt.answers.isEmpty {
            return trn(
                "{title}: {n} question. Type ? for help. Every answer is saved as you type it.",
                "{title}: {n} questions. Type ? for help. Every answer is saved as you type it.",
                count,
                ["title": title]
            )
        }
        return trn(
            "{title}: {n} question. Type ? for help. Every answer is saved as you type it. Resuming: {answered} answered so far.",
            "{title}: {n} questions. Type ? for help. Every answer is saved as you type it. Resuming: {answered} answered so far.",
            count,
            ["title": title, "answered": attempt.answers.count]
        )
    }

    public var savedMessage: String {
        isTimed
            ? tr("Saved. Come back with `vault take {id}`; the time keeps running while you are away.", ["id": attempt.assessment.id])
            : tr("Saved. Come back with `vault take {id}`.", ["id": attempt.assessment.id])
    }

    /// Leaves with everything saved (an essay's lines were saved as they were entered).
    private mutating func leave(_ status: Int32, say: Bool) -> [Effect] {
        if mode == .starting { return stop(Self.notStarted, status: status) }
        mode = .finished
        return [.saveProgress(currentQuestion: index)] + (say ? [.say(savedMessage)] : []) + [.exit(status)]
    }

    private mutating func stop(_ sentence: String, status: Int32) -> [Effect] {
        mode = .finished
        return [.say(sentence), .exit(status)]
    }

    private mutating func timeUp() -> [Effect] {
        let essay: Bool = if case .essay = mode { true } else { false }
        mode = .finished
        let saved = attempt.answers.count
        let sentence =
            essay
            ? trn(
                "Time is up. Your attempt was submitted with the {n} answer you saved, your essay as far as you had entered it; it will be uploaded with `vault sync`.",
                "Time is up. Your attempt was submitted with the {n} answers you saved, your essay as far as you had entered it; it will be uploaded with `vault sync`.",
                saved
            )
            : trn(
                "Time is up. Your attempt was submitted with the {n} answer you saved; it will be uploaded with `vault sync`.",
                "Time is up. Your attempt was submitted with the {n} answers you saved; it will be uploaded with `vault sync`.",
                saved
            )
        return [.saveProgress(currentQuestion: index), .submitAtTimeUp, .say(sentence), .exit(0)]
    }

    private mutating func tick(_ now: Now) -> [Effect] {
        guard mode != .starting, let remaining = now.time.remaining else { return [] }
        if now.time.hasRunOut { return timeUp() }
        ticks += 1
        var effects: [Effect] = [.updateClock(remaining)]
        if ticks % 5 == 0 { effects.append(.saveProgress(currentQuestion: index)) }
        // The smallest mark not above the time left; each said once, going down.
        if let mark = Self.announcements.last(where: { remaining <= .seconds($0 * 60) }), announced.map({ mark < $0 }) ?? true {
            announced = mark
            effects.append(.announceTime(remaining))
        }
        return effects
    }

    // MARK: Questions

    /// A line as a command reads it: `#۶` and `#٦` (Persian and Arabic-Indic digits, as a Persian or Arabic keyboard
    /// types them) as `#6`, and `؟` (the Persian and Arabic question mark, Shift-/ there) as `?` (issue 71). Only a
    /// line that starts like a command is changed; an answer is never read this way.
    static func commandForm(_ line: String) -> String {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard let first = trimmed.first, first == "#" || first == "؟" else { return trimmed }
        return AnswerParser.westernDigits(trimmed).replacingOccurrences(of: "؟", with: "?")
    }

    private mutating func command(_ line: String, now: Now) -> [Effect] {
        let command = Self.commandForm(line)
        switch command {
        case "", ">", ":n", ":next": return move(to: index + 1, now: now)
        case "<", ":p", ":prev": return move(to: index - 1, now: now)
        case "?", ":h", ":help": return [.showQuestion(note: Self.help)]
        case "!", ":f", ":flag":
            if attempt.flagged.contains(question.id) { attempt.flagged.remove(question.id) } else { attempt.flagged.insert(question.id) }
            return [
                .saveFlags(attempt.flagged),
                .showQuestion(note: attempt.flagged.contains(question.id) ? tr("Flagged for review.") : tr("Flag removed.")),
            ]
        case ":r", ":review": return [.showQuestion(note: review)]
        case ":q", ":quit": return leave(0, say: true)
        case ":s", ":submit":
            mode = .confirmSubmit
            return [.askSubmit(unanswered: attempt.unanswered.count)]
        case ":e", ":edit":
            guard entry == .essay else { return [.showQuestion(note: tr("Only an essay can be continued with :e."))] }
            let lines = attempt.answers[question.id]?.stringValue.map { $0.components(separatedBy: "\n") } ?? []
            mode = .essay(lines: lines)
            shownAt = now.elapsed
            return [.say(lines.isEmpty ? Self.essayHint : tr("Continuing your answer.") + " " + Self.essayHint), .promptEssayLine]
        default:
            if command.hasPrefix("#"), let number = Int(command.dropFirst()) {
                guard (1...count).contains(number) else {
                    return [.showQuestion(note: tr("There is no question {number}; choose 1 to {count}.", ["number": number, "count": count]))]
                }
                return move(to: number - 1, now: now)
            }
            if command.hasPrefix(":") { return [.showQuestion(note: tr("Unknown command {command}. Type ? for help.", ["command": command]))] }
            switch entry {
            case .essay:
                // A saved essay is never replaced by a stray line: the student says so first (:e continues it).
                if !enteringDraft, let saved = attempt.answers[question.id]?.stringValue, !saved.isEmpty {
                    mode = .confirmReplace(line)
                    let words = saved.split(whereSeparator: \.isWhitespace).count
                    return [
                        .say(
                            trn(
                                "Replace your saved essay of {n} word with this line? [y/N] (:e continues the essay instead.)",
                                "Replace your saved essay of {n} words with this line? [y/N] (:e continues the essay instead.)",
                                words
                            )
                        ), .promptEssayLine,
                    ]
                }
                return essayLine(line, lines: [], now: now)
            case .blanks: return blankLine(line, lines: [], now: now)
            case .oneChoice, .toggledChoices, .pairs, .line: return answer(line, now: now)
            }
        }
    }

    private mutating func move(to target: Int, now: Now) -> [Effect] {
        // Past either end the screen says where the student is and what to do, instead of doing nothing.
        if target >= count { return [.showQuestion(note: Self.lastQuestion)] }
        if target < 0 { return [.showQuestion(note: tr("This is the first question."))] }
        index = target
        shownAt = now.elapsed
        return [.saveProgress(currentQuestion: index), .showQuestion(note: nil)]
    }

    private mutating func answer(_ line: String, now: Now) -> [Effect] {
        // Anything that is not an answer (a letter out of range, a non-number, an over-long text) is said and asked
        // again: a typo never ends the test.
        let value: JSONValue
        do {
            let text =
                switch entry {
                case .oneChoice, .toggledChoices: try choiceIDs(for: line)
                case .pairs: try matchingPairs(for: line)
                case .essay, .blanks, .line: line
                }
            value = try AnswerParser.parse(text, for: question)
        } catch let error as VaultError {
            return [.showQuestion(note: error.message + " " + tr("Nothing was saved; try again."))]
        } catch {
            return [.showQuestion(note: tr("That is not an answer to this question. Nothing was saved; try again."))]
        }
        let effects: [Effect] = [.record(questionID: question.id, value: value, spentMilliseconds: spent(now))]
        attempt.answers[question.id] = value
        // After every change the whole answer in words, so a screen reader says it too.
        let note = tr("Saved.") + " " + Self.wholeAnswer(value, for: question)
        // A single answer moves on; multiple choice stays so more choices can be toggled. On the last question the
        // student is told how to review and submit.
        if entry != .toggledChoices, index < count - 1 {
            index += 1
        } else if index == count - 1, entry != .toggledChoices {
            return effects + [.showQuestion(note: note + " " + Self.lastQuestion)]
        }
        return effects + [.showQuestion(note: note)]
    }

    /// "Now chosen: a) Oxygen, c) Nitrogen." / "Now paired: 1 b) Paris; 2 a) Lima." / "Your answer: true."
    public static func wholeAnswer(_ value: JSONValue, for question: Question) -> String {
        let words = AnswerWords.text(value, for: question)
        switch entry(for: question) {
        case .oneChoice, .toggledChoices: return words.isEmpty ? tr("Nothing is chosen now.") : tr("Now chosen: {answer}.", ["answer": words])
        case .pairs: return tr("Now paired: {answer}.", ["answer": words])
        case .essay, .blanks, .line: return tr("Your answer: {answer}.", ["answer": words])
        }
    }

    /// Matching pairs typed now, added to those already given: `3c` keeps `1b 2a` and pairs item 3 with c, `3d`
    /// replaces item 3's pair, `3-` clears it. The result is the whole answer as `AnswerParser` reads it.
    private func matchingPairs(for line: String) throws -> String {
        guard case .matching(let body) = question.body else { return line }
        let left = body.left
        let right = body.right.map(\.id)
        var pairs: [Int: String] = [:]
        for pair in (attempt.answers[question.id]?.arrayValue ?? []).compactMap(AnswerRules.pair) {
            if let number = left.firstIndex(where: { $0.id == pair.left }), let position = right.firstIndex(of: pair.right) {
                pairs[number + 1] = Self.letters[position]
            }
        }
        for token in line.lowercased().split(whereSeparator: { $0 == " " || $0 == "," }) {
            guard let last = token.last, let number = Int(token.dropLast()), (1...max(left.count, 1)).contains(number) else {
                throw VaultError(.invalidData, tr("Pair an item with a match, such as 1b; 1- clears item 1's pair."))
            }
            pairs[number] = last == "-" ? nil : String(last)
        }
        guard !pairs.isEmpty else { throw VaultError(.invalidData, tr("Every pair is cleared; pair at least one item, such as 1b.")) }
        return pairs.keys.sorted().map { "\($0)\(pairs[$0]!)" }.joined(separator: " ")
    }

    private mutating func spent(_ now: Now) -> Int {
        let spent = now.elapsed - shownAt
        shownAt = now.elapsed
        return Int(spent.components.seconds) * 1000 + Int(spent.components.attoseconds / 1_000_000_000_000_000)  // numbers-check: Int64 division
    }

    /// The letters typed, checked against the choices shown; for multiple choice a single letter toggles it. The
    /// result is still letters, in the student's order: `AnswerParser` is the one place that turns a student's letters
    /// into choice ids (turning them into ids here had the parser read an id that is itself a letter as a letter again,
    /// and store another choice than the one typed).
    private func choiceIDs(for line: String) throws -> String {
        let choices: [Choice]
        switch question.body {
        case .singleChoice(let body), .multipleChoice(let body): choices = body.choices
        case .trueFalse, .numeric, .shortText, .essay, .matching, .ordering, .fillInBlanks: return line
        }
        let typed = line.lowercased().split(whereSeparator: { $0 == "," || $0 == " " || $0 == "،" }).map(String.init)
        var picked: [String] = []
        for letter in typed {
            guard let position = Self.letters.firstIndex(of: letter), position < choices.count else {
                throw VaultError(.invalidData, tr("Type a letter from a to {last}.", ["last": Self.letters[max(choices.count - 1, 0)]]))
            }
            picked.append(Self.letters[position])
        }
        if entry == .toggledChoices, picked.count == 1, case .array(let current)? = attempt.answers[question.id] {
            // What is chosen now, as the letters the student sees beside those choices.
            var selected = current.compactMap(\.stringValue).compactMap { id in choices.firstIndex { $0.id == id }.map { Self.letters[$0] } }
            if let existing = selected.firstIndex(of: picked[0]) { selected.remove(at: existing) } else { selected.append(picked[0]) }
            return selected.joined(separator: ",")
        }
        return picked.joined(separator: ",")
    }

    /// Said on the last question when there is nothing after it.
    public static var lastQuestion: String { tr("This is the last question: :r shows what is unanswered or flagged, :s submits.") }

    /// The letters a student sees beside choices: the parser's, so the screen and the parser never disagree.
    public static var letters: [String] { AnswerParser.letters }

    // MARK: Essays

    public static var essayHint: String { tr("Keep typing; every line is saved when you press Enter. A line with only . finishes the answer.") }

    /// Said when a timed test's start screen is left without starting.
    public static var notStarted: String { tr("Not started; your time has not begun.") }

    /// The answer to "Replace your saved essay?": yes starts the essay again with the line; anything else keeps it.
    private mutating func confirmReplace(_ line: String, pending: String, now: Now) -> [Effect] {
        mode = .question
        guard Self.isYes(line) else { return [.showQuestion(note: tr("Your essay is kept as it was. :e continues it."))] }
        return essayLine(pending, lines: [], now: now)
    }

    /// The screen's commands as a whole line (`:q`, `:s`, `#3`, `?`): inside an essay they act as commands; `::q`
    /// types `:q` into the essay.
    static func isCommand(_ line: String) -> Bool {
        let trimmed = commandForm(line)
        if [":q", ":quit", ":s", ":submit", ":n", ":next", ":p", ":prev", "?", ":h", ":help", ":r", ":review", ":f", ":flag", "!"].contains(trimmed) {
            return true
        }
        return trimmed.hasPrefix("#") && Int(trimmed.dropFirst()) != nil
    }

    /// Each entered line is saved at once as the question's draft; `.` alone finishes and moves on.
    private mutating func essayLine(_ line: String, lines: [String], now: Now) -> [Effect] {
        var line = line
        if case .essay = mode, Self.isCommand(line) {
            // The essay so far is saved; the command acts.
            mode = .question
            return command(line, now: now)
        }
        if line.hasPrefix("::") { line.removeFirst() }
        if line == "." {
            mode = .question
            let last = index == count - 1
            if !last { index += 1 }
            shownAt = now.elapsed
            let note = [lines.isEmpty ? nil : tr("Saved."), last ? Self.lastQuestion : nil].compactMap { $0 }.joined(separator: " ")
            return [.saveProgress(currentQuestion: index), .showQuestion(note: note.isEmpty ? nil : note)]
        }
        let draft = lines + [line]
        let value: JSONValue
        do {
            value = try AnswerParser.parse(draft.joined(separator: "\n"), for: question)
        } catch let error as VaultError {
            mode = .essay(lines: lines)
            return [.say(error.message + " " + tr("That line was not saved; the answer so far is.")), .promptEssayLine]
        } catch {
            return [.promptEssayLine]
        }
        let starting = lines.isEmpty && mode == .question
        mode = .essay(lines: draft)
        attempt.answers[question.id] = value
        return [.record(questionID: question.id, value: value, spentMilliseconds: spent(now))] + (starting ? [.say(Self.essayHint)] : [])
            + [.promptEssayLine]
    }

    /// The unfinished line of an essay, saved as part of its draft: after the lines already entered (or, on an essay
    /// not yet begun, as its first line). Never over an essay already saved that the student has not chosen to
    /// continue (`:e`), and never a command being typed.
    private mutating func draft(_ text: String, now: Now) -> [Effect] {
        // Past the limit too: the vault takes it within its grace (the line was typed before the tick that ends the
        // time), and refuses it after, which ends the screen with the vault's sentence.
        guard entry == .essay else { return [] }
        let lines: [String]
        switch mode {
        case .essay(let entered): lines = entered
        case .question:
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard attempt.answers[question.id] == nil || firstLineDraft == question.id, let first = trimmed.first,
                !Self.commandStarts.contains(first)
            else { return [] }
            firstLineDraft = question.id
            lines = []
        default: return []
        }
        let whole = (text.isEmpty ? lines : lines + [text]).joined(separator: "\n")
        guard !whole.isEmpty, attempt.answers[question.id]?.stringValue != whole,
            let value = try? AnswerParser.parse(whole, for: question)
        else { return [] }
        attempt.answers[question.id] = value
        return [.record(questionID: question.id, value: value, spentMilliseconds: spent(now))]
    }

    /// The first characters of the screen's commands (a line starting with one is not an essay's first line).
    static let commandStarts: Set<Character> = [":", "#", "!", "?", "؟", "<", ">", "."]

    // MARK: Blanks

    /// One line per blank; after the last, the answer is read as a whole and saved (or the student is told why not).
    private mutating func blankLine(_ line: String, lines: [String], now: Now) -> [Effect] {
        let lines = lines + [line]
        guard case .blanks(let count) = entry else { return answer(line, now: now) }
        if lines.count < count {
            mode = .blanks(lines: lines)
            return [.promptBlank(lines.count)]
        }
        mode = .question
        return answer(lines.joined(separator: "\n"), now: now)
    }

    // MARK: Submitting

    private mutating func confirm(_ line: String) -> [Effect] {
        guard Self.isYes(line) else {
            mode = .question
            return [.showQuestion(note: tr("Not submitted."))]
        }
        mode = .finished
        return [
            .saveProgress(currentQuestion: index), .submit,
            .say(tr("Submitted. Your answers will be uploaded with `vault sync` when you are online.")), .exit(0),
        ]
    }

    /// "y" and "yes" in every language, and the language's own word for yes.
    public static func isYes(_ line: String) -> Bool {
        // Translators: the word a student may type for yes at a [y/N] question (y and yes always work too).
        let typed = line.trimmingCharacters(in: .whitespaces).lowercased()
        return ["y", "yes", tr("yes").lowercased()].contains(typed) || yesWords.contains(typed)
    }

    /// Yes in each catalog's language, and its first letter where no language reads it as no: s/sí/si, o/oui, sim,
    /// ndiyo, بله, نعم (so a student answering in the words the screen asks in is understood whatever `--lang` says).
    static let yesWords: Set<String> = ["s", "sí", "si", "o", "oui", "sim", "ndiyo", "bale", "بله", "آره", "نعم"]

    // MARK: Texts

    public var review: String {
        let questions = attempt.assessment.questions.enumerated()
        let unanswered = questions.filter { attempt.answers[$0.element.id] == nil }.map { "\($0.offset + 1)" }
        let flagged = questions.filter { attempt.flagged.contains($0.element.id) }.map { "\($0.offset + 1)" }
        let none = tr("none")
        return tr(
            "Unanswered: {unanswered}. Flagged: {flagged}. Use #N to go there.",
            [
                "unanswered": unanswered.isEmpty ? none : Language.digits(unanswered.joined(separator: ", ")),
                "flagged": flagged.isEmpty ? none : Language.digits(flagged.joined(separator: ", ")),
            ]
        )
    }

    /// The help, one entry per line (each wrapped to the terminal by the renderer).
    public static var help: String {
        [
            tr("Type your answer and press Enter."),
            tr("Choices: the letter. Multiple choice: a letter toggles it, or a,c sets several."),
            tr("True or false: t or f. Numeric: a number. Text: the text."),
            tr("Essay: type lines; each is saved when you press Enter; a line with only . finishes. :e continues a saved essay."),
            tr("Enter or > next question. < previous. #N goes to question N."),
            tr("! flags for review. :r lists what is unanswered or flagged. :s submits. :q leaves (all is saved)."),
        ].joined(separator: "\n")
    }
}

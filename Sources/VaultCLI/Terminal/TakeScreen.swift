import Foundation
import VaultAPI
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// The interactive screen of `vault take`: line-based, so it works in any 80x24 terminal, over ssh, in tmux,
/// and from a pipe. Every answer is committed before the next screen is drawn.
final class TakeScreen<C: Clock & Sendable>: @unchecked Sendable where C.Duration == Duration {
    static var letters: [String] { TakeScreenLetters.all }

    private let vault: Vault
    private let lock = NSLock()
    private let console: Console
    private let interactive: Bool
    private var attempt: AttemptRecord
    private var index: Int
    private let clock: C
    private var questionShownAt: C.Instant
    private var finished = false
    private var ticker: DispatchSourceTimer?
    private var signals: [DispatchSourceSignal] = []
    private var width: Int

    init(vault: Vault, assessmentID: String, console: Console, interactive: Bool, clock: C) throws {
        self.vault = vault
        self.console = console
        self.interactive = interactive
        attempt = try vault.openAttempt(on: assessmentID)
        index = min(max(attempt.currentQuestion, 0), attempt.assessment.questions.count - 1)
        self.clock = clock
        questionShownAt = clock.now
        width = Self.terminalWidth()
    }

    private static func terminalWidth() -> Int {
        var size = winsize()
        return ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col >= 40 ? Int(size.ws_col) : 80
    }

    /// Where the attempt's clock stands (measured by the vault, whether this screen is open or not).
    private var time: AttemptTimeStatus { vault.timeStatus(of: attempt) }

    private var question: Question { attempt.assessment.questions[index] }
    private var count: Int { attempt.assessment.questions.count }

    // MARK: Running

    func run() throws {
        // The questions are about to be seen: a timed attempt's clock starts now (or goes on).
        if attempt.timeLimit != nil { attempt = try vault.startClock(attemptID: attempt.id) }
        if time.hasRunOut {
            try finishByTimer()
            return
        }
        startTicker()
        handleSignals()
        defer {
            stopTicker()
            for source in signals { source.cancel() }
        }
        out("\(attempt.assessment.title): \(count) questions. Type ? for help. Every answer is saved as you type it.")
        if attempt.answers.count > 0 { out("Resuming: \(attempt.answers.count) answered so far.") }
        draw(note: nil)
        while let line = readLine(strippingNewline: true) {
            do {
                let done: Bool = try lock.withLock {
                    guard !finished else { return true }
                    if time.hasRunOut {
                        try finishByTimer()
                        return true
                    }
                    return try handle(line)
                }
                if done { return }
            } catch is TakeScreenClosed {
                return
            }
        }
        // End of input (Ctrl-D, closed pipe): everything is already saved.
        try lock.withLock {
            guard !finished else { return }
            try vault.saveProgress(attemptID: attempt.id, currentQuestion: index)
            out("\n" + savedMessage)
        }
    }

    private var savedMessage: String {
        "Saved. Come back with `vault take \(attempt.assessment.id)`"
            + (attempt.timeLimit != nil ? "; the time keeps running while you are away." : ".")
    }

    /// Ctrl-C and a closed terminal (SIGHUP) end the screen like :q: everything typed and entered is saved; the
    /// position is saved too, and Ctrl-C exits with 130 as shells expect.
    private func handleSignals() {
        for (number, status) in [(SIGINT, Int32(130)), (SIGHUP, Int32(129)), (SIGTERM, Int32(143))] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: DispatchQueue(label: "take.signal"))
            source.setEventHandler { [weak self] in
                guard let self else { Foundation.exit(status) }
                self.lock.withLock {
                    if !self.finished {
                        try? self.vault.saveProgress(attemptID: self.attempt.id, currentQuestion: self.index)
                        if number != SIGHUP { self.out("\n" + self.savedMessage) }
                    }
                }
                Foundation.exit(status)
            }
            source.resume()
            signals.append(source)
        }
        // A resized terminal is redrawn at its new width.
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: DispatchQueue(label: "take.resize"))
        signal(SIGWINCH, SIG_IGN)
        resize.setEventHandler { [weak self] in
            guard let self else { return }
            self.lock.withLock {
                guard !self.finished, self.interactive else { return }
                self.width = Self.terminalWidth()
                self.draw(note: nil)
            }
        }
        resize.resume()
        signals.append(resize)
    }

    /// Returns true when the screen should close.
    private func handle(_ line: String) throws -> Bool {
        let command = line.trimmingCharacters(in: .whitespaces)
        switch command {
        case "", ">", ":n", ":next": move(to: index + 1)
        case "<", ":p", ":prev": move(to: index - 1)
        case "?", ":h", ":help":
            draw(note: Self.help)
            return false
        case "!", ":f", ":flag":
            if attempt.flagged.contains(question.id) { attempt.flagged.remove(question.id) } else { attempt.flagged.insert(question.id) }
            try vault.saveProgress(attemptID: attempt.id, flagged: attempt.flagged)
            draw(note: attempt.flagged.contains(question.id) ? "Flagged for review." : "Flag removed.")
            return false
        case ":r", ":review":
            draw(note: review())
            return false
        case ":q", ":quit":
            try vault.saveProgress(attemptID: attempt.id, currentQuestion: index)
            out(savedMessage)
            return true
        case ":s", ":submit":
            return try confirmSubmit()
        default:
            if command.hasPrefix("#"), let number = Int(command.dropFirst()) {
                guard (1...count).contains(number) else {
                    draw(note: "There is no question \(number); choose 1 to \(count).")
                    return false
                }
                move(to: number - 1)
            } else if command.hasPrefix(":") {
                draw(note: "Unknown command \(command). Type ? for help.")
                return false
            } else {
                try answer(line)
                return false
            }
        }
        try vault.saveProgress(attemptID: attempt.id, currentQuestion: index)
        draw(note: nil)
        return false
    }

    private func move(to target: Int) {
        index = min(max(target, 0), count - 1)
        questionShownAt = clock.now
    }

    private func answer(_ line: String) throws {
        // Anything the student typed that is not an answer (a letter out of range, a non-number, an over-long text)
        // is said on the screen and asked again: a typo never ends the test.
        let value: JSONValue
        do {
            var text = line
            switch question.type {
            case .singleChoice, .multipleChoice: text = try choiceIDs(for: line)
            case .essay: text = readEssay(firstLine: line)
            default: break
            }
            value = try AnswerParser.parse(text, for: question)
        } catch let error as VaultError where error.code == .invalidData || error.code == .usage {
            draw(note: error.message + " Nothing was saved; try again.")
            return
        }
        let spent = questionShownAt.duration(to: clock.now)
        do {
            try vault.recordAnswer(
                attemptID: attempt.id,
                questionID: question.id,
                answer: value,
                timeSpentMilliseconds: spent.wholeMilliseconds,
                currentQuestion: index
            )
        } catch let error as VaultError where error.code == .notAllowed {
            // The vault refused it because the time ran out and it submitted the attempt: say so and close.
            finished = true
            out("\n" + error.message)
            throw TakeScreenClosed()
        }
        attempt.answers[question.id] = value
        questionShownAt = clock.now
        // A single answer moves on; multiple choice stays so more choices can be toggled.
        if question.type != .multipleChoice, index < count - 1 { index += 1 }
        draw(note: "Saved.")
    }

    /// Letters (by position) to choice ids; for multiple choice a single letter toggles it.
    private func choiceIDs(for line: String) throws -> String {
        let choices = question.choices ?? []
        let letters = line.lowercased().split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        var ids: [String] = []
        for letter in letters {
            guard let position = Self.letters.firstIndex(of: letter), position < choices.count else {
                throw VaultError(.invalidData, "Type a letter from a to \(Self.letters[max(choices.count - 1, 0)]).")
            }
            ids.append(choices[position].id)
        }
        if question.type == .multipleChoice, ids.count == 1, case .array(let current)? = attempt.answers[question.id] {
            var selected = current.compactMap(\.stringValue)
            if let existing = selected.firstIndex(of: ids[0]) { selected.remove(at: existing) } else { selected.append(ids[0]) }
            return selected.joined(separator: ",")
        }
        return ids.joined(separator: ",")
    }

    private func readEssay(firstLine: String) -> String {
        var lines = [firstLine]
        if interactive { out("(Keep typing; a line with only . finishes the answer.)") }
        while let line = readLine(strippingNewline: true), line != "." { lines.append(line) }
        return lines.joined(separator: "\n")
    }

    private func confirmSubmit() throws -> Bool {
        let unanswered = attempt.unanswered.count
        out(
            unanswered > 0
                ? "\(unanswered) questions are unanswered. Submit anyway? [y/N]" : "Submit now? You cannot change answers afterwards. [y/N]"
        )
        guard let reply = readLine()?.trimmingCharacters(in: .whitespaces).lowercased(), reply == "y" || reply == "yes" else {
            draw(note: "Not submitted.")
            return false
        }
        try vault.saveProgress(attemptID: attempt.id, currentQuestion: index)
        try vault.submitAttempt(attempt.id)
        finished = true
        out("Submitted. Your answers will be uploaded with `vault sync` when you are online.")
        return true
    }

    private func finishByTimer() throws {
        if try vault.attempt(attempt.id).state == .inProgress { try vault.submitAttempt(attempt.id) }
        finished = true
        out("\nTime is up. Your attempt was submitted with the \(attempt.answers.count) answers you saved; it will be uploaded with `vault sync`.")
    }

    // MARK: Drawing

    static var help: String {
        """
        Type your answer and press Enter:
          choices: the letter (multiple choice: a letter toggles it, or a,c sets several)
          true/false: t or f    numeric: a number    text: the text    essay: lines, then a line with only .
        Enter or >  next question      <  previous        #N  go to question N
        !           flag for review    :r review list     :s  submit        :q  leave (all is saved)
        """
    }

    private func review() -> String {
        let unanswered = attempt.assessment.questions.enumerated().filter { attempt.answers[$0.element.id] == nil }.map { "\($0.offset + 1)" }
        let flagged = attempt.assessment.questions.enumerated().filter { attempt.flagged.contains($0.element.id) }.map { "\($0.offset + 1)" }
        return
            "Unanswered: \(unanswered.isEmpty ? "none" : unanswered.joined(separator: ", ")). Flagged: \(flagged.isEmpty ? "none" : flagged.joined(separator: ", ")). Use #N to go there."
    }

    private func draw(note: String?) {
        var text = ""
        if interactive { text += "\u{1B}[2J\u{1B}[H" }
        let columns = min(width, 80)
        let position = "  —  Question \(index + 1) of \(count)"
        // The title is cut by display width (wide and right-to-left scripts), so the header fits its line.
        let title = DisplayWidth.truncated(attempt.assessment.title, to: columns - DisplayWidth.of(position))
        text += console.bold(title) + position + "\n"
        // The one clock: its own line, which the ticker rewrites in place.
        text += (time.remaining.map { Self.clockLine($0) } ?? "") + "\n"
        text += String(repeating: "─", count: columns) + "\n"
        let flag = attempt.flagged.contains(question.id) ? " [flagged]" : ""
        text += wrap(question.prompt) + flag + "\n\n"
        let current = attempt.answers[question.id]
        switch question.type {
        case .singleChoice, .multipleChoice:
            let selected = Set(current?.arrayValue?.compactMap(\.stringValue) ?? current?.stringValue.map { [$0] } ?? [])
            for (letter, choice) in zip(Self.letters, question.choices ?? []) {
                let mark =
                    question.type == .multipleChoice ? (selected.contains(choice.id) ? "[x]" : "[ ]") : (selected.contains(choice.id) ? "(*)" : "( )")
                text += "  \(mark) \(letter)) \(choice.text)\n"
            }
            text += question.type == .multipleChoice ? "\nType a letter to toggle it.\n" : "\nType a letter.\n"
        case .trueFalse:
            text += "Type t (true) or f (false)." + (current.map { "  Current: \(AnswerParser.display($0, for: question))" } ?? "") + "\n"
        case .numeric:
            text += "Type a number." + (current.map { "  Current: \(AnswerParser.display($0, for: question))" } ?? "") + "\n"
        case .shortText, .essay:
            let limit = question.maxLength.map { " (at most \($0) characters)" } ?? ""
            text += (question.type == .essay ? "Type your answer; end with a line holding only ." : "Type your answer") + limit + ".\n"
            if let current { text += "Current answer:\n" + wrap(AnswerParser.display(current, for: question)) + "\n" }
        }
        text += "\n" + (note.map { $0 + "\n" } ?? "") + "> "
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private func wrap(_ text: String) -> String {
        let limit = min(width, 80) - 2
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                if line.count + word.count + 1 > limit, !line.isEmpty {
                    lines.append(line)
                    line = ""
                }
                line += (line.isEmpty ? "" : " ") + word
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    private func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    // MARK: The countdown

    /// Every second: refresh the countdown; every 5 s persist active time; at zero submit and say so.
    private static func clockLine(_ remaining: Duration) -> String { "time left \(AttemptTimeStatus.clockText(remaining))" }

    private func startTicker() {
        guard attempt.timeLimit != nil else { return }
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "take.ticker"))
        var ticks = 0
        source.schedule(deadline: .now() + 1, repeating: 1)
        source.setEventHandler { [weak self] in
            guard let self else { return }
            ticks += 1
            self.lock.withLock {
                guard !self.finished else { return }
                let time = self.time
                if time.hasRunOut {
                    do {
                        try self.finishByTimer()
                        Foundation.exit(0)
                    } catch {
                        // The automatic submission failed (a full disk): say so, never exit 0 silently.
                        self.out(
                            "\nThe time ran out, but the attempt could not be submitted: \((error as? VaultError)?.message ?? "\(error)") Run `vault submit \(self.attempt.assessment.id)` once that is fixed."
                        )
                        Foundation.exit(74)
                    }
                }
                if ticks % 5 == 0 {
                    try? self.vault.saveProgress(attemptID: self.attempt.id)
                }
                if self.interactive, let remaining = time.remaining {
                    // Save the cursor, rewrite the clock line (line 2), restore the cursor.
                    FileHandle.standardOutput.write(Data("\u{1B}7\u{1B}[2;1H\u{1B}[K\(Self.clockLine(remaining))\u{1B}8".utf8))
                }
            }
        }
        source.resume()
        ticker = source
    }

    private func stopTicker() {
        ticker?.cancel()
        ticker = nil
    }
}

/// Thrown when the screen closed itself (the time ran out while an answer was entered); the message was shown.
struct TakeScreenClosed: Error {}

enum TakeScreenLetters {
    static let all = (0..<26).map { String(UnicodeScalar(UInt8(97 + $0))) }
}

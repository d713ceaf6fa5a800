import Foundation
import VaultAPI
import VaultCore
import VaultTake
import VaultTerminal

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

/// Runs a `TakeSession` against the terminal and the vault. One task takes the events from one stream, fed by
/// the input thread (keys, or lines from a pipe), a one-second timer, and the signals (Ctrl-C, a closed terminal,
/// SIGTERM, a resize); it performs each effect in order, so an answer is saved before anything after it is shown.
/// Nothing waits while holding anything: the clock keeps ticking while the student types an essay or answers y/N.
///
/// On a terminal the screen reads keys itself (`RawMode`, `KeyDecoder`, `LineEditor`): the line being typed is
/// known here, drawn after its prompt, and given to the session as a draft within a second of the last key and
/// before a signal or the end of the time, so an essay's unfinished line survives kill -9 (at most a second of it
/// lost) and nothing typed is left for the shell when the screen closes.
struct TakeDriver<C: Clock & Sendable> where C.Duration == Duration {
    let vault: Vault
    var session: TakeSession
    let renderer: any TakeRenderer
    let clock: C
    /// Keys read one by one (a terminal) rather than whole lines.
    let readsKeys: Bool
    /// The line typed is only appended to, never redrawn (the screen-reader mode).
    let appendOnly: Bool
    /// The attempt as the vault's clock last saw it (refreshed when the clock starts).
    private var timing: AttemptRecord
    private var editor = LineEditor()
    /// Where the line being typed is drawn; nil until a key after the last prompt.
    private var view: (any LineDrawing)?
    /// The output's generation when the view was made: later output means the line must be drawn again.
    private var viewGeneration = 0
    /// The line changed since the session last had it as a draft.
    private var draftChanged = false
    /// The line changed since it was last drawn.
    private var drawPending = false
    /// Characters of a bracketed paste under way (nil: none): the record says how many, never what.
    private var pasted: Int?

    /// Focus reporting and bracketed paste, asked of the terminal while the screen reads keys, and switched off on
    /// every way out (`:q`, submit, Ctrl-C, time up, SIGTERM, a closed terminal).
    static var reportsOn: String { "\u{1B}[?1004h\u{1B}[?2004h" }
    static var reportsOff: String { "\u{1B}[?1004l\u{1B}[?2004l" }

    /// What the input thread, the timer and the signals send.
    enum Input: Sendable {
        case session(TakeSession.Event)
        case keys([LineEditor.Key])
    }

    init(vault: Vault, session: TakeSession, renderer: any TakeRenderer, clock: C, readsKeys: Bool = false, appendOnly: Bool = false) {
        self.vault = vault
        self.session = session
        self.renderer = renderer
        self.clock = clock
        self.readsKeys = readsKeys
        self.appendOnly = appendOnly
        timing = session.attempt
    }

    /// Returns the exit status.
    mutating func run() async throws -> Int32 {
        let (events, input) = AsyncStream<Input>.makeStream()
        input.yield(.session(.begin))
        // The signals first: a Ctrl-C or SIGTERM from here on is an event, so the way out below always runs.
        let signals = Self.signalSources(input)
        defer { for source in signals { source.cancel() } }
        let raw = readsKeys ? RawMode() : nil
        // Not in the screen-reader mode, which writes no escape sequence at all (focus and pastes go unrecorded there).
        let reports = raw != nil && !appendOnly
        if reports { FileHandle.standardOutput.write(Data(Self.reportsOn.utf8)) }
        // A session of this attempt that never closed (kill -9, a closed terminal, power loss) goes on the record.
        let attemptID = session.attempt.id
        try vault.beginTakeSession(attemptID: attemptID)
        // However the screen ends: the header's scroll region is undone, the terminal's reports switched off and its
        // settings put back, and whatever the student typed that the screen did not read is discarded, so it never
        // lands on the shell's prompt (where Enter would run it).
        defer {
            renderer.finish()
            if reports { FileHandle.standardOutput.write(Data(Self.reportsOff.utf8)) }
            raw?.restore()
            if isatty(STDIN_FILENO) == 1 { tcflush(STDIN_FILENO, TCIFLUSH) }
            // Best effort: a vault that cannot be written now records the next session as an unclean end.
            try? vault.endTakeSession(attemptID: attemptID)
        }
        Self.startReader(raw != nil, input)
        let clock = clock
        let ticker = Task {
            while !Task.isCancelled {
                try? await clock.sleep(for: .seconds(1))
                input.yield(.session(.tick))
            }
        }
        defer { ticker.cancel() }
        let start = clock.now
        for await event in events {
            let now = TakeSession.Now(time: vault.timeStatus(of: timing), elapsed: start.duration(to: clock.now))
            switch event {
            case .keys(let keys):
                for key in keys {
                    if try recordScreen(key) { continue }
                    if let status = try edit(key, now: now) { return status }
                }
                // Drawn once per batch of keys (a pasted paragraph or a fast typist), not once per key.
                drawLine()
            case .session(let event):
                // The line being typed goes first, so a signal or the time running out finds it saved.
                if draftChanged, event != .begin, event != .resize {
                    if let status = try dispatch(.draft(editor.text), now: now) { return status }
                }
                if let status = try dispatch(event, now: now) { return status }
            }
        }
        return 0
    }

    /// What the attempt's record takes of a key: focus lost and regained, a paste's length (its characters still go
    /// to the line). True when the key was only for the record.
    private mutating func recordScreen(_ key: LineEditor.Key) throws -> Bool {
        let question = session.attempt.assessment.questions.indices.contains(session.index) ? session.question.id : nil
        switch key {
        case .focus(let gained):
            try vault.recordScreenEvent(gained ? .returned : .left, attemptID: session.attempt.id, question: question)
            return true
        case .paste(true):
            pasted = 0
            return true
        case .paste(false):
            if let count = pasted, count > 0 {
                try vault.recordScreenEvent(.pasted, attemptID: session.attempt.id, question: question, count: count)
            }
            pasted = nil
            return true
        case .character, .enter:
            if let count = pasted { pasted = count + 1 }
            return false
        default:
            return false
        }
    }

    /// One key: the line edited and drawn again, or entered and given to the session.
    private mutating func edit(_ key: LineEditor.Key, now: TakeSession.Now) throws -> Int32? {
        let output = renderer.output
        if appendOnly, key.movesCursor { return nil }
        if view == nil || viewGeneration != output.generation {
            view = makeView()
            viewGeneration = output.generation
        }
        switch editor.handle(key) {
        case .unchanged:
            return nil
        case .edited:
            draftChanged = true
            drawPending = true
            return nil
        case .entered(let line):
            // The entered line stays on the screen and the next text starts on a row of its own.
            let columns = DisplayWidth.terminalColumns
            let shown = drawPending ? view!.draw(LineEditor(line), columns: columns) : ""
            output.write(shown + view!.finish(LineEditor(line), columns: columns))
            drawPending = false
            view = nil
            draftChanged = false
            return try dispatch(.line(line), now: now)
        case .endOfInput:
            return try dispatch(.endOfInput, now: now)
        }
    }

    /// A new place for the line being typed, after what the screen wrote last.
    private func makeView() -> any LineDrawing { appendOnly ? AppendedLine() : LineView(prompt: renderer.output.tail) }

    /// Draws the line being typed if keys changed it since it was last drawn.
    private mutating func drawLine() {
        guard drawPending, view != nil, viewGeneration == renderer.output.generation else { return }
        renderer.output.writeInPlace(view!.draw(editor, columns: DisplayWidth.terminalColumns))
        drawPending = false
    }

    /// Gives the session one event and performs what it says; afterwards the line being typed (if any) is drawn
    /// again after whatever was written.
    private mutating func dispatch(_ event: TakeSession.Event, now: TakeSession.Now) throws -> Int32? {
        if case .draft = event { draftChanged = false }
        drawLine()
        for effect in session.handle(event, now: now) {
            if let status = try perform(effect) { return status }
        }
        let output = renderer.output
        if readsKeys, !editor.isEmpty, view == nil || viewGeneration != output.generation {
            var fresh = makeView()
            output.writeInPlace(fresh.draw(editor, columns: DisplayWidth.terminalColumns))
            view = fresh
            viewGeneration = output.generation
            drawPending = false
        }
        return nil
    }

    /// Before a sentence is written under a line the student has half typed: the line is left as it stands and the
    /// sentence starts on a row of its own.
    private mutating func leaveLine() {
        guard var current = view, !editor.isEmpty, viewGeneration == renderer.output.generation else { return }
        renderer.output.write(current.finish(editor, columns: DisplayWidth.terminalColumns))
        view = nil
    }

    /// Keys from a terminal in raw mode, or lines from a pipe, on a thread of their own (reading blocks).
    private static func startReader(_ keys: Bool, _ input: AsyncStream<Input>.Continuation) {
        let reader = Thread {
            if keys {
                var decoder = KeyDecoder()
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(STDIN_FILENO, &buffer, buffer.count)
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { break }
                    let keys = decoder.feed(buffer[0..<count])
                    if !keys.isEmpty { input.yield(.keys(keys)) }
                }
            } else {
                while let line = readLine(strippingNewline: true) { input.yield(.session(.line(line))) }
            }
            input.yield(.session(.endOfInput))
        }
        reader.start()
    }

    /// Performs one effect; a status when the screen ends.
    private mutating func perform(_ effect: TakeSession.Effect) throws -> Int32? {
        let id = session.attempt.id
        switch effect {
        case .say, .askSubmit, .exit:
            leaveLine()
        default:
            break
        }
        switch effect {
        case .showStartScreen:
            renderer.startScreen(session, limit: session.attempt.timeLimit ?? .zero)
        case .startClock:
            timing = try vault.startClock(attemptID: id)
        case .showQuestion(let note):
            renderer.question(session, note: note, time: vault.timeStatus(of: timing))
        case .say(let text):
            renderer.say(text)
        case .promptEssayLine:
            renderer.essayPrompt(time: vault.timeStatus(of: timing))
        case .promptBlank(let index):
            renderer.blankPrompt(session, index: index, time: vault.timeStatus(of: timing))
        case .askSubmit(let unanswered):
            renderer.askSubmit(unanswered: unanswered)
        case .record(let questionID, let value, let spent):
            do {
                try vault.recordAnswer(
                    attemptID: id,
                    questionID: questionID,
                    answer: value,
                    timeSpentMilliseconds: spent,
                    currentQuestion: session.index
                )
            } catch let error as VaultError where error.code == .notAllowed {
                // The vault refused it because the time ran out and it submitted the attempt: say so and close.
                renderer.say(error.message)
                return 0
            }
        case .saveProgress(let question):
            try vault.saveProgress(attemptID: id, currentQuestion: question)
        case .saveFlags(let flagged):
            try vault.saveProgress(attemptID: id, flagged: flagged)
        case .submit:
            if try vault.attempt(id).state == .inProgress { try vault.submitAttempt(id) }
        case .submitAtTimeUp:
            if try vault.attempt(id).state == .inProgress { try vault.submitAttempt(id, timeUp: true) }
        case .updateClock(let remaining):
            renderer.clock(remaining)
        case .announceTime(let remaining):
            renderer.announce(remaining)
        case .exit(let status):
            return status
        }
        return nil
    }

    /// Ctrl-C, a closed terminal, SIGTERM and a resize, as events.
    private static func signalSources(_ input: AsyncStream<Input>.Continuation) -> [any DispatchSourceSignal] {
        let signals: [(Int32, TakeSession.Event)] = [
            (SIGINT, .signal(.interrupt)), (SIGHUP, .signal(.hangup)), (SIGTERM, .signal(.terminate)), (SIGWINCH, .resize),
        ]
        return signals.map { number, event in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { input.yield(.session(event)) }
            source.resume()
            return source
        }
    }
}

import Foundation
import VaultAPI
import VaultCore
import VaultTake

#if canImport(Glibc)
import Glibc
#endif

/// Runs a `TakeSession` against the terminal and the vault. One task takes the events from one stream, fed by
/// the input thread (lines), a one-second timer, and the signals (Ctrl-C, a closed terminal, SIGTERM, a resize); it
/// performs each effect in order, so an answer is saved before anything after it is shown. Nothing waits while
/// holding anything: the clock keeps ticking while the student types an essay or answers y/N.
struct TakeDriver<C: Clock & Sendable> where C.Duration == Duration {
    let vault: Vault
    var session: TakeSession
    let renderer: any TakeRenderer
    let clock: C
    /// The attempt as the vault's clock last saw it (refreshed when the clock starts).
    private var timing: AttemptRecord

    init(vault: Vault, session: TakeSession, renderer: any TakeRenderer, clock: C) {
        self.vault = vault
        self.session = session
        self.renderer = renderer
        self.clock = clock
        timing = session.attempt
    }

    /// Returns the exit status.
    mutating func run() async throws -> Int32 {
        let (events, input) = AsyncStream<TakeSession.Event>.makeStream()
        input.yield(.begin)
        // Lines come from a thread of their own: `readLine` blocks, and nothing else waits for it.
        let reader = Thread {
            while let line = readLine(strippingNewline: true) { input.yield(.line(line)) }
            input.yield(.endOfInput)
        }
        reader.start()
        let signals = Self.signalSources(input)
        defer { for source in signals { source.cancel() } }
        let clock = clock
        let ticker = Task {
            while !Task.isCancelled {
                try? await clock.sleep(for: .seconds(1))
                input.yield(.tick)
            }
        }
        defer { ticker.cancel() }
        let start = clock.now
        for await event in events {
            let now = TakeSession.Now(time: vault.timeStatus(of: timing), elapsed: start.duration(to: clock.now))
            for effect in session.handle(event, now: now) {
                if let status = try perform(effect) { return status }
            }
        }
        return 0
    }

    /// Performs one effect; a status when the screen ends.
    private mutating func perform(_ effect: TakeSession.Effect) throws -> Int32? {
        let id = session.attempt.id
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
    private static func signalSources(_ input: AsyncStream<TakeSession.Event>.Continuation) -> [any DispatchSourceSignal] {
        let signals: [(Int32, TakeSession.Event)] = [
            (SIGINT, .signal(.interrupt)), (SIGHUP, .signal(.hangup)), (SIGTERM, .signal(.terminate)), (SIGWINCH, .resize),
        ]
        return signals.map { number, event in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { input.yield(event) }
            source.resume()
            return source
        }
    }
}

import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultLanguage
import VaultModel
import VaultTake
import VaultTestSupport

/// The take screen's state machine, driven event by event with a manual clock: no terminal, no sleeps.
@Suite(.ownThreads)
struct TakeSessionTests {
    static func attempt(timeLimit: Int? = nil) -> AttemptRecord {
        var assessment = Assessment(
            id: "quiz",
            title: "Quiz",
            questions: [
                Question(id: "q1", type: .singleChoice, prompt: "2x = 10. x = ?", choices: [Choice(id: "a", text: "2"), Choice(id: "b", text: "5")]),
                Question(id: "q2", type: .essay, prompt: "Explain.", maxLength: 200),
                Question(id: "q3", type: .trueFalse, prompt: "True?"),
            ]
        )
        assessment.timeLimitSeconds = timeLimit
        return AttemptRecord(id: "attempt-1", assessment: assessment)
    }

    /// A session, the clock that measures time spent, and the attempt's time status the driver would pass.
    struct Harness {
        var session: TakeSession
        let clock = ManualClock()
        var limit: Duration?
        var used: Duration = .zero

        init(timeLimit: Int? = nil, confirm: Bool = false) {
            session = TakeSession(attempt: TakeSessionTests.attempt(timeLimit: timeLimit), needsStartConfirmation: confirm)
            limit = timeLimit.map { .seconds($0) }
        }

        mutating func send(_ event: TakeSession.Event) -> [TakeSession.Effect] {
            let time = AttemptTimeStatus(limit: limit, used: used, startedAt: nil, wallMovedBack: .zero)
            return session.handle(event, now: TakeSession.Now(time: time, elapsed: clock.now.offset))
        }

        /// One second passes: the clock moves, and a tick arrives.
        mutating func second() -> [TakeSession.Effect] {
            clock.advance(by: .seconds(1))
            used += .seconds(1)
            return send(.tick)
        }
    }

    @Test("fill in the blanks, blank by blank: each line fills the next blank, the last saves the whole answer and moves on; a misfit saves nothing")
    func blanksOneByOne() {
        let question = Question(
            id: "f1",
            prompt: "The [1] sat on the [2].",
            body: .fillInBlanks(
                .init(blanks: [Blank(id: "1"), Blank(id: "2", choices: [Choice(id: "m", text: "mat"), Choice(id: "r", text: "roof")])])
            )
        )
        let assessment = Assessment(id: "blanks", title: "Blanks", questions: [question, Question(id: "q2", type: .trueFalse, prompt: "True?")])
        var session = TakeSession(attempt: AttemptRecord(id: "attempt-1", assessment: assessment), needsStartConfirmation: false)
        let clock = ManualClock()
        func send(_ event: TakeSession.Event) -> [TakeSession.Effect] {
            let time = AttemptTimeStatus(limit: nil, used: .zero, startedAt: nil, wallMovedBack: .zero)
            return session.handle(event, now: TakeSession.Now(time: time, elapsed: clock.now.offset))
        }
        _ = send(.begin)
        #expect(send(.line("cat")) == [.promptBlank(1)])
        #expect(session.mode == .blanks(lines: ["cat"]))
        // A letter that is not one of the choice blank's: nothing saved, the question asked again from its first blank.
        let misfit = send(.line("z"))
        #expect(!misfit.contains { if case .record = $0 { true } else { false } }, "\(misfit)")
        #expect(session.index == 0 && session.mode == .question)
        _ = send(.line("cat"))
        clock.advance(by: .seconds(4))
        let saved = send(.line("a"))
        #expect(
            saved.first == .record(questionID: "f1", value: .object(["1": .string("cat"), "2": .string("m")]), spentMilliseconds: 4_000),
            "\(saved)"
        )
        #expect(session.index == 1, "the next question follows a filled one")
    }

    @Test(
        "a saved essay is never replaced by a stray line: the student is asked, no keeps it, yes replaces it; :q inside an essay leaves, ::q types it; resuming opens on the first unanswered question"
    )
    func strayLineNeverReplacesAnEssay() {
        var harness = Harness()
        _ = harness.send(.begin)
        _ = harness.send(.line("#2"))
        _ = harness.send(.line("My essay, line one."))
        _ = harness.send(.line("."))
        _ = harness.send(.line("#2"))
        // A stray "b" at the saved essay: asked, not saved.
        var effects = harness.send(.line("b"))
        #expect(!effects.contains { if case .record = $0 { true } else { false } })
        #expect(harness.session.mode == .confirmReplace("b"))
        effects = harness.send(.line("n"))
        #expect(!effects.contains { if case .record = $0 { true } else { false } })
        #expect(harness.session.attempt.answers["q2"] == .string("My essay, line one."))
        // Spanish "s" (the screen asks in the student's words) confirms.
        _ = harness.send(.line("New start"))
        effects = harness.send(.line("s"))
        #expect(effects.contains(.record(questionID: "q2", value: .string("New start"), spentMilliseconds: 0)))
        // Inside the essay: "::q" is text, ":q" leaves with everything saved.
        _ = harness.send(.line("::q is how vi quits"))
        #expect(harness.session.attempt.answers["q2"] == .string("New start\n:q is how vi quits"))
        effects = harness.send(.line(":q"))
        #expect(effects.contains(.exit(0)))
        // The next session left on a saved essay opens on the first question without an answer instead; elsewhere
        // it opens where the student was.
        var attempt = Self.attempt()
        attempt.answers = ["q2": .string("An essay.")]
        attempt.currentQuestion = 1
        #expect(TakeSession(attempt: attempt, needsStartConfirmation: false).index == 0)
        attempt.answers["q1"] = .string("a")
        #expect(TakeSession(attempt: attempt, needsStartConfirmation: false).index == 2)
        attempt.currentQuestion = 0
        #expect(TakeSession(attempt: attempt, needsStartConfirmation: false).index == 0)
    }

    @Test("the student's own words: yes in each language, true and false as the sentence names them, Persian digits and comma")
    func ownWords() throws {
        for yes in ["y", "yes", "s", "sí", "oui", "sim", "ndiyo", "بله", "نعم"] { #expect(TakeSession.isYes(yes), "\(yes)") }
        for no in ["n", "no", "", "hapana", "نه"] { #expect(!TakeSession.isYes(no), "\(no)") }
        let truth = Question(id: "t", type: .trueFalse, prompt: "?")
        for (word, value) in [
            ("verdadero", true), ("falso", false), ("vrai", true), ("faux", false), ("kweli", true), ("si kweli", false), ("درست", true),
            ("نادرست", false), ("صحيح", true), ("خطأ", false),
        ] {
            #expect(try AnswerParser.parse(word, for: truth) == .bool(value), "\(word)")
        }
        let number = Question(id: "n", type: .numeric, prompt: "?")
        #expect(try AnswerParser.parse("۱۰۰", for: number) == .number(100))
        #expect(try AnswerParser.parse("١٢٫٥", for: number) == .number(12.5))
        let several = Question(
            id: "m",
            type: .multipleChoice,
            prompt: "?",
            choices: [Choice(id: "a", text: "A"), Choice(id: "b", text: "B"), Choice(id: "c", text: "C")]
        )
        #expect(try AnswerParser.parse("a،c", for: several) == .array([.string("a"), .string("c")]))
    }

    @Test("an essay is saved line by line as its draft; . finishes it and moves on; :e continues it")
    func essayLineByLine() {
        var harness = Harness()
        _ = harness.send(.begin)
        _ = harness.send(.line("b"))
        #expect(harness.session.index == 1)
        harness.clock.advance(by: .seconds(7))
        let first = harness.send(.line("First line."))
        #expect(first.first == .record(questionID: "q2", value: .string("First line."), spentMilliseconds: 7_000))
        #expect(harness.session.mode == .essay(lines: ["First line."]))
        // A blank line is kept between paragraphs (the saved text is trimmed at its end, as any answer).
        let second = harness.send(.line(""))
        #expect(second.first == .record(questionID: "q2", value: .string("First line."), spentMilliseconds: 0))
        #expect(harness.session.mode == .essay(lines: ["First line.", ""]))
        let third = harness.send(.line("Third."))
        #expect(third.first == .record(questionID: "q2", value: .string("First line.\n\nThird."), spentMilliseconds: 0))
        let done = harness.send(.line("."))
        #expect(harness.session.mode == .question && harness.session.index == 2)
        #expect(!done.contains { if case .record = $0 { true } else { false } })
        // Back to the essay: :e continues the saved text, a new line is appended.
        _ = harness.send(.line("<"))
        let edit = harness.send(.line(":e"))
        #expect(harness.session.mode == .essay(lines: ["First line.", "", "Third."]))
        #expect(edit.last == .promptEssayLine)
        let more = harness.send(.line("Fourth."))
        #expect(more.first == .record(questionID: "q2", value: .string("First line.\n\nThird.\nFourth."), spentMilliseconds: 0))
        // A line that would pass the limit is not saved, and the essay goes on.
        let long = harness.send(.line(String(repeating: "x", count: 300)))
        #expect(!long.contains { if case .record = $0 { true } else { false } })
        #expect(harness.session.mode == .essay(lines: ["First line.", "", "Third.", "Fourth."]))
    }

    @Test("the unfinished line of an essay is its draft: after the entered lines, or as the first line; never a command, never over a saved essay")
    func unfinishedLineDraft() {
        var harness = Harness()
        _ = harness.send(.begin)
        _ = harness.send(.line("b"))
        #expect(harness.session.index == 1)
        // On an essay not yet begun, the line being typed is saved as its first line, and again as it grows.
        #expect(harness.send(.draft("The sea")) == [.record(questionID: "q2", value: .string("The sea"), spentMilliseconds: 0)])
        #expect(harness.send(.draft("The sea is")) == [.record(questionID: "q2", value: .string("The sea is"), spentMilliseconds: 0)])
        // The same text again saves nothing; entering the line saves it as the essay's first line.
        #expect(harness.send(.draft("The sea is")) == [])
        let entered = harness.send(.line("The sea is salty."))
        #expect(entered.first == .record(questionID: "q2", value: .string("The sea is salty."), spentMilliseconds: 0))
        // In the essay, the unfinished line follows the entered ones.
        #expect(
            harness.send(.draft("Because")) == [.record(questionID: "q2", value: .string("The sea is salty.\nBecause"), spentMilliseconds: 0)]
        )
        #expect(harness.session.mode == .essay(lines: ["The sea is salty."]))
        _ = harness.send(.line("Because of rocks."))
        _ = harness.send(.line("."))
        // Back on the saved essay (question mode): a line being typed does not replace it, nor does a command.
        _ = harness.send(.line("<"))
        #expect(harness.session.index == 1)
        #expect(harness.send(.draft("oops")) == [])
        #expect(harness.send(.draft(":n")) == [])
        // Not an essay: nothing is a draft.
        _ = harness.send(.line(":n"))
        #expect(harness.send(.draft("t")) == [])
    }

    @Test("the time runs out while a line is being typed: the line is saved first, then the attempt is submitted with it")
    func draftAtTimeUp() {
        var harness = Harness(timeLimit: 60)
        _ = harness.send(.begin)
        _ = harness.send(.line("b"))
        harness.used = .seconds(61)
        // The driver gives the session the line before the tick that finds the time over.
        #expect(harness.send(.draft("Salt comes")) == [.record(questionID: "q2", value: .string("Salt comes"), spentMilliseconds: 0)])
        let ended = harness.send(.tick)
        #expect(ended.contains(.submitAtTimeUp) && ended.last == .exit(0), "\(ended)")
    }

    @Test(
        "past the last question Enter says how to review and submit; a fill-in-the-blanks question at the end does not loop back to its first blank"
    )
    func lastQuestion() {
        let question = Question(id: "f1", prompt: "The [1] sat on the [2].", body: .fillInBlanks(.init(blanks: [Blank(id: "1"), Blank(id: "2")])))
        let assessment = Assessment(id: "blanks", title: "Blanks", questions: [Question(id: "q1", type: .trueFalse, prompt: "True?"), question])
        var session = TakeSession(attempt: AttemptRecord(id: "attempt-1", assessment: assessment), needsStartConfirmation: false)
        func send(_ event: TakeSession.Event) -> [TakeSession.Effect] {
            let time = AttemptTimeStatus(limit: nil, used: .zero, startedAt: nil, wallMovedBack: .zero)
            return session.handle(event, now: TakeSession.Now(time: time, elapsed: .zero))
        }
        _ = send(.begin)
        #expect(send(.line("<")) == [.showQuestion(note: "This is the first question.")])
        _ = send(.line("t"))
        #expect(session.index == 1)
        #expect(send(.line("cat")) == [.promptBlank(1)])
        let last = send(.line("mat"))
        #expect(last.last == .showQuestion(note: "Saved. Your answer: [1] cat; [2] mat. " + TakeSession.lastQuestion), "\(last)")
        #expect(session.mode == .question && session.index == 1)
        // Enter on the last question: where the student is and what to do, not silence.
        #expect(send(.line("")) == [.showQuestion(note: TakeSession.lastQuestion)])
        #expect(send(.line(":s")) == [.askSubmit(unanswered: 0)])
    }

    @Test("the clock never freezes: a time-out in the middle of an essay submits with the saved draft and says so")
    func timeOutInEssay() {
        var harness = Harness(timeLimit: 3)
        #expect(harness.send(.begin).first == .startClock)
        _ = harness.send(.line("b"))
        _ = harness.send(.line("Half an essay"))
        #expect(harness.second().first == .updateClock(.seconds(2)))
        #expect(harness.second().first == .updateClock(.seconds(1)))
        let end = harness.second()
        #expect(end.starts(with: [.saveProgress(currentQuestion: 1), .submitAtTimeUp]))
        #expect(end.last == .exit(0))
        guard case .say(let sentence) = end[2] else {
            Issue.record("no sentence")
            return
        }
        #expect(sentence.contains("Time is up") && sentence.contains("your essay as far as you had entered it"))
        #expect(harness.session.mode == .finished)
        #expect(harness.send(.line("too late")).isEmpty)
    }

    @Test("Ctrl-C in the middle of a confirmation saves and leaves with 130; SIGHUP 129 silently; SIGTERM 143")
    func signalsInEveryMode() {
        var harness = Harness()
        _ = harness.send(.begin)
        #expect(harness.send(.line(":s")) == [.askSubmit(unanswered: 3)])
        #expect(harness.session.mode == .confirmSubmit)
        let interrupted = harness.send(.signal(.interrupt))
        #expect(interrupted.first == .saveProgress(currentQuestion: 0))
        #expect(interrupted.last == .exit(130))
        var essay = Harness()
        _ = essay.send(.begin)
        _ = essay.send(.line("a"))
        _ = essay.send(.line("A draft line"))
        #expect(essay.send(.signal(.hangup)) == [.saveProgress(currentQuestion: 1), .exit(129)])
        var plain = Harness()
        _ = plain.send(.begin)
        #expect(plain.send(.signal(.terminate)).last == .exit(143))
    }

    @Test("a timed test starts its clock only on yes; no leaves it unstarted")
    func startScreen() {
        var yes = Harness(timeLimit: 60, confirm: true)
        #expect(yes.send(.begin) == [.showStartScreen])
        #expect(yes.second().isEmpty, "no clock before the start")
        #expect(yes.send(.line("y")).first == .startClock)
        var no = Harness(timeLimit: 60, confirm: true)
        _ = no.send(.begin)
        let refused = no.send(.line("n"))
        #expect(!refused.contains(.startClock))
        #expect(refused.last == .exit(0))
    }

    @Test("a resize redraws the question, never an essay being typed; the time left is said at 10, 5 and 1 minutes, once each")
    func resizeAndAnnouncements() {
        var harness = Harness(timeLimit: 11 * 60)
        _ = harness.send(.begin)
        #expect(harness.send(.resize) == [.showQuestion(note: nil)])
        var announced: [Duration] = []
        for _ in 0..<(11 * 60 - 1) {
            for case .announceTime(let left) in harness.second() { announced.append(left) }
        }
        #expect(announced == [.seconds(600), .seconds(300), .seconds(60)])
        _ = harness.send(.line("a"))
        _ = harness.send(.line("essay"))
        #expect(harness.send(.resize).isEmpty)
    }

    @Test("a time limit is said in whole minutes, or minutes and seconds")
    func timeLimits() {
        #expect(TakeTimeText.limit(60) == "1 minute")
        #expect(TakeTimeText.limit(1800) == "30 minutes")
        #expect(TakeTimeText.limit(90) == "1 min 30 s")
    }
}

extension TakeSessionTests {
    @Test("a test that opens with 10 minutes or less does not announce the mark it starts under")
    func noAnnouncementAtOpening() {
        var harness = Harness(timeLimit: 600)
        _ = harness.send(.begin)
        var announced: [Duration] = []
        for _ in 0..<(600 - 1) {
            for case .announceTime(let left) in harness.second() { announced.append(left) }
        }
        #expect(announced == [.seconds(300), .seconds(60)])
    }
}

/// Answers that add up and say so (the student's screen, third round).
@Suite(.ownThreads)
struct AnswersThatAddUpTests {
    static func session() -> TakeSession {
        let matching = Question(
            id: "m1",
            prompt: "Capitals.",
            body: .matching(
                .init(
                    left: [Choice(id: "fr", text: "France"), Choice(id: "pe", text: "Peru"), Choice(id: "it", text: "Italy")],
                    right: [Choice(id: "lim", text: "Lima"), Choice(id: "par", text: "Paris"), Choice(id: "rom", text: "Rome")]
                )
            )
        )
        let gases = Question(
            id: "c1",
            type: .multipleChoice,
            prompt: "Gases in air?",
            choices: [Choice(id: "o", text: "Oxygen"), Choice(id: "g", text: "Gold"), Choice(id: "n", text: "Nitrogen")]
        )
        let assessment = Assessment(id: "add", title: "Add up", questions: [matching, gases])
        return TakeSession(attempt: AttemptRecord(id: "attempt-1", assessment: assessment), needsStartConfirmation: false)
    }

    static func send(_ session: inout TakeSession, _ event: TakeSession.Event) -> [TakeSession.Effect] {
        let time = AttemptTimeStatus(limit: nil, used: .zero, startedAt: nil, wallMovedBack: .zero)
        return session.handle(event, now: TakeSession.Now(time: time, elapsed: .zero))
    }

    static func pairs(_ effects: [TakeSession.Effect]) -> [[String]]? {
        for case .record(_, let value, _) in effects { return value.arrayValue?.map { $0.arrayValue?.compactMap(\.stringValue) ?? [] } }
        return nil
    }

    @Test("matching: 1b 2a, later 3c keeps both; 3a replaces item 3's pair; 3- clears it; each change says every pair")
    func matchingAddsUp() {
        var session = Self.session()
        _ = Self.send(&session, .begin)
        let first = Self.send(&session, .line("1b 2a"))
        #expect(Self.pairs(first) == [["fr", "par"], ["pe", "lim"]])
        #expect(first.contains(.showQuestion(note: "Saved. Now paired: 1 b) Paris; 2 a) Lima.")), "\(first)")
        _ = Self.send(&session, .line(":p"))
        #expect(Self.pairs(Self.send(&session, .line("3c"))) == [["fr", "par"], ["pe", "lim"], ["it", "rom"]])
        _ = Self.send(&session, .line(":p"))
        #expect(Self.pairs(Self.send(&session, .line("3a"))) == [["fr", "par"], ["pe", "lim"], ["it", "lim"]])
        _ = Self.send(&session, .line(":p"))
        let cleared = Self.send(&session, .line("3-"))
        #expect(Self.pairs(cleared) == [["fr", "par"], ["pe", "lim"]])
        _ = Self.send(&session, .line(":p"))
        // A typo saves nothing and keeps every pair.
        let typo = Self.send(&session, .line("9z"))
        #expect(Self.pairs(typo) == nil && session.attempt.answers["m1"]?.arrayValue?.count == 2)
    }

    @Test("multiple choice: each toggle says the whole choice in words")
    func choicesInWords() {
        var session = Self.session()
        _ = Self.send(&session, .begin)
        _ = Self.send(&session, .line(":n"))
        let first = Self.send(&session, .line("a"))
        #expect(first.contains(.showQuestion(note: "Saved. Now chosen: a) Oxygen.")), "\(first)")
        let second = Self.send(&session, .line("c"))
        #expect(second.contains(.showQuestion(note: "Saved. Now chosen: a) Oxygen, c) Nitrogen.")), "\(second)")
    }
}

/// Commands typed in the student's script (issue 71): a Persian or Arabic keyboard's digits after `#` and its `؟`
/// are the screen's commands, never an answer.
@Suite(.ownThreads)
struct CommandScriptTests {
    @Test("#۶, #٦ and #6 go to question 6, ؟ shows help, on every question type, answered or not; nothing is saved as an answer")
    func persianCommands() {
        let questions = [
            Question(id: "q1", type: .singleChoice, prompt: "One", choices: [Choice(id: "a", text: "x"), Choice(id: "b", text: "y")]),
            Question(id: "q2", type: .shortText, prompt: "Two"),
            Question(id: "q3", type: .numeric, prompt: "Three"),
            Question(id: "q4", type: .essay, prompt: "Four"),
            Question(
                id: "q5",
                prompt: "The [1] sat.",
                body: .fillInBlanks(.init(blanks: [Blank(id: "1")]))
            ),
            Question(id: "q6", type: .trueFalse, prompt: "Six"),
        ]
        let time = AttemptTimeStatus(limit: nil, used: .zero, startedAt: nil, wallMovedBack: .zero)
        let now = TakeSession.Now(time: time, elapsed: .zero)
        for answered in [false, true] {
            var record = AttemptRecord(id: "attempt-1", assessment: Assessment(id: "fa", title: "Fa", questions: questions))
            if answered {
                record.answers = [
                    "q1": .string("a"), "q2": .string("کتاب‌ها"), "q3": .number(2), "q4": .string("Essay."), "q5": .object(["1": .string("cat")]),
                ]
            }
            for start in 0..<5 {
                for typed in ["#۶", "#٦", "#6", " #۶ "] {
                    var session = TakeSession(attempt: record, needsStartConfirmation: false)
                    _ = session.handle(.begin, now: now)
                    if start > 0 { _ = session.handle(.line("#\(start + 1)"), now: now) }
                    let effects = session.handle(.line(typed), now: now)
                    #expect(session.index == 5, "\(typed) from question \(start + 1): \(effects)")
                    #expect(!effects.contains { if case .record = $0 { true } else { false } }, "\(typed) was saved")
                    #expect(session.attempt.answers == record.answers)
                }
                var session = TakeSession(attempt: record, needsStartConfirmation: false)
                _ = session.handle(.begin, now: now)
                if start > 0 { _ = session.handle(.line("#\(start + 1)"), now: now) }
                let help = session.handle(.line("؟"), now: now)
                #expect(help == [.showQuestion(note: TakeSession.help)], "question \(start + 1): \(help)")
                #expect(session.attempt.answers == record.answers)
                // Typed as an essay's first line it is not a draft either.
                #expect(session.handle(.draft("؟"), now: now).isEmpty)
            }
        }
    }
}

/// Choices whose ids are letters themselves, shown shuffled: the letter the student types is the choice shown beside it,
/// on the take screen and through `vault answer`'s parser alike (the screen once turned letters into ids and the parser
/// read those ids as letters again).
@Suite(.ownThreads)
struct LetterIDTests {
    /// A question whose choices `a`-`e` are shown in a seeded order, as a draw puts them.
    static func shuffled(_ seed: UInt64, type: QuestionType) -> Question {
        var generator = SplitMix64(seed: seed)
        let ids = ["a", "b", "c", "d", "e"].shuffled(using: &generator)
        let choices = ids.map { Choice(id: $0, text: "Choice \($0.uppercased())") }
        return Question(id: "q1", type: type, prompt: "Which?", choices: choices)
    }

    @Test("50 random letters on the take screen and through the parser: the stored choice is the one shown beside the letter")
    func letterIsTheChoiceShown() throws {
        var generator = SplitMix64(seed: 67)
        for round in 0..<50 {
            let question = Self.shuffled(UInt64(round), type: .singleChoice)
            let position = Int(generator.next(below: 5))
            let letter = AnswerParser.letters[position]
            let shown = question.body.choices[position].id
            let assessment = Assessment(id: "letters", title: "Letters", questions: [question])
            var session = TakeSession(attempt: AttemptRecord(id: "attempt-1", assessment: assessment), needsStartConfirmation: false)
            let time = AttemptTimeStatus(limit: nil, used: .zero, startedAt: nil, wallMovedBack: .zero)
            let now = TakeSession.Now(time: time, elapsed: .zero)
            _ = session.handle(.begin, now: now)
            let typed = round.isMultiple(of: 2) ? letter : letter.uppercased()
            let effects = session.handle(.line(typed), now: now)
            #expect(effects.first == .record(questionID: "q1", value: .string(shown), spentMilliseconds: 0), "round \(round): \(effects)")
            #expect(try AnswerParser.parse(typed, for: question) == .string(shown), "round \(round)")
        }
    }

    @Test("multiple choice with letter ids, shuffled: each toggle changes only the choice shown beside the letter typed")
    func togglesTheChoiceShown() throws {
        var generator = SplitMix64(seed: 76)
        for round in 0..<20 {
            let question = Self.shuffled(UInt64(100 + round), type: .multipleChoice)
            let assessment = Assessment(id: "letters", title: "Letters", questions: [question])
            var session = TakeSession(attempt: AttemptRecord(id: "attempt-1", assessment: assessment), needsStartConfirmation: false)
            let time = AttemptTimeStatus(limit: nil, used: .zero, startedAt: nil, wallMovedBack: .zero)
            let now = TakeSession.Now(time: time, elapsed: .zero)
            _ = session.handle(.begin, now: now)
            var chosen: Set<String> = []
            for _ in 0..<4 {
                let position = Int(generator.next(below: 5))
                let id = question.body.choices[position].id
                // Taking away the only choice is refused (an answer names at least one): it stays chosen.
                if chosen.contains(id) { if chosen.count > 1 { chosen.remove(id) } } else { chosen.insert(id) }
                _ = session.handle(.line(AnswerParser.letters[position]), now: now)
                let stored = Set(session.attempt.answers["q1"]?.arrayValue?.compactMap(\.stringValue) ?? [])
                #expect(stored == chosen, "round \(round)")
            }
        }
        let question = Self.shuffled(3, type: .multipleChoice)
        // Stored in the author's order (here the list as it stands: the question carries no shown order).
        let expected = [1, 3].map { question.body.choices[$0].id }
        #expect(try AnswerParser.parse("b, d", for: question) == .array(expected.map(JSONValue.string)))
    }
}

@Suite(.ownThreads)
struct TakeTimeTextTests {
    @Test("time left is never more than there is: minutes rounded down, seconds under a minute")
    func roundedDown() {
        #expect(TakeTimeText.spoken(.seconds(186)) == "3 minutes")
        #expect(TakeTimeText.spoken(.seconds(61)) == "1 minute")
        #expect(TakeTimeText.spoken(.milliseconds(59_900)) == "59 seconds")
        #expect(TakeTimeText.spoken(.seconds(600)) == "10 minutes")
        #expect(TakeTimeText.spoken(.milliseconds(599_500)) == "9 minutes")
        #expect(TakeTimeText.short(.seconds(186)) == "3 min" && TakeTimeText.short(.seconds(40)) == "40 s")
        #expect(TakeTimeText.spoken(.seconds(-5)) == "0 seconds")
    }
}

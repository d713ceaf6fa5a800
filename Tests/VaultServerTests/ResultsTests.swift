import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultRules
import VaultServer
import VaultTestSupport

struct ScoringTests {
    @Test("scoring from the keys: choices, true/false, numeric within tolerance, multiple choice all or nothing, short text normalised; essays wait")
    func scoring() {
        let single = Question(id: "a", type: .singleChoice, prompt: "?", points: 2, answerKey: [.string("b")])
        #expect(Scoring.points(for: .string("b"), question: single) == 2)
        #expect(Scoring.points(for: .string("a"), question: single) == 0)
        #expect(Scoring.points(for: nil, question: single) == 0)
        let truth = Question(id: "t", type: .trueFalse, prompt: "?", answerKey: [.bool(false)])
        #expect(Scoring.points(for: .bool(false), question: truth) == 1 && Scoring.points(for: .bool(true), question: truth) == 0)
        let numeric = Question(id: "n", type: .numeric, prompt: "?", answerKey: [.number(3.14)], tolerance: 0.01)
        #expect(Scoring.points(for: .number(3.15), question: numeric) == 1)
        #expect(Scoring.points(for: .number(3.16), question: numeric) == 0)
        let multiple = Question(id: "m", type: .multipleChoice, prompt: "?", answerKey: [.string("a"), .string("c")])
        #expect(Scoring.points(for: .array([.string("c"), .string("a")]), question: multiple) == 1)
        #expect(Scoring.points(for: .array([.string("a")]), question: multiple) == 0)
        #expect(Scoring.points(for: .array([.string("a"), .string("c"), .string("b")]), question: multiple) == 0)
        let text = Question(id: "s", type: .shortText, prompt: "?", acceptedAnswers: ["Café au lait", "coffee"])
        #expect(Scoring.points(for: .string("  CAFE\u{301}   AU\tlait "), question: text) == 1)
        #expect(Scoring.points(for: .string("Coffee"), question: text) == 1)
        #expect(Scoring.points(for: .string("tea"), question: text) == 0)
        #expect(Scoring.points(for: .string("anything"), question: Question(id: "s2", type: .shortText, prompt: "?")) == nil)
        #expect(Scoring.points(for: .string("An essay."), question: Question(id: "e", type: .essay, prompt: "?")) == nil)
    }

    @Test("stored answers read by the fast reader are what JSONDecoder reads")
    func answerReader() throws {
        for text in [#""a \"quoted\" é \u00e9""#, "3.25", "-0", "1e3", "true", "null", #"["a","b"]"#, #"{"1":"x","2":"y"}"#, #"[["l1","r2"]]"#] {
            #expect(JSONReader.value(text) == (try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))), "\(text)")
        }
        #expect(JSONReader.value("[1,") == nil && JSONReader.value("\"x\" junk") == nil)
    }

    @Test("normalizing answers: the ASCII fast path gives what the Unicode rules give, on random ASCII text")
    func normalizedFastPath() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aZ b\t\n\r\u{0B}\u{0C}  Q.,-_!1\u{1F}\u{7F}x")
        for _ in 0..<2_000 {
            let text = String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            let reference = text.precomposedStringWithCanonicalMapping.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(Scoring.normalized(text) == reference, "\(Array(text.utf8))")
        }
        #expect(Scoring.normalized("  CAFE\u{301}   AU\tlait ") == "café au lait")
    }

    @Test(
        "partial credit by weights: a single choice earns its choice's weight, multiple choices add up within [0, points], accepted answers and blanks weigh in"
    )
    func weights() throws {
        let choices = [Choice(id: "a", text: "A", weight: 1), Choice(id: "b", text: "B", weight: 0.5), Choice(id: "c", text: "C", weight: -0.5)]
        let single = Question(id: "s", type: .singleChoice, prompt: "?", points: 2, choices: choices, answerKey: [.string("a")])
        #expect(Scoring.points(for: .string("a"), question: single) == 2)
        #expect(Scoring.points(for: .string("b"), question: single) == 1)
        #expect(Scoring.points(for: .string("c"), question: single) == 0, "never below 0")
        var multiple = single
        multiple.id = "m"
        multiple.retype(.multipleChoice)
        multiple.wire.choices = [
            Choice(id: "a", text: "A", weight: 0.5), Choice(id: "b", text: "B", weight: 0.5), Choice(id: "c", text: "C", weight: -1),
        ]
        multiple.wire.answerKey = [.string("a"), .string("b")]
        #expect(Scoring.points(for: .array([.string("a"), .string("b")]), question: multiple) == 2)
        #expect(Scoring.points(for: .array([.string("b")]), question: multiple) == 1)
        #expect(Scoring.points(for: .array([.string("a"), .string("b"), .string("c")]), question: multiple) == 0)
        #expect(Scoring.points(for: .array([.string("a"), .string("a")]), question: multiple) == 1, "a choice counts once")
        var text = Question(id: "t", type: .shortText, prompt: "?", points: 4, acceptedAnswers: ["Ada Lovelace", "Lovelace"])
        text.wire.acceptedAnswerWeights = ["Lovelace": 0.75]
        #expect(Scoring.points(for: .string("ada lovelace"), question: text) == 4)
        #expect(Scoring.points(for: .string("LOVELACE"), question: text) == 3)
        var blanks = Question(id: "f", type: .fillInBlanks, prompt: "[1] and [2]", points: 2)
        blanks.wire.blanks = [
            Blank(id: "1", acceptedAnswers: ["cat", "kitten"], acceptedAnswerWeights: ["kitten": 0.5]),
            Blank(id: "2", choices: [Choice(id: "x", text: "mat", weight: 1), Choice(id: "y", text: "rug", weight: 0.5)], answer: "x"),
        ]
        #expect(Scoring.points(for: .object(["1": .string("kitten"), "2": .string("y")]), question: blanks) == 1)
        #expect(Scoring.points(for: .object(["1": .string("cat"), "2": .string("x")]), question: blanks) == 2)
        // The document's rules: weights in [-1, 1], only on choices, never served.
        var bad = Assessment(id: "w", title: "W", questions: [single])
        bad.questions[0].wire.choices?[1].weight = 1.5
        #expect(throws: AssessmentValidator.Problem.self) { try AssessmentValidator.validate(bad) }
        let good = Assessment(id: "w", title: "W", questions: [single, multiple, text, blanks])
        try AssessmentValidator.validate(good)
        try AssessmentValidator.validate(good.served, requireAnswerKeyAbsent: true)
        var leaked = good.served
        leaked.questions[0].wire.choices?[1].weight = 0.5
        #expect(throws: AssessmentValidator.Problem.self) { try AssessmentValidator.validate(leaked, requireAnswerKeyAbsent: true) }
        #expect(!String(decoding: try CanonicalJSON.encode(good.served), as: UTF8.self).contains("weight"))
    }
}

struct ResultsTests {
    static func quiz(results: ResultsRelease?) -> Assessment {
        var quiz = Fixtures.quiz()
        quiz.results = results
        quiz.questions[4].wire.acceptedAnswers = ["Ada Lovelace"]
        return quiz
    }

    @Test(
        "results: hidden until released by default, scores at submission when asked; correct answers only after release; a grade fills an essay; accepted answers never served",
        arguments: Backend.all
    )
    func results(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(Self.quiz(results: nil), teacher: teacher)
            var onSubmit = Self.quiz(results: .onSubmit)
            onSubmit.id = "quiz-2"
            try await api.publish(onSubmit, teacher: teacher)
            for id in ["quiz-1", "quiz-2"] {
                let raw = try await api.send(.get, APIPath.assessment(id), token: student)
                #expect(!String(decoding: raw.body, as: UTF8.self).contains("Ada Lovelace"), "accepted answers are grading data")
                let served = try raw.decode(Assessment.self)
                let items = [
                    Fixtures.item(served, question: "q1", answer: .string("b"), attempt: "\(id)-a"),
                    Fixtures.item(served, question: "q5", answer: .string(" ada  LOVELACE"), attempt: "\(id)-a"),
                    Fixtures.item(served, question: "q6", answer: .string("Because."), attempt: "\(id)-a"),
                ]
                _ = try await api.batch(items, token: student)
                let submission = SubmissionRequest(
                    attemptId: "\(id)-a",
                    assessmentId: id,
                    assessmentVersion: served.version ?? 1,
                    submittedAt: "2026-11-20T10:10:00.000Z",
                    responseIds: items.map(\.id)
                ).listing(items)
                #expect(try await api.send(.post, APIPath.submissions, token: student, json: submission).status == .created)
            }
            func results() async throws -> [AttemptResult] {
                try await api.send(.get, APIPath.results, token: student).decode(ResultsResponse.self).results
            }
            // quiz-1 waits for release; quiz-2 shows its score now, without correct answers.
            var shown = try await results()
            #expect(shown.map(\.assessmentId) == ["quiz-2"])
            let early = try #require(shown.first)
            #expect(early.score == 2 && early.maxScore == 6 && early.pending == 1 && !early.released)
            #expect(early.questions.allSatisfy { $0.correctAnswer == nil })

            #expect(try await harness.storage.grade(attemptID: "quiz-1-a", questionID: "q6", points: 1))
            #expect(try await !harness.storage.grade(attemptID: "quiz-1-a", questionID: "nope", points: 1))
            #expect(try await !harness.storage.grade(attemptID: "never-submitted", questionID: "q6", points: 1))
            // Narrowed to some attempts, the store reads those only (the desk saving one sheet, or showing one page).
            let one = try await harness.storage.resultInputs(user: nil, assessmentID: nil, attemptIDs: ["quiz-1-a"])
            #expect(one.map(\.record.attemptID) == ["quiz-1-a"] && one.first?.grades == ["q6": 1] && one.first?.answers.count == 3)
            #expect(try await harness.storage.resultInputs(user: nil, assessmentID: "quiz-2", attemptIDs: ["quiz-1-a"]).isEmpty)
            #expect(try await harness.storage.resultInputs(user: nil, assessmentID: nil, attemptIDs: []).isEmpty)
            let both = try await harness.storage.resultInputs(user: nil, assessmentID: nil, attemptIDs: ["quiz-2-a", "quiz-1-a", "nope"])
            #expect(Set(both.map(\.record.attemptID)) == ["quiz-1-a", "quiz-2-a"])
            #expect(try await harness.storage.resultInputs(user: nil, assessmentID: nil).count == 2)
            // Without answers (the roster's counts): the same attempts and grades, no answers.
            let summary = try #require(try await harness.storage.rosterFacts(assessmentID: "quiz-1", group: nil, detail: .summary))
            #expect(summary.results.map(\.record.attemptID) == ["quiz-1-a"] && summary.results.first?.answers.isEmpty == true)
            #expect(summary.results.first?.grades == ["q6": 1])
            #expect(try await harness.storage.release(assessmentID: "quiz-1", now: Date()))
            shown = try await results()
            let released = try #require(shown.first { $0.assessmentId == "quiz-1" })
            #expect(released.released && released.score == 3 && released.pending == 0)
            #expect(released.questions.first { $0.questionId == "q1" }?.correctAnswer == [.string("b")])
            #expect(released.questions.first { $0.questionId == "q5" }?.correctAnswer == [.string("Ada Lovelace")])
            // Another student sees none of it.
            let other = try await api.token("student2")
            #expect(try await api.send(.get, APIPath.results, token: other).decode(ResultsResponse.self).results.isEmpty)
        }
    }
}

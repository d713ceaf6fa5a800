import Foundation
import Testing
import VaultAPI
import VaultRules
import VaultServer

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
}

struct ResultsTests {
    static func quiz(results: ResultsRelease?) -> Assessment {
        var quiz = Fixtures.quiz()
        quiz.results = results
        quiz.questions[4].acceptedAnswers = ["Ada Lovelace"]
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

import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultRules
import VaultServer
import VaultTestSupport

/// The end of the exam (issue 53), on both stores.
struct EndOfExamTests {
    @Test(
        "an attempt answering past its deadline and grace shows 'time is up, not handed in' on the roster; one within it does not",
        arguments: Backend.all
    )
    func timeUpNotHandedIn(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            var quiz = Fixtures.quiz(id: "timed-60")
            quiz.timeLimitSeconds = 60
            #expect(try await api.publish(quiz, teacher: try await api.token("teacher")).status == .created)
            for (student, ago) in [("student", 100.0), ("student2", 30.0)] {
                let token = try await api.token(student)
                let served = try await api.served("timed-60", token: token)
                let started = Date().addingTimeInterval(-ago)
                var item = Fixtures.item(served, question: "q1", answer: .string("b"), attempt: "\(student)-a", at: Timestamp.string(started))
                item.attemptStartedAt = Timestamp.string(started)
                #expect(try await api.batch([item], token: token).map(\.status) == [.accepted])
            }
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let roster = try await browser.send(.get, "/desk/a/timed-60")
            #expect(roster.text.components(separatedBy: "time is up, not handed in").count - 1 == 1, "one student, not two")
        }
    }
}

extension EndOfExamTests {
    @Test("a hand-in that arrived after closing gets no released results until the teacher decides; after Accept it does", arguments: Backend.all)
    func lateResultsWaitForTheTeacher(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let (_, student, served) = try await api.quizServed()
            #expect(try await harness.storage.close(assessmentID: "quiz-1", at: Date().addingTimeInterval(-60)))
            // Answered offline before closing, handed in after it (the vault did not know): stored, flagged late.
            let item = Fixtures.item(served, question: "q1", answer: .string("b"), attempt: "late-1", at: "2026-11-20T09:58:00.000Z")
            #expect(try await api.batch([item], token: student).map(\.status) == [.accepted])
            let submission = SubmissionRequest(
                attemptId: "late-1",
                assessmentId: "quiz-1",
                assessmentVersion: served.version ?? 1,
                submittedAt: Timestamp.string(Date()),
                responseIds: [item.id],
                startedAt: "2026-11-20T09:55:00.000Z"
            ).listing([item])
            #expect(try await api.send(.post, APIPath.submissions, token: student, json: submission).status == .created)
            #expect(try await harness.storage.release(assessmentID: "quiz-1", now: Date()))
            func results() async throws -> [AttemptResult] {
                try await api.send(.get, APIPath.results, token: student).decode(ResultsResponse.self).results
            }
            #expect(try await results().isEmpty, "no correct answers before the teacher decides")
            #expect(try await harness.storage.decideLate(attemptID: "late-1", decision: .accepted))
            let shown = try #require(try await results().first)
            #expect(shown.released && shown.questions.first { $0.questionId == "q1" }?.correctAnswer == [.string("b")])
        }
    }
}

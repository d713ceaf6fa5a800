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

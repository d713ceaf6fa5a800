import Foundation
import HTTPTypes
import Hummingbird
import Testing
import VaultAPI
import VaultCore
import VaultServer
import VaultTestSupport

/// `GET /v1/attempts` (issue "one attempt across devices", item 1): what a second device continues from.
struct HeldAttemptsTests {
    @Test(
        "GET /v1/attempts: the caller's own attempts with their start, extra time, state and current answers, signed for them; nothing of another student's",
        arguments: Backend.all
    )
    func ownAttempts(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.storage.setAccommodation(assessmentID: "quiz-1", user: "student", extraMinutes: 15)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            let token = try await api.token("student")
            let other = try await api.token("student2")
            let served = try await api.served("quiz-1", token: token)
            let started = "2026-11-20T09:58:00.000Z"
            func item(_ question: String, _ answer: JSONValue, at time: String, attempt: String = "a-1") -> ResponseItem {
                var item = Fixtures.item(served, question: question, answer: answer, attempt: attempt, at: time)
                item.attemptStartedAt = started
                return item
            }
            let first = item("q1", .string("b"), at: "2026-11-20T10:00:00.000Z")
            let later = item("q1", .string("a"), at: "2026-11-20T10:05:00.000Z")
            let third = item("q3", .bool(true), at: "2026-11-20T10:01:00.000Z")
            let stored = try await api.batch([first, later, third], token: token)
            #expect(stored.map(\.status) == [.accepted, .accepted, .accepted], "\(stored)")
            _ = try await api.batch([item("q1", .string("a"), at: "2026-11-20T10:02:00.000Z", attempt: "b-1")], token: other)

            let key = try ServerPublicKey(try await api.send(.get, APIPath.serverKey).decode(ServerKeyResponse.self))
            let reply = try await api.send(.get, APIPath.attempts + "?assessment=quiz-1", token: token)
            #expect(reply.status == .ok)
            let held = try reply.decode(AttemptsResponse.self).attempts
            #expect(held.map(\.attemptId) == ["a-1"], "nothing of student2's")
            let attempt = try #require(held.first)
            #expect(attempt.startedAt == started && attempt.extraMinutes == 15 && attempt.state == .inProgress && attempt.assessmentVersion == 1)
            #expect(attempt.answers.map(\.questionId) == ["q1", "q3"])
            #expect(
                attempt.answers.first?.answer == .string("a") && attempt.answers.first?.responseId == later.id,
                "the later answer stands: \(attempt.answers)"
            )
            // Signed for this student, under the attempts' own label.
            let signature = reply.headers[HTTPField.Name(ServedSignature.header)!]
            #expect(ServedSignature.isValid(signature, for: ServedSignature.attempts(user: "student", reply.body), key: key))
            #expect(!ServedSignature.isValid(signature, for: ServedSignature.attempts(user: "student2", reply.body), key: key))
            #expect(!ServedSignature.isValid(signature, for: ServedSignature.results(user: "student", reply.body), key: key))
            // student2 sees only theirs, and nobody's for an assessment they have no attempt of.
            let theirs = try await api.send(.get, APIPath.attempts + "?assessment=quiz-1", token: other).decode(AttemptsResponse.self)
            #expect(theirs.attempts.map(\.attemptId) == ["b-1"] && theirs.attempts.first?.extraMinutes == 0)
            #expect(try await api.send(.get, APIPath.attempts + "?assessment=nope", token: other).decode(AttemptsResponse.self).attempts.isEmpty)
            // Handed in, it says so.
            let submission = SubmissionRequest(
                attemptId: "a-1",
                assessmentId: "quiz-1",
                assessmentVersion: 1,
                submittedAt: "2026-11-20T10:10:00.000Z",
                responseIds: [later.id, third.id]
            ).listing([later, third])
            #expect(try await api.send(.post, APIPath.submissions, token: token, json: submission).status == .created)
            let after = try await api.send(.get, APIPath.attempts + "?assessment=quiz-1", token: token).decode(AttemptsResponse.self)
            #expect(after.attempts.first?.state == .handedIn)
            // No assessment named, no token: refused.
            #expect(try await api.send(.get, APIPath.attempts, token: token).status == .badRequest)
            #expect(try await api.send(.get, APIPath.attempts + "?assessment=quiz-1").status == .unauthorized)
        }
    }
}

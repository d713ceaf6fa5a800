import Foundation
import Testing
import VaultAPI
import VaultServer

struct SubmissionTests {
    @Test(
        "201 with a receipt, then 200 with the same receipt; 422 when answers are missing; 409 outdated unless forced; 404 gone",
        arguments: Backend.all
    )
    func submissions(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let served = try await api.served("quiz-1", token: student)
            let item = Fixtures.item(served, question: "q3", answer: .bool(true))
            let request = SubmissionRequest(
                attemptId: "attempt-1",
                assessmentId: "quiz-1",
                assessmentVersion: 1,
                submittedAt: "2026-11-20T10:10:00.000Z",
                responseIds: [item.id]
            ).listing([item])

            let missing = try await api.send(.post, APIPath.submissions, token: student, json: request)
            #expect(missing.status == .unprocessableContent)
            #expect(try missing.decode(ErrorEnvelope.self).error.missing == [item.id])

            _ = try await api.batch([item], token: student)
            let created = try await api.send(.post, APIPath.submissions, token: student, json: request)
            #expect(created.status == .created)
            let receipt = try created.decode(SubmissionReceipt.self)
            #expect(receipt.receiptId.hasPrefix("rcpt-") && receipt.responseCount == 1)
            let repeated = try await api.send(.post, APIPath.submissions, token: student, json: request)
            #expect(repeated.status == .ok)
            #expect(try repeated.decode(SubmissionReceipt.self) == receipt)

            // attempt-2 has one answer on version 1 (so it is the student's), then the assessment changes.
            var second = Fixtures.item(served, question: "q3", answer: .bool(false))
            second.attemptId = "attempt-2"
            _ = try await api.batch([second], token: student)
            try await api.publish(Fixtures.quiz(q1Prompt: "v2"), teacher: teacher)
            var outdated = request.listing([second])
            outdated.attemptId = "attempt-2"
            outdated.responseIds = [second.id]
            let conflict = try await api.send(.post, APIPath.submissions, token: student, json: outdated)
            #expect(conflict.status == .conflict)
            #expect(try conflict.decode(ErrorEnvelope.self).currentVersion == 2)
            outdated.force = true
            #expect(try await api.send(.post, APIPath.submissions, token: student, json: outdated).status == .created)

            let received = try await api.send(.get, APIPath.responses("quiz-1"), token: teacher).decode(ReceivedResponses.self)
            #expect(received.submissions.map(\.forced) == [false, true])

            #expect(try await api.send(.delete, APIPath.assessment("quiz-1"), token: teacher).status == .noContent)
            outdated.attemptId = "attempt-3"
            let gone = try await api.send(.post, APIPath.submissions, token: student, json: outdated)
            #expect(gone.status == .notFound)
            #expect(gone.errorCode == "gone")
            // The teacher still sees what came in for the deleted assessment.
            #expect(try await api.send(.get, APIPath.responses("quiz-1"), token: teacher).decode(ReceivedResponses.self).submissions.count == 2)
        }
    }
}

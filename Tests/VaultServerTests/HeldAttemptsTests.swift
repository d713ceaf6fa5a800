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

    @Test(
        "another device's answers after a hand-in: one given before it counts by time and the receipt is signed again over the final set; one given after is kept, not counted; the teacher sees both",
        arguments: Backend.all
    )
    func answersAfterHandIn(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let (teacher, token, served) = try await api.quizServed()
            // Device B holds q1 and q3 and hands the attempt in at 10:10.
            let q1 = Fixtures.item(served, question: "q1", answer: .string("b"), at: "2026-11-20T10:00:00.000Z")
            let q3 = Fixtures.item(served, question: "q3", answer: .bool(true), at: "2026-11-20T10:01:00.000Z")
            _ = try await api.batch([q1, q3], token: token)
            let request = SubmissionRequest(
                attemptId: "attempt-1",
                assessmentId: "quiz-1",
                assessmentVersion: 1,
                submittedAt: "2026-11-20T10:10:00.000Z",
                responseIds: [q1.id, q3.id]
            ).listing([q1, q3])
            let created = try await api.send(.post, APIPath.submissions, token: token, json: request)
            #expect(created.status == .created)
            let receipt = try created.decode(SubmissionReceipt.self)

            // Device A comes back: q3 changed at 10:05 (before the hand-in), q1 changed at 10:20 (after it).
            let changed = Fixtures.item(served, question: "q3", answer: .bool(false), at: "2026-11-20T10:05:00.000Z")
            let late = Fixtures.item(served, question: "q1", answer: .string("a"), at: "2026-11-20T10:20:00.000Z")
            let results = try await api.batch([changed, late], token: token)
            #expect(results.map(\.status) == [.accepted, .superseded], "\(results)")
            #expect(results[1].message?.contains("already handed in (on another device") == true)

            let received = try await api.send(.get, APIPath.responses("quiz-1"), token: teacher).decode(ReceivedResponses.self)
            let current = received.responses.filter { !$0.superseded }.map(\.id).sorted()
            #expect(current == [q1.id, changed.id].sorted(), "q3 by time; the late q1 does not count")
            #expect(received.submissions.count == 1, "one attempt, one submission")
            #expect(received.submissions.first?.flags == [.changedAfterHandIn, .answersAfterHandIn])
            // The score kept beside the hand-in follows the final set (A's q3 counts now).
            try await DeskTests.expectKeptScores(harness.storage, "quiz-1")

            // The receipt, read again: the same id, signed over the final set (A's q3, B's q1).
            let again = try await api.send(.post, APIPath.submissions, token: token, json: request)
            #expect(again.status == .ok)
            let final = try again.decode(SubmissionReceipt.self)
            #expect(final.receiptId == receipt.receiptId && final.responseCount == 2)
            let statement = try JSONDecoder().decode(
                ReceiptStatement.self,
                from: Data(try #require(final.signed?.statement).utf8)
            )
            #expect(statement.responses.map(\.responseId).sorted() == [q1.id, changed.id].sorted())

            // The teacher's sheet keeps both answers that do not count, each saying why.
            let replaced = try await harness.storage.replacedAnswers(attemptID: "attempt-1")
            #expect(replaced.map(\.questionID) == ["q1", "q3"])
            #expect(replaced.map(\.afterHandIn) == [true, false])
            let sheet = try await TeacherDesk(storage: harness.storage, now: { Date() }).sheet("quiz-1", user: "student")
            let lines = Dictionary(uniqueKeysWithValues: sheet.lines.map { ($0.question.id, $0) })
            #expect(lines["q3"]?.replaced.count == 1 && lines["q3"]?.replaced.first?.afterHandIn == false)
            #expect(lines["q1"]?.replaced.first?.afterHandIn == true)
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let page = try await browser.send(.get, "/desk/a/quiz-1/student?user=student").text
            #expect(
                page.contains("Earlier answers, not counted") && page.contains("after the hand-in on another device: kept, not counted"),
                "\(page)"
            )
            #expect(page.contains("replaced by a later answer") && page.contains("changed by another device after hand-in"), "\(page)")
        }
    }

    @Test(
        "a batch's device: the roster counts the devices of an attempt and when each was last seen; a malformed one is refused",
        arguments: Backend.all
    )
    func devicesOnTheRoster(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let (_, token, served) = try await api.quizServed()
            func upload(_ minute: Int, device: String?) async throws -> Int {
                let item = Fixtures.item(served, question: "q3", answer: .bool(minute % 2 == 0), at: "2026-11-20T10:0\(minute):00.000Z")
                let reply = try await api.send(.post, APIPath.batch, token: token, json: BatchRequest(responses: [item], device: device))
                return Int(reply.status.code)
            }
            #expect(try await upload(1, device: "Not A Device!") == 400)
            #expect(try await upload(1, device: "short") == 400)
            #expect(try await upload(1, device: "device-aaaa-1111") == 200)
            let one = try #require(
                try await TeacherDesk(storage: harness.storage, now: { Date() }).roster("quiz-1").students.first { $0.user == "student" }
            )
            #expect(one.devices == 1 && one.devicesText.isEmpty && one.stateText.hasPrefix("answering"), "\(one)")
            #expect(try await upload(2, device: "device-bbbb-2222") == 200)
            #expect(try await upload(3, device: nil) == 200, "a vault that names no device is still served")
            let two = try #require(
                try await TeacherDesk(storage: harness.storage, now: { Date() }).roster("quiz-1").students.first { $0.user == "student" }
            )
            #expect(two.devices == 2 && two.devicesLastSeen?.count == 2, "\(two)")
            #expect(two.stateText.hasSuffix(", on 2 devices"), "\(two.stateText)")
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let page = try await browser.send(.get, "/desk/a/quiz-1/student?user=student")
            #expect(page.text.contains("on 2 devices") && page.text.contains("Answered on 2 devices, last seen "), "\(page.text)")
        }
    }

    @Test(
        "POST /v1/given-up: 204 and the caller's own roster row says 'given up on the device'; 400 malformed, 404 unknown, 401 without a token",
        arguments: Backend.all
    )
    func givenUp(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            let token = try await api.token("student")
            let report = GivenUpReport(assessmentId: "quiz-1", attemptId: "attempt-9", items: 2)
            #expect(try await api.send(.post, APIPath.givenUp, json: report).status == .unauthorized)
            #expect(
                try await api.send(.post, APIPath.givenUp, token: token, json: GivenUpReport(assessmentId: "quiz-1", attemptId: "", items: 2)).status
                    == .badRequest
            )
            #expect(
                try await api.send(.post, APIPath.givenUp, token: token, json: GivenUpReport(assessmentId: "quiz-1", attemptId: "a", items: 0)).status
                    == .badRequest
            )
            #expect(
                try await api.send(.post, APIPath.givenUp, token: token, json: GivenUpReport(assessmentId: "nope", attemptId: "a", items: 1)).status
                    == .notFound
            )
            #expect(try await api.send(.post, APIPath.givenUp, token: token, json: report).status == .noContent)
            let roster = try await TeacherDesk(storage: harness.storage, now: { Date() }).roster("quiz-1")
            #expect(roster.students.first { $0.user == "student" }?.refusal == .givenUpOnDevice)
            #expect(roster.students.first { $0.user == "student2" }?.refusal == nil, "only the caller's row")
        }
    }
}

import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultCore
import VaultRules
import VaultServer
import VaultTestSupport

/// The attacks of the proof-of-hand-in review (issue "Proof of hand-in that holds against a middle box") against the
/// server, on both stores, each named after the attack.
struct HandInProofTests {
    /// A submission of `items` as the vault would send it.
    static func submission(
        _ items: [ResponseItem],
        attempt: String = "attempt-1",
        assessment: String = "quiz-1",
        version: Int = 1
    ) -> SubmissionRequest {
        SubmissionRequest(
            attemptId: attempt,
            assessmentId: assessment,
            assessmentVersion: version,
            submittedAt: "2026-11-20T10:10:00.000Z",
            responseIds: items.map(\.id)
        ).listing(items)
    }

    @Test(
        "partial receipt: a submission whose answer set leaves out stored answers or names unstored ones is refused with their ids; once they arrive the receipt is signed again over all",
        arguments: Backend.all
    )
    func partialReceipt(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let served = try await api.served("quiz-1", token: student)
            let items = [
                Fixtures.item(served, question: "q1", answer: .string("b")),
                Fixtures.item(served, question: "q3", answer: .bool(true)),
                Fixtures.item(served, question: "q6", answer: .string("An essay.")),
            ]
            // A middle box passed on two answers only, and struck the third from the submission: refused, with the
            // server's own set named (it holds q1 and q3; the listed set is smaller).
            _ = try await api.batch(Array(items.prefix(2)), token: student)
            let stripped = Self.submission(Array(items.prefix(1)))
            let differs = try await api.send(.post, APIPath.submissions, token: student, json: stripped)
            #expect(differs.status == .unprocessableContent)
            #expect(differs.errorCode == "answer_set_differs")
            #expect(try differs.decode(ErrorEnvelope.self).error.missing == [items[1].id])
            // The vault lists all three: the essay was never stored, so it is named as missing.
            let full = Self.submission(items)
            let missing = try await api.send(.post, APIPath.submissions, token: student, json: full)
            #expect(missing.errorCode == "responses_missing")
            #expect(try missing.decode(ErrorEnvelope.self).error.missing == [items[2].id])
            // A submission that omits the set is refused outright.
            var bare = full
            bare.answers = nil
            #expect(try await api.send(.post, APIPath.submissions, token: student, json: bare).status == .unprocessableContent)

            // A receipt issued over two answers (a submission that listed two), then the third arrives: the same
            // submission listing three gets the receipt signed again, naming all three, same receipt id.
            let two = Self.submission(Array(items.prefix(2)))
            let first = try await api.send(.post, APIPath.submissions, token: student, json: two)
            #expect(first.status == .created)
            let partial = try first.decode(SubmissionReceipt.self)
            _ = try await api.batch([items[2]], token: student)
            let amended = try await api.send(.post, APIPath.submissions, token: student, json: full)
            #expect(amended.status == .ok)
            let receipt = try amended.decode(SubmissionReceipt.self)
            #expect(receipt.receiptId == partial.receiptId && receipt.responseCount == 3)
            let statement = try JSONDecoder().decode(ReceiptStatement.self, from: Data(try #require(receipt.signed).statement.utf8))
            #expect(Set(statement.responses) == Set(try #require(full.answers)))
            // Repeated: the same bytes.
            let again = try await api.send(.post, APIPath.submissions, token: student, json: full).decode(SubmissionReceipt.self)
            #expect(again == receipt)
        }
    }

    @Test(
        "submission bound to its assessment: an attempt of algebra answered, submitted as another assessment, is refused and changes nothing",
        arguments: Backend.all
    )
    func submissionOfAnotherAssessment(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            try await api.publish(Fixtures.quiz(id: "quiz-2"), teacher: teacher)
            let served = try await api.served("quiz-1", token: student)
            let item = Fixtures.item(served, question: "q3", answer: .bool(true))
            _ = try await api.batch([item], token: student)
            let other = Self.submission([item], assessment: "quiz-2")
            let refused = try await api.send(.post, APIPath.submissions, token: student, json: other)
            #expect(refused.status == .unprocessableContent)
            #expect(try await api.send(.get, APIPath.responses("quiz-2"), token: teacher).decode(ReceivedResponses.self).submissions.isEmpty)
            // The right one still works, and then the other is still refused (no receipt for quiz-2 from it).
            #expect(try await api.send(.post, APIPath.submissions, token: student, json: Self.submission([item])).status == .created)
            #expect(try await api.send(.post, APIPath.submissions, token: student, json: other).status == .unprocessableContent)
        }
    }

    @Test(
        "control characters in names and ids: a NUL in a user name or an answer id gets the same 400 on both stores and changes nothing",
        arguments: Backend.all
    )
    func controlCharactersInNamesAndIDs(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            for name in ["teacher\u{0}q", "teacher\u{1B}", "teacher\u{85}"] {
                let login = try await api.send(.post, APIPath.token, json: TokenRequest(user: name, password: "teacher-pw"))
                #expect(login.status == .badRequest, "\(name.debugDescription)")
            }
            let served = try await api.served("quiz-1", token: student)
            let nul = Fixtures.item(served, question: "q3", answer: .bool(true), id: "r\u{0}x")
            let reply = try await api.send(.post, APIPath.batch, token: student, json: BatchRequest(responses: [nul]))
            #expect(reply.status == .badRequest)
            var control = Fixtures.item(served, question: "q3", answer: .bool(true))
            control.attemptId = "a\u{7}"
            #expect(try await api.send(.post, APIPath.batch, token: student, json: BatchRequest(responses: [control])).status == .badRequest)
            // "r" was never stored: a later "r" is accepted, not a duplicate.
            let plain = Fixtures.item(served, question: "q3", answer: .bool(true), id: "r")
            #expect(try await api.batch([plain], token: student).map(\.status) == [.accepted])
            var submission = Self.submission([plain])
            submission.responseIds = ["r\u{0}y"]
            #expect(try await api.send(.post, APIPath.submissions, token: student, json: submission).status == .badRequest)
        }
    }

    @Test(
        "attempts: a second attempt past the limit is refused with a sentence; results cannot be mined by many attempts; the teacher sees the second start flagged",
        arguments: Backend.all
    )
    func attemptLimit(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            var quiz = Fixtures.quiz(attempts: nil)
            quiz.results = .onSubmit
            try await api.publish(quiz, teacher: teacher)
            let served = try await api.served("quiz-1", token: student)
            let first = Fixtures.item(served, question: "q1", answer: .string("a"), attempt: "try-1")
            _ = try await api.batch([first], token: student)
            #expect(
                try await api.send(.post, APIPath.submissions, token: student, json: Self.submission([first], attempt: "try-1")).status == .created
            )
            // A second attempt (another choice, to learn the key from the score) is refused in a sentence.
            let second = Fixtures.item(served, question: "q1", answer: .string("b"), attempt: "try-2")
            _ = try await api.batch([second], token: student)
            let refused = try await api.send(.post, APIPath.submissions, token: student, json: Self.submission([second], attempt: "try-2"))
            #expect(refused.status == .unprocessableContent)
            #expect(refused.errorCode == "no_attempts_left")
            let message = try refused.decode(ErrorEnvelope.self).error.message
            #expect(message.contains("one attempt") && !message.contains("422"))
            let results = try await api.send(.get, APIPath.results, token: student).decode(ResultsResponse.self).results
            #expect(results.map(\.attemptId) == ["try-1"])
            // The first attempt's own resubmission still answers with its receipt.
            #expect(try await api.send(.post, APIPath.submissions, token: student, json: Self.submission([first], attempt: "try-1")).status == .ok)

            // Two attempts allowed: the second goes in, flagged for the teacher.
            try await api.publish(Fixtures.quiz(id: "quiz-2", attempts: 2), teacher: teacher)
            let served2 = try await api.served("quiz-2", token: student)
            let a = Fixtures.item(served2, question: "q3", answer: .bool(true), attempt: "two-1")
            let b = Fixtures.item(served2, question: "q3", answer: .bool(false), attempt: "two-2")
            _ = try await api.batch([a, b], token: student)
            #expect(
                try await api.send(.post, APIPath.submissions, token: student, json: Self.submission([a], attempt: "two-1", assessment: "quiz-2"))
                    .status == .created
            )
            #expect(
                try await api.send(.post, APIPath.submissions, token: student, json: Self.submission([b], attempt: "two-2", assessment: "quiz-2"))
                    .status == .created
            )
            let received = try await api.send(.get, APIPath.responses("quiz-2"), token: teacher).decode(ReceivedResponses.self)
            #expect(received.submissions.map { $0.flags ?? [] } == [[.secondAttempt], [.secondAttempt]])
        }
    }

    @Test(
        "time on the server's side: a timed submission without its times, or over the limit plus extra time plus grace, is stored and flagged",
        arguments: Backend.all
    )
    func timeFlags(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.storage.setAccommodation(assessmentID: "timed", user: "student2", extraMinutes: 10)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            var timed = Fixtures.quiz(id: "timed")
            timed.timeLimitSeconds = 600
            try await api.publish(timed, teacher: teacher)
            var cases: [(user: String, attempt: String, used: Int?, flags: [SubmissionFlag])] = [
                ("student", "no-times", nil, [.timeMissing]),
                ("student", "within", 600_000 + 9_000, [.secondAttempt]),
                ("student", "over", 600_000 + 11_000, [.overTime, .secondAttempt]),
                ("student2", "extra", 600_000 + 300_000, []),
            ]
            for (user, attempt, used, _) in cases {
                let token = try await api.token(user)
                let served = try await api.served("timed", token: token)
                let item = Fixtures.item(served, question: "q3", answer: .bool(true), attempt: attempt)
                _ = try await api.batch([item], token: token)
                var submission = Self.submission([item], attempt: attempt, assessment: "timed")
                if let used {
                    submission.startedAt = "2026-11-20T10:00:00.000Z"
                    submission.timeUsedMs = used
                }
                #expect(try await api.send(.post, APIPath.submissions, token: token, json: submission).status == .created)
            }
            let received = try await api.send(.get, APIPath.responses("timed"), token: teacher).decode(ReceivedResponses.self)
            cases.sort { $0.attempt < $1.attempt }
            #expect(received.submissions.map(\.attemptId) == cases.map(\.attempt))
            #expect(received.submissions.map { $0.flags ?? [] } == cases.map(\.flags))
        }
    }

    @Test("bounds: response_ids far longer than any assessment is refused before any store work", arguments: Backend.all)
    func oversizedSubmission(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let student = try await api.token("student")
            var huge = Self.submission([])
            huge.responseIds = (0..<(SubmissionPlan.maxListedAnswers + 1)).map { "id-\($0)" }
            let reply = try await api.send(.post, APIPath.submissions, token: student, json: huge)
            #expect(reply.status == .unprocessableContent)
            #expect(reply.errorCode == "too_many_answers")
        }
    }

    @Test("a sealed exam: an upload's refusal never tells which question ids exist", arguments: Backend.all)
    func sealedQuestionProbe(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(SealedExamTests.sealedQuiz(), teacher: teacher)
            let served = try await api.served("quiz-1", token: student)
            // A guess at a real id with a wrong hash and a made-up id: the same refusal, word for word.
            var real = Fixtures.item(served, question: "q3", answer: .bool(true))
            real.questionHash = String(repeating: "0", count: 64)
            var invented = Fixtures.item(served, question: "q99", answer: .bool(true))
            invented.questionHash = String(repeating: "0", count: 64)
            let results = try await api.batch([real, invented], token: student)
            #expect(results.map(\.status) == [.rejected, .rejected])
            #expect(results[0].message == results[1].message)
            #expect(results.allSatisfy { !($0.message ?? "").contains("q3") && !($0.message ?? "").contains("q99") })
        }
    }
}

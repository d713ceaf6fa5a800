import Foundation
import Hummingbird
import Testing
import VaultAPI
import VaultServer
import VaultServerPostgres
import VaultTestSupport

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

    /// PostgreSQL queues hand-ins of one assessment (an advisory lock, see `PostgresServerStorage.transaction`). A
    /// hand-in whose turn has not come must not sit on one of the pool's eight connections: twelve waiting hand-ins
    /// held all eight, and every other request was answered "unavailable" after the 2 s lease.
    @Test("PostgreSQL: twelve hand-ins waiting for their turn hold no connection; other requests are served, then all twelve land")
    func queuedHandInsHoldNoConnection() async throws {
        guard Backend.all.contains(.postgres) else { return }
        let harness = try await ServerHarness(.postgres)
        let database = try #require(harness.storage as? PostgresServerStorage).location.database
        let cluster = try await PostgresCluster.shared()
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            let students = [try await api.token("student"), try await api.token("student2")]
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let served = try await api.served("quiz-1", token: students[0])
            var requests: [(token: String, request: SubmissionRequest)] = []
            for index in 0..<12 {
                let token = students[index % 2]
                let item = Fixtures.item(served, question: "q3", answer: .bool(true), attempt: "attempt-\(index)")
                _ = try await api.batch([item], token: token)
                let request = SubmissionRequest(
                    attemptId: "attempt-\(index)",
                    assessmentId: "quiz-1",
                    assessmentVersion: 1,
                    submittedAt: "2026-11-20T10:10:00.000Z",
                    responseIds: [item.id]
                ).listing([item])
                requests.append((token, request))
            }
            // Another session holds the assessment's turn, as a long hand-in would, until the test lets it go.
            let locker = try Binaries.start(
                cluster.binaries + "/psql",
                [
                    "-h", "127.0.0.1", "-p", "\(cluster.port)", "-U", PostgresCluster.user, "-d", database, "-c",
                    "SELECT pg_advisory_lock(hashtextextended('submissions:quiz-1', 0)), pg_sleep(120)",
                ]
            )
            defer { if locker.isRunning { locker.terminate() } }
            for _ in 0..<200 {
                let held = try await Binaries.offPool { try cluster.psql(database, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'") }
                if held.trimmingCharacters(in: .whitespacesAndNewlines) == "1" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for (token, request) in requests {
                    group.addTask { try await api.send(.post, APIPath.submissions, token: token, json: request).status }
                }
                // While the twelve wait for their turn (each holding a connection, they would take all eight), the
                // rest of the server is served.
                try await Task.sleep(for: .milliseconds(2_500))
                let other = try await api.send(.get, APIPath.assessments, token: students[0])
                #expect(other.status == .ok, "\(other.status)")
                let waiting = try await api.send(.get, APIPath.responses("quiz-1"), token: teacher).decode(ReceivedResponses.self)
                #expect(waiting.submissions.isEmpty, "the hand-ins waited for their turn")
                _ = try await Binaries.offPool {
                    try cluster.psql(database, "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted")
                }
                var statuses: [HTTPResponse.Status] = []
                for try await status in group { statuses.append(status) }
                #expect(statuses == Array(repeating: .created, count: 12), "\(statuses)")
            }
            let received = try await api.send(.get, APIPath.responses("quiz-1"), token: teacher).decode(ReceivedResponses.self)
            #expect(received.submissions.count == 12)
        }
    }
}

import Foundation
import Testing
import VaultAPI
@_spi(Testing) import VaultCore
import VaultModel
import VaultServer
import VaultSync
import VaultTestSupport

/// The assessment changed under the student's answers; the student decides, or the assessment is gone.
struct ConflictTests {
    /// Answers q1 (changed in v2) and q2 (unchanged) on v1, submits, then the teacher publishes v2.
    static func changed<T: Sendable>(
        _ body: @Sendable (LiveServer, Vault, ServerClient, AsyncHTTPTransport, String) async throws -> T
    ) async throws -> T {
        try await SyncScenario.run(answers: [("q1", .string("b")), ("q2", .bool(true))]) { server, vault, client, transport, attempt in
            _ = try await server.publish(SampleDocuments.quiz(prompt: "A different first question"))
            return try await body(server, vault, client, transport, attempt)
        }
    }

    @Test("keep: unchanged answers go up, changed ones wait with the teacher's contact, nothing is forced")
    func keep() async throws {
        try await Self.changed { server, vault, client, transport, attempt in
            let report = try await SyncScenario.engine(vault, client, transport: transport).run()
            #expect(report.uploaded == 1)
            #expect(report.conflicts >= 1)
            #expect(report.needsAttention)
            let groups = try vault.conflictGroups()
            #expect(groups.count == 1)
            #expect(groups[0].questionIDs == ["q1"])
            #expect(groups[0].localVersion == 1 && groups[0].serverVersion == 2)
            #expect(groups[0].teacherContact == "t@school.example")
            #expect(groups[0].title == "Quiz quiz")
            #expect(try vault.status().conflicts == 1)
            let received = try #require(try await server.storage.received(assessmentID: "quiz"))
            #expect(received.responses.count == 1 && received.submissions.isEmpty)
            #expect(try vault.attempt(attempt).state == .submitted)
        }
    }

    @Test("submit anyway: the changed answers and the submission go up forced")
    func submitAnyway() async throws {
        try await Self.changed { server, vault, client, transport, attempt in
            let report = try await SyncScenario.engine(vault, client, transport: transport, resolver: FixedConflictPolicy(.submit)).run()
            #expect(report.conflicts == 0 && report.submitted == 1)
            let received = try #require(try await server.storage.received(assessmentID: "quiz"))
            #expect(received.responses.count == 2)
            #expect(received.responses.filter(\.forced).map(\.questionId) == ["q1"])
            #expect(received.submissions.first?.forced == true)
            #expect(try vault.attempt(attempt).state == .synced)
        }
    }

    @Test("discard: the changed answers are dropped, the rest goes up, and the new version is downloaded")
    func discard() async throws {
        try await Self.changed { server, vault, client, transport, _ in
            let report = try await SyncScenario.engine(vault, client, transport: transport, resolver: FixedConflictPolicy(.discard)).run()
            #expect(report.conflicts == 0 && report.submitted == 1)
            let received = try #require(try await server.storage.received(assessmentID: "quiz"))
            #expect(received.responses.map(\.questionId) == ["q2"])
            #expect(try vault.cachedAssessments().map(\.version).contains(2))
            // The new version can be taken afresh.
            #expect(try vault.openAttempt(on: "quiz").assessment.version == 2)
        }
    }

    @Test("a submission refused as outdated (409) waits for the decision too")
    func outdatedSubmission() async throws {
        try await SyncScenario.run(answers: [("q2", .bool(true))]) { server, vault, client, transport, _ in
            _ = try await server.publish(SampleDocuments.quiz(prompt: "Changed q1 only"))
            let kept = try await SyncScenario.engine(vault, client, transport: transport).run()
            #expect(kept.uploaded == 1 && kept.submitted == 0)
            #expect(kept.conflicts == 1)
            let forced = try await SyncScenario.engine(vault, client, transport: transport, resolver: FixedConflictPolicy(.submit)).run()
            #expect(forced.submitted == 1)
            #expect(try #require(try await server.storage.received(assessmentID: "quiz")).submissions.first?.forced == true)
        }
    }

    @Test("a deleted assessment: 'no longer available', answers and submission kept as dead letters")
    func gone() async throws {
        try await SyncScenario.run { server, vault, client, transport, _ in
            _ = try await server.storage.delete(id: "quiz", now: Date())
            let report = try await SyncScenario.engine(vault, client, transport: transport).run()
            #expect(report.gone == 4)
            #expect(report.deadLetters == 4)
            let letters = try vault.deadLetters()
            #expect(letters.allSatisfy { $0.reason == "This assessment is no longer available." })
            #expect(letters.filter { $0.kind == .response }.compactMap(\.payload).count == 3)
            #expect(try vault.queueLength() == 0)
        }
    }

    @Test("the server lost answers it had acknowledged (422 on submit): they are sent again")
    func missingResponses() async throws {
        try await SyncScenario.run(submit: false) { server, vault, client, transport, attempt in
            _ = try await SyncScenario.engine(vault, client, transport: transport).run()
            // The server forgets one answer (as after a restore from backup).
            let ids = try vault.database.rows("SELECT id FROM responses").map { try $0.string(0) }
            try vault.submitAttempt(attempt)
            // The key is pinned first (as at login), so the scripted 422 is the submission's.
            try vault.pinServerKey(try await client.serverKey(), serverURL: "")
            let fake = FaultInjectingTransport(
                inner: transport,
                script: [
                    .reply(status: 422, headers: [:], body: #"{"error":{"code":"responses_missing","message":"m","missing":["\#(ids[0])"]}}"#)
                ]
            )
            let report = try await SyncScenario.engine(vault, client, transport: fake).run()
            #expect(report.duplicates == 1)
            #expect(report.submitted == 1)
            _ = server
        }
    }
}

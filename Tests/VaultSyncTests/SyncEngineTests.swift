import Foundation
import Testing
import VaultAPI
@_spi(Testing) import VaultCore
import VaultModel
import VaultServer
import VaultSync
import VaultTestSupport

/// The sync engine against the real server over real HTTP, with faults injected in between.
struct SyncEngineTests {
    @Test("everything goes up once, the submission gets a receipt, and a second run sends nothing")
    func happyPath() async throws {
        try await SyncScenario.run { server, vault, client, transport, attempt in
            let report = try await SyncScenario.engine(vault, client, transport: transport).run()
            #expect(report.uploaded == 3 && report.submitted == 1 && report.remaining == 0)
            #expect(report.receipts.count == 1)
            let received = try #require(try await server.storage.received(assessmentID: "quiz"))
            #expect(received.responses.count == 3)
            #expect(received.submissions.map(\.attemptId) == [attempt])
            #expect(try vault.attempt(attempt).state == .synced)
            let again = try await SyncScenario.engine(vault, client, transport: transport).run()
            #expect(again.uploaded == 0 && again.submitted == 0)
            #expect(try vault.status().lastSyncAt != nil)
        }
    }

    @Test("a response lost after the server applied it: resent, answered duplicate, stored once")
    func lostResponse() async throws {
        try await SyncScenario.run { server, vault, client, transport, _ in
            let faulty = FaultInjectingTransport(inner: transport, script: [.lostResponse])
            let sleeps = RecordedSleeps()
            let report = try await SyncScenario.engine(vault, client, transport: faulty, sleeps: sleeps).run()
            #expect(report.duplicates == 3)
            #expect(report.uploaded == 0)
            #expect(report.submitted == 1)
            #expect(try #require(try await server.storage.received(assessmentID: "quiz")).responses.count == 3)
            #expect(sleeps.waits.count == 1 && sleeps.waits.allSatisfy { $0 <= .milliseconds(1_000) }, "the first retry comes after a second")
        }
    }

    @Test("5xx, timeouts and 429 are retried on the schedule, honouring Retry-After")
    func retries() async throws {
        try await SyncScenario.run { server, vault, client, transport, _ in
            let faulty = FaultInjectingTransport(
                inner: transport,
                script: [
                    .reply(status: 503, headers: [:], body: "{}"), .timeoutBefore,
                    .reply(status: 429, headers: ["retry-after": "3"], body: "{}"),
                ]
            )
            let sleeps = RecordedSleeps()
            let report = try await SyncScenario.engine(vault, client, transport: faulty, sleeps: sleeps).run()
            #expect(report.uploaded == 3 && report.submitted == 1)
            // 1st failure: 1 s; 2nd: 2 s; 3rd: the schedule says 4 s, but the server asked for 3 s, and it wins.
            let seconds = sleeps.waits.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
            #expect(seconds.count == 3, "\(seconds)")
            #expect(seconds.count == 3 && (0.5...1.0).contains(seconds[0]) && (1.5...2.0).contains(seconds[1]) && (2.5...3.0).contains(seconds[2]))
            #expect(faulty.batchRequests == 4)
            #expect(try #require(try await server.storage.received(assessmentID: "quiz")).responses.count == 3)
        }
    }

    @Test("a wait longer than 10 s ends the run with the work kept and the next try named")
    func longBackoff() async throws {
        try await SyncScenario.run { _, vault, client, transport, _ in
            let faulty = FaultInjectingTransport(inner: transport)
            faulty.rule = { _ in .reply(status: 500, headers: [:], body: "{}") }
            let sleeps = RecordedSleeps()
            let stopped = await SyncScenario.stopped { try await SyncScenario.engine(vault, client, transport: faulty, sleeps: sleeps).run() }
            #expect(stopped?.report.remaining == 4)
            #expect(stopped?.nextTryAt != nil)
            let pending = try vault.status().pendingAnswers
            let letters = try vault.deadLetters()
            #expect(pending == 3)
            #expect(letters.isEmpty)
        }
    }

    @Test("after the maximum tries an upload becomes a dead letter with its content kept")
    func deadLetterAfterMaxTries() async throws {
        try await SyncScenario.run(submit: false) { _, vault, client, transport, _ in
            let faulty = FaultInjectingTransport(inner: transport)
            faulty.rule = { _ in .reply(status: 502, headers: [:], body: "") }
            let engine = SyncScenario.engine(vault, client, transport: faulty) { options in
                options.maxTries = 3
                options.maxInlineWait = .seconds(3_600)
            }
            let report = try await engine.run()
            #expect(report.deadLetters == 3)
            let letters = try vault.deadLetters()
            #expect(letters.allSatisfy { $0.reason.hasPrefix("Gave up after 3 tries") })
            #expect(letters.compactMap { $0.payload }.count == 3)
            // retry puts one back in the queue; with the server healthy it goes up.
            try vault.retryDeadLetter(letters[0].id)
            faulty.rule = nil
            let again = try await SyncScenario.engine(vault, client, transport: faulty).run()
            #expect(again.uploaded == 1 && again.deadLetters == 2)
        }
    }

    @Test("413 splits the batch until it fits")
    func splitOnTooLarge() async throws {
        let answers: [(String, JSONValue)] = [("q1", .string("b")), ("q2", .bool(false)), ("q3", .string("x"))]
        try await SyncScenario.run(answers: answers, submit: false) { server, vault, client, transport, _ in
            let faulty = FaultInjectingTransport(inner: transport)
            faulty.rule = { request in
                let count =
                    request.body.flatMap { try? Gzip.decompress($0) }.flatMap { try? JSONDecoder().decode(BatchRequest.self, from: $0) }?.responses
                    .count ?? 0
                return count > 1 ? .reply(status: 413, headers: [:], body: "{}") : .pass
            }
            let report = try await SyncScenario.engine(vault, client, transport: faulty).run()
            #expect(report.uploaded == 3)
            #expect(try #require(try await server.storage.received(assessmentID: "quiz")).responses.count == 3)
        }
    }

    @Test("an answer given up on the device (too large even alone) is reported once: the roster shows 'given up on the device'")
    func givenUpIsReported() async throws {
        let answers: [(String, JSONValue)] = [("q1", .string("b")), ("q3", .string(String(repeating: "A long day. ", count: 400)))]
        try await SyncScenario.run(answers: answers, submit: false) { server, vault, client, transport, attempt in
            let faulty = FaultInjectingTransport(inner: transport)
            // The server's limit, as a middle box or a smaller server would set it: the essay never fits.
            faulty.rule = { request in
                let batch = request.body.flatMap { try? Gzip.decompress($0) }.flatMap { try? JSONDecoder().decode(BatchRequest.self, from: $0) }
                return batch?.responses.contains { $0.questionId == "q3" } == true ? .reply(status: 413, headers: [:], body: "{}") : .pass
            }
            let report = try await SyncScenario.engine(vault, client, transport: faulty).run()
            #expect(report.uploaded == 1 && report.deadLetters == 1, "\(report)")
            #expect(faulty.count("/v1/given-up") == 1)
            let roster = try await TeacherDesk(storage: server.storage, now: { Date() }).roster("quiz")
            let row = try #require(roster.students.first { $0.user == "student" })
            #expect(row.state == .refused && row.refusal == .givenUpOnDevice, "\(row)")
            #expect(row.stateText == "given up on the device (answers kept there)")
            _ = try await SyncScenario.engine(vault, client, transport: faulty).run()
            #expect(faulty.count("/v1/given-up") == 1, "reported once")
            // Heard from again (another answer of the attempt): answering, not given up.
            faulty.rule = nil
            try vault.recordAnswer(attemptID: attempt, questionID: "q2", answer: .bool(true))
            _ = try await SyncScenario.engine(vault, client, transport: faulty).run()
            let again = try #require(
                try await TeacherDesk(storage: server.storage, now: { Date() }).roster("quiz").students.first { $0.user == "student" }
            )
            #expect(again.state == .answering, "\(again)")
        }
    }

    @Test("batches are bounded by count and by bytes")
    func batching() async throws {
        let answers: [(String, JSONValue)] =
            (0..<1).map { _ in ("q3", .string(String(repeating: "long essay ", count: 300))) }
            + [("q1", .string("a")), ("q2", .bool(true))]
        try await SyncScenario.run(answers: answers, submit: false) { _, vault, client, transport, _ in
            let faulty = FaultInjectingTransport(inner: transport)
            let report = try await SyncScenario.engine(vault, client, transport: faulty) { options in
                options.batchSize = 2
                options.maxBatchBytes = 2_048
            }.run()
            #expect(report.uploaded == 3)
            // The 3 KB essay goes alone (over the byte bound); the other two share a batch (count bound 2).
            #expect(faulty.batchRequests == 2)
        }
    }

    @Test("401 stops the run and marks nothing; 400 keeps the content as dead letters")
    func refusals() async throws {
        try await SyncScenario.run(submit: false) { _, vault, client, transport, _ in
            let expired = FaultInjectingTransport(inner: transport, script: [.reply(status: 401, headers: [:], body: "{}")])
            await #expect(throws: ServerError.signInExpired) { try await SyncScenario.engine(vault, client, transport: expired).run() }
            #expect(try vault.status().pendingAnswers == 3)
            let bad = FaultInjectingTransport(
                inner: transport,
                script: [.reply(status: 400, headers: [:], body: #"{"error":{"code":"bad_request","message":"nope"}}"#)]
            )
            let report = try await SyncScenario.engine(vault, client, transport: bad).run()
            #expect(report.deadLetters == 3)
            #expect(try vault.status().pendingAnswers == 0)
        }
    }

    @Test("offline midway: the run stops, the queue is intact, nothing is counted as a try")
    func offlineMidway() async throws {
        try await SyncScenario.run { _, vault, client, transport, _ in
            let faulty = FaultInjectingTransport(inner: transport)
            faulty.rule = { _ in .unreachable }
            let stopped = await SyncScenario.stopped { try await SyncScenario.engine(vault, client, transport: faulty).run() }
            #expect(stopped?.reason == .offline)
            let queued = try vault.queueLength()
            let tries = try vault.database.scalarInt("SELECT max(tries) FROM sync_queue")
            #expect(queued == 4)
            #expect(tries == 0)
        }
    }

    @Test("a lying server: results that do not match the batch are not trusted")
    func lyingServer() async throws {
        try await SyncScenario.run(submit: false) { _, vault, client, transport, _ in
            let liar = FaultInjectingTransport(
                inner: transport,
                script: [.reply(status: 200, headers: [:], body: #"{"results":[{"id":"someone-else","status":"accepted"}]}"#)]
            )
            let report = try await SyncScenario.engine(vault, client, transport: liar).run()
            #expect(report.uploaded == 0)
            #expect(report.deadLetters == 3)
            #expect(try vault.database.scalarInt("SELECT count(*) FROM responses WHERE state = 'synced'") == 0)
        }
    }
}

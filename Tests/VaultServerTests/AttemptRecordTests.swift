import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultCore
import VaultModel
import VaultRules
import VaultServer
import VaultTestSupport

/// The attempt's own record (issue 55) on arrival: verified when whole, flagged "does not verify" when an event was
/// removed (the last one too) or changed on the way, never at the cost of an answer.
struct AttemptRecordTests {
    /// A record as a vault makes it: a chain of events signed over its head and length by `key`.
    static func upload(_ kinds: [(RecordEvent.Kind, String?, Int?)], attemptID: String, key: DeviceKey) throws -> AttemptLogUpload {
        var events: [RecordEvent] = []
        for (index, (kind, question, count)) in kinds.enumerated() {
            events.append(
                RecordChain.next(
                    after: events.last,
                    at: "2026-11-20T10:0\(index % 10):00.000Z",
                    bootMs: Int64(1_000 * index),
                    kind: kind,
                    question: question,
                    count: count
                )
            )
        }
        return try signed(events, attemptID: attemptID, key: key)
    }

    static func signed(_ events: [RecordEvent], attemptID: String, key: DeviceKey) throws -> AttemptLogUpload {
        let statement = AttemptLogUpload.statement(attemptID: attemptID, head: RecordChain.head(events), count: events.count)
        return AttemptLogUpload(events: events, deviceKey: key.publicKey, signature: try key.signature(for: statement))
    }

    @Test(
        "a whole record verifies; one with its last event removed or an event changed on the way is kept as 'does not verify', every answer stored once; no answer text anywhere",
        arguments: Backend.all
    )
    func verification(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let (teacher, student, served) = try await api.quizServed()
            let key = DeviceKey()
            #expect(try await api.send(.post, APIPath.deviceKeys, token: student, json: DeviceKeyRequest(publicKey: key.publicKey)).status.code < 300)
            let canary = "CANARY-55-TEXT"
            var cases: [(attempt: String, tamper: (AttemptLogUpload) throws -> AttemptLogUpload, verifies: Bool)] = []
            cases.append(("rec-whole", { $0 }, true))
            cases.append(
                (
                    "rec-tail",
                    { upload in
                        var cut = upload
                        cut.events.removeLast()
                        return cut
                    }, false
                )
            )
            cases.append(
                (
                    "rec-changed",
                    { upload in
                        var changed = upload
                        changed.events[2].count = 5_000
                        return changed
                    }, false
                )
            )
            for (attempt, tamper, verifies) in cases {
                let item = Fixtures.item(served, question: "q5", answer: .string(canary), attempt: attempt)
                #expect(try await api.batch([item], token: student).map(\.status) == [.accepted])
                var submission = SubmissionRequest(
                    attemptId: attempt,
                    assessmentId: "quiz-1",
                    assessmentVersion: 1,
                    submittedAt: "2026-11-20T10:10:00.000Z",
                    responseIds: [item.id]
                ).listing([item])
                let record = try Self.upload(
                    [
                        (.started, nil, nil), (.answered, "q5", nil), (.pasted, "q5", 300), (.left, "q5", nil), (.returned, nil, nil),
                        (.submitted, nil, nil),
                    ],
                    attemptID: attempt,
                    key: key
                )
                submission.record = try tamper(record)
                #expect(try await api.send(.post, APIPath.submissions, token: student, json: submission).status == .created)
                let kept = try await harness.storage.records(assessmentID: "quiz-1", user: "student").filter { $0.attemptID == attempt }
                #expect(kept.count == 1 && kept.first?.verified == verifies, "\(attempt): \(kept.map(\.problem))")
                if !verifies { #expect(kept.first?.problem?.isEmpty == false) }
            }
            // Every answer stored once, whatever the records said.
            let received = try await api.send(.get, APIPath.responses("quiz-1"), token: teacher).decode(ReceivedResponses.self)
            #expect(received.submissions.count == 3 && received.responses.filter { $0.questionId == "q5" }.count == 3)
            // The roster says so in words (the changed record claims 5,000 of them), and no answer text is in any record.
            let roster = try await TeacherDesk(storage: harness.storage, now: { Date() }).roster("quiz-1")
            let words = try #require(roster.students.first { $0.user == "student" }?.record?.words)
            #expect(words.contains("its record does not verify") && words.contains("pasted 5,600 characters into q5"), "\(words)")
            #expect(words.contains("left the exam screen 3 times"))
            // The answer sheet shows the attempt's timeline, and why a record does not verify.
            let desk = TeacherDesk(storage: harness.storage, now: { Date() })
            let whole = try await desk.sheet("quiz-1", user: "student", attempt: "rec-whole")
            #expect(whole.record.map(\.event.kind) == [.started, .answered, .pasted, .left, .returned, .submitted] && whole.recordProblems.isEmpty)
            let cut = try await desk.sheet("quiz-1", user: "student", attempt: "rec-tail")
            #expect(cut.recordProblems.first?.contains("does not verify") == true, "\(cut.recordProblems)")
            let stored = try await harness.storage.records(assessmentID: "quiz-1", user: nil)
            #expect(!String(decoding: try CanonicalJSON.encode(stored.map(\.events)), as: UTF8.self).contains(canary))
        }
    }

    @Test("a record signed by a key that is not the student's, or with a hostile question field, does not verify and keeps no such text")
    func hostileRecords() throws {
        let key = DeviceKey()
        let record = try Self.upload([(.started, nil, nil), (.answered, "q1", nil)], attemptID: "a1", key: key)
        #expect(RecordRules.check(record, attemptID: "a1", registeredKeys: [key.publicKey]) == nil)
        #expect(RecordRules.check(record, attemptID: "a1", registeredKeys: [DeviceKey().publicKey]) != nil)
        #expect(RecordRules.check(record, attemptID: "another", registeredKeys: [key.publicKey]) != nil, "bound to its attempt")
        var hostile = record.events
        hostile[1].question = "\u{1B}]0;owned\u{07}"
        hostile[1].hash = RecordChain.hash(hostile[1])
        #expect(!AttemptRecordIntake.isWellFormed(hostile[1]))
        #expect(AttemptRecordIntake.isWellFormed(record.events[1]))
    }

    @Test(
        "what a record leaves out (issue 70): one that begins anywhere but the start, and answers with no event, are named; a whole record, a second device's record, a blank hand-in and no record at all leave nothing out"
    )
    func gaps() throws {
        let key = DeviceKey()
        func stored(_ kinds: [(RecordEvent.Kind, String?, Int?)]) throws -> StoredAttemptRecord {
            let upload = try Self.upload(kinds, attemptID: "a1", key: key)
            return StoredAttemptRecord(
                attemptID: "a1",
                deviceKey: key.publicKey,
                user: "student",
                assessmentID: "quiz-1",
                events: upload.events,
                verified: true,
                problem: nil,
                receivedAt: 0
            )
        }
        let whole = try stored([(.started, nil, nil), (.answered, "q1", nil), (.answered, "q2", nil), (.submitted, nil, nil)])
        #expect(RecordRules.gaps([whole], answered: ["q1", "q2"]).isEmpty)
        // Emptied before the hand-in (DELETE FROM attempt_log): only "submitted" is left.
        let emptied = try stored([(.submitted, nil, nil)])
        let said = RecordRules.gaps([emptied], answered: ["q1", "q2"])
        #expect(said.count == 2 && said[0].contains("does not begin") && said[1].contains("the answers to q1, q2"), "\(said)")
        // Rewritten with the answers' events taken out.
        let rewritten = try stored([(.started, nil, nil), (.answered, "q1", nil), (.submitted, nil, nil)])
        #expect(RecordRules.gaps([rewritten], answered: ["q1", "q2"]) == ["its record has no event for the answer to q2"])
        // A second device's record begins with continued_elsewhere; the first device's answers are not looked for.
        let second = try stored([(.continuedElsewhere, nil, nil), (.answered, "q2", nil), (.submitted, nil, nil)])
        #expect(RecordRules.gaps([second], answered: ["q1", "q2"]).isEmpty)
        // A blank hand-in of an untimed test has no start (it starts with its first answer).
        #expect(RecordRules.gaps([emptied], answered: []).isEmpty)
        #expect(RecordRules.gaps([], answered: ["q1"]).isEmpty, "a vault from before records")
        let summary = RecordRules.summary([emptied], answered: ["a1": ["q1"]])
        #expect(summary.words.contains("its record does not verify") && summary.gaps?.count == 2, "\(summary)")
    }
}

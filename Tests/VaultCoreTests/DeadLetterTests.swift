import Foundation
import Testing
import VaultAPI
@_spi(Testing) import VaultCore
import VaultModel
import VaultTestSupport

@Suite(.ownThreads)
struct DeadLetterTests {
    let directory = TemporaryDirectory()

    @Test("a dead letter keeps the answer's content; retry requeues it; discard removes it for good")
    func lifecycle() throws {
        let vault = try TestVault.create(in: directory)
        let (document, bytes) = TestDocuments.served("quiz")
        _ = try vault.storeAssessment(document, bytes: bytes, etag: nil, diskSpace: .fixed(1 << 40))
        let attempt = try vault.openAttempt(on: "quiz")
        let id = try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("keep me"))
        try vault.moveToDeadLetters(kind: .response, refID: id, reason: "test reason")
        let letters = try vault.deadLetters()
        #expect(letters.count == 1 && letters[0].reason == "test reason")
        if case .object(let payload)? = letters[0].payload { #expect(payload["answer"] == .string("keep me")) } else { Issue.record("no payload") }
        #expect(try vault.queueLength() == 0)
        try vault.retryDeadLetter(letters[0].id)
        #expect(try vault.queueLength() == 1)
        #expect(try vault.deadLetters().isEmpty)
        try vault.moveToDeadLetters(kind: .response, refID: id, reason: "again")
        try vault.discardDeadLetter(try vault.deadLetters()[0].id)
        #expect(try vault.database.scalarInt("SELECT count(*) FROM responses") == 0)
        #expect(throws: VaultError.self) { try vault.retryDeadLetter(999) }
    }

    @Test("verify reports a stored blob that no longer decompresses")
    func damagedBlob() throws {
        let vault = try TestVault.create(in: directory)
        let (document, bytes) = TestDocuments.served("quiz")
        _ = try vault.storeAssessment(document, bytes: bytes, etag: nil, diskSpace: .fixed(1 << 40))
        try vault.database.execute("UPDATE assessments SET document = x'1f8b0800000000000003deadbeef'", [])
        let report = vault.verify()
        #expect(!report.ok)
        #expect(report.problems.contains { $0.contains("quiz version 1") })
        #expect(throws: VaultError.self) { _ = try vault.loadAssessment(id: "quiz") }
    }
}

@Suite(.ownThreads)
struct SyncQueuePlanTests {
    @Test("reading a batch walks the queue in seq order from the cursor: no index on kind, no sort of the whole queue")
    func batchQueryPlan() throws {
        let directory = TemporaryDirectory()
        let vault = try TestVault.create(in: directory)
        let plan = try vault.database.rows("EXPLAIN QUERY PLAN " + Vault.queuedResponsesSQL, [0, true, 0, 100]).map { try $0.string(3) }
        // SQLite 3.15 chose the (kind, ref_id) unique index here and sorted the queue for every batch: quadratic.
        #expect(plan.first?.contains("sync_queue") == true && plan.first?.contains("INTEGER PRIMARY KEY") == true, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") || $0.contains("sqlite_autoindex_sync_queue") }, "\(plan)")
    }
}

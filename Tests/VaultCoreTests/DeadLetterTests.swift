import Foundation
import Testing
import VaultAPI
@_spi(Testing) import VaultCore
import VaultTestSupport

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
        #expect(report.problems.contains { $0.contains("quiz v1") })
        #expect(throws: VaultError.self) { _ = try vault.loadAssessment(id: "quiz") }
    }
}

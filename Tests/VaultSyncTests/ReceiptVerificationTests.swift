import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultModel
import VaultSync

/// The vault's side of signed receipts, against the real server: a receipt that does not verify changes nothing.
struct ReceiptVerificationTests {
    @Test(
        "a flipped byte, another server's signature, a missing signature or another attempt's receipt: refused, nothing marked; the real one is kept and checks against the vault's answers"
    )
    func hostileReceipts() async throws {
        try await SyncScenario.run(submit: false) { _, vault, client, transport, attempt in
            _ = try await SyncScenario.engine(vault, client, transport: transport).run()
            try vault.submitAttempt(attempt)
            let served = try await client.serverKey()
            try vault.pinServerKey(served, serverURL: "")
            let request = try #require(try vault.queuedSubmissions(now: Date(), ignoreBackoff: true).first).request
            let real = try await client.submit(request)
            let signed = try #require(real.signed)

            func refused(_ receipt: SubmissionReceipt, attempt: String = attempt) {
                #expect(throws: VaultError.self) { try vault.acceptReceipt(receipt, attemptID: attempt) }
                #expect((try? vault.queueLength()) == 1, "the submission stays queued")
                #expect((try? vault.receipts())?.isEmpty == true)
            }
            var flipped = real
            var bytes = Array(signed.statement.utf8)
            bytes[bytes.count / 2] ^= 0x04
            flipped.signed = SignedReceipt(statement: String(decoding: bytes, as: UTF8.self), signature: signed.signature)
            refused(flipped)
            var forged = real
            forged.signed = try ServerIdentity().sign(try JSONDecoder().decode(ReceiptStatement.self, from: Data(signed.statement.utf8)))
            refused(forged)
            var unsigned = real
            unsigned.signed = nil
            refused(unsigned)
            refused(real, attempt: "another-attempt")

            try vault.acceptReceipt(real, attemptID: attempt)
            #expect(try vault.queueLength() == 0)
            let kept = try vault.receipts(matching: "quiz")
            #expect(kept.map(\.statement.receiptId) == [real.receiptId])
            #expect(try vault.receipts(matching: real.receiptId).count == 1)
            #expect(try vault.check(signed).mismatchedQuestions == [])
            #expect(vault.verify().ok, "\(vault.verify().problems)")

            // A receipt (signed by the pinned key) naming another answer than the vault holds is reported.
            let identity = ServerIdentity()
            try vault.pinServerKey(identity.publicKey.response, serverURL: "")
            var statement = try JSONDecoder().decode(ReceiptStatement.self, from: Data(signed.statement.utf8))
            statement.keyFingerprint = identity.publicKey.fingerprint
            statement.responses[0].answerSha256 = answerDigest(canonicalAnswer: Data(#""something else""#.utf8))
            let other = try identity.sign(statement)
            #expect(try vault.check(other).mismatchedQuestions == [statement.responses[0].questionId])
            // The pinned key changed under a kept receipt (the vault joined a classroom): it still checks out by the key
            // that signed it, kept for good (issue 69); a receipt no key of this vault signed is still refused.
            #expect(!vault.verify().problems.contains { $0.contains(real.receiptId) }, "\(vault.verify().problems)")
            #expect(try vault.check(signed).mismatchedQuestions == [])
            #expect(throws: VaultError.self) { try vault.check(forged.signed!) }
        }
    }

    @Test(
        "a verified receipt that leaves out one answer is not accepted: the answer goes back into the queue, nothing is marked handed in, check names it"
    )
    func partialReceiptAccepted() async throws {
        try await SyncScenario.run(submit: false) { _, vault, client, transport, attempt in
            _ = try await SyncScenario.engine(vault, client, transport: transport).run()
            try vault.submitAttempt(attempt)
            let identity = ServerIdentity()
            try vault.pinServerKey(identity.publicKey.response, serverURL: "")
            let request = try #require(try vault.queuedSubmissions(now: Date(), ignoreBackoff: true).first).request
            let answers = try #require(request.answers)
            #expect(answers.count >= 2)
            let statement = ReceiptStatement(
                receiptId: "rcpt-partial",
                keyFingerprint: identity.publicKey.fingerprint,
                user: "student",
                attemptId: attempt,
                assessmentId: request.assessmentId,
                assessmentVersion: request.assessmentVersion,
                contentHash: "x",
                submittedAt: request.submittedAt,
                receivedAt: request.submittedAt,
                timeUsedMs: nil,
                clockMovedBackMs: nil,
                forced: false,
                responses: Array(answers.dropFirst())
            )
            let signed = try identity.sign(statement)
            let left = answers[0]
            let before = try vault.queueLength()
            #expect(throws: IncompleteReceipt(questions: [left.questionId], requeued: [left.responseId])) {
                try vault.acceptReceipt(
                    SubmissionReceipt(
                        receiptId: "rcpt-partial",
                        attemptId: attempt,
                        assessmentId: request.assessmentId,
                        assessmentVersion: request.assessmentVersion,
                        receivedAt: request.submittedAt,
                        responseCount: answers.count - 1,
                        signed: signed
                    ),
                    attemptID: attempt
                )
            }
            #expect(try vault.queueLength() == before + 1, "the left-out answer is queued again")
            #expect(try vault.receipts().isEmpty)
            #expect(try vault.check(signed).missingQuestions == [left.questionId])
            #expect(try vault.check(signed).coversEverything == false)
            #expect(throws: VaultError.self) { try vault.importReceipt(signed) }
        }
    }
}

import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultCore
import VaultModel
import VaultServer
import VaultTestSupport

struct ReceiptTests {
    @Test(
        "a submission's receipt is signed by the served key, names every answer by its hash, is the same when repeated; any flipped byte or another server's key fails",
        arguments: Backend.all
    )
    func signedReceipts(backend: Backend) async throws {
        let other = try await ServerHarness(backend).test { api in
            try await api.send(.get, APIPath.serverKey).decode(ServerKeyResponse.self)
        }
        try await ServerHarness(backend).test { api in
            let served = try await api.send(.get, APIPath.serverKey)
            #expect(served.status == .ok)
            let keyResponse = try served.decode(ServerKeyResponse.self)
            let key = try ServerPublicKey(keyResponse)
            #expect(keyResponse != other && key.fingerprint.count == 39)
            // The same key on the next request (it is stored, not made per request).
            #expect(try await api.send(.get, APIPath.serverKey).decode(ServerKeyResponse.self) == keyResponse)

            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let quiz = try await api.served("quiz-1", token: student)
            let first = Fixtures.item(quiz, question: "q3", answer: .bool(false), at: "2026-11-20T10:00:00.000Z")
            let later = Fixtures.item(quiz, question: "q3", answer: .bool(true), at: "2026-11-20T10:02:00.000Z")
            let text = Fixtures.item(quiz, question: "q5", answer: .string("Ada Lovelace"))
            _ = try await api.batch([first, later, text], token: student)
            let request = SubmissionRequest(
                attemptId: "attempt-1",
                assessmentId: "quiz-1",
                assessmentVersion: 1,
                submittedAt: "2026-11-20T10:10:00.000Z",
                responseIds: [first.id, later.id, text.id],
                timeUsedMs: 600_000,
                clockMovedBackMs: 0
            ).listing([first, later, text])
            let created = try await api.send(.post, APIPath.submissions, token: student, json: request)
            #expect(created.status == .created)
            let receipt = try created.decode(SubmissionReceipt.self)
            let signed = try #require(receipt.signed)
            let statement = try key.verify(signed)
            #expect(statement.receiptId == receipt.receiptId && statement.user == "student" && statement.attemptId == "attempt-1")
            #expect(statement.contentHash == quiz.contentHash && statement.timeUsedMs == 600_000 && !statement.forced)
            // The current answers, by the hash of their canonical JSON; no answer text anywhere in the statement.
            #expect(statement.responses.map(\.responseId) == [later.id, text.id])
            let expected = try [JSONValue.bool(true), .string("Ada Lovelace")].map { answerDigest(canonicalAnswer: try CanonicalJSON.encode($0)) }
            #expect(statement.responses.map(\.answerSha256) == expected)
            #expect(!signed.statement.contains("Ada Lovelace"))

            let repeated = try await api.send(.post, APIPath.submissions, token: student, json: request)
            #expect(repeated.status == .ok)
            #expect(try repeated.decode(SubmissionReceipt.self) == receipt)

            // Every byte of the statement and of the signature matters.
            let bytes = Array(signed.statement.utf8)
            for index in bytes.indices {
                var changed = bytes
                changed[index] ^= 0x01
                #expect(throws: ReceiptError.self) {
                    try key.verify(SignedReceipt(statement: String(decoding: changed, as: UTF8.self), signature: signed.signature))
                }
            }
            var signature = Data(base64Encoded: signed.signature)!
            for index in signature.indices {
                signature[index] ^= 0x80
                #expect(throws: ReceiptError.badSignature) {
                    try key.verify(SignedReceipt(statement: signed.statement, signature: signature.base64EncodedString()))
                }
                signature[index] ^= 0x80
            }
            #expect(throws: ReceiptError.badSignature) { try ServerPublicKey(other).verify(signed) }
            // A served key whose fingerprint is not its own is refused.
            var lying = keyResponse
            lying.fingerprint = other.fingerprint
            #expect(throws: ReceiptError.badKeyMaterial) { try ServerPublicKey(lying) }
        }
    }
}

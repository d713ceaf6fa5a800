import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultModel

/// The bytes behind every hash that is stored or signed: the canonical JSON of a served document (its content
/// hash), of an answer (the digest a receipt names) and of a receipt statement. They are fixed here, byte for byte:
/// if Foundation's encoder (or ours) ever writes one differently, stored content hashes and signed receipts would
/// stop checking out, and this fails first.
struct GoldenBytesTests {
    static let document: Assessment = {
        var document = Assessment(
            id: "golden",
            title: "Golden / طلایی 🥇",
            description: "Quotes \"here\", a tab\t, a slash / and ü",
            timeLimitSeconds: 900,
            teacherContact: "t@school.example",
            questions: [
                Question(id: "q1", type: .singleChoice, prompt: "2x = 10. x = ?", choices: [Choice(id: "a", text: "2"), Choice(id: "b", text: "5")]),
                Question(id: "q2", type: .numeric, prompt: "Pi to two places?"),
                Question(id: "q3", type: .essay, prompt: "چرا؟ 为什么?", maxLength: 2000),
            ]
        )
        document.attempts = 2
        return document
    }()

    static let answers: [JSONValue] = [
        .string("b"), .number(3.14), .number(0.1), .number(1e-7), .number(100), .bool(true),
        .array([.string("a"), .string("c")]), .string("Line one\nLine \"two\" فارسی 😀"),
    ]

    @Test("a served document's canonical bytes and content hash are fixed")
    func documentBytes() throws {
        let served = try ServedDocument.hashed(Self.document, version: 3)
        let bytes = String(decoding: try CanonicalJSON.contentBytes(served), as: UTF8.self)
        #expect(bytes == Self.goldenContent, "\(bytes)")
        #expect(served.contentHash == Self.goldenContentHash, "\(served.contentHash ?? "")")
        #expect(served.questions.map { $0.hash ?? "" } == Self.goldenQuestionHashes, "\(served.questions.map { $0.hash ?? "" })")
    }

    @Test("answer digests (what a receipt names) are fixed")
    func answerDigests() throws {
        let digests = try Self.answers.map { answerDigest(canonicalAnswer: try CanonicalJSON.encode($0)) }
        let texts = try Self.answers.map { try CanonicalJSON.text($0) }
        #expect(texts == Self.goldenAnswerTexts, "\(texts)")
        #expect(digests == Self.goldenDigests, "\(digests)")
    }

    @Test("a receipt statement's canonical bytes are fixed")
    func statementBytes() throws {
        let statement = ReceiptStatement(
            receiptId: "rcpt-golden",
            keyFingerprint: "0000-1111-2222-3333-4444-5555-6666-7777",
            user: "student",
            attemptId: "attempt-golden",
            assessmentId: "golden",
            assessmentVersion: 3,
            contentHash: String(repeating: "ab", count: 32),
            submittedAt: "2026-11-20T10:10:00.000Z",
            receivedAt: "2026-11-20T10:10:01.250Z",
            timeUsedMs: 600_000,
            clockMovedBackMs: 0,
            forced: false,
            responses: [SubmittedAnswer(responseId: "r1", questionId: "q1", answerSha256: String(repeating: "cd", count: 32))]
        )
        let bytes = String(decoding: try CanonicalJSON.encode(statement), as: UTF8.self)
        #expect(bytes == Self.goldenStatement, "\(bytes)")
    }

    // Recorded from this code on 2026-11-23; change them only with a migration of stored hashes and receipts.
    static let goldenContent =
        #"{"attempts":2,"description":"Quotes \"here\", a tab\t, a slash / and ü","id":"golden","questions":[{"choices":[{"id":"a","text":"2"},{"id":"b","text":"5"}],"hash":"588ef87dc1e63fc89e615607b3a9d3b8b69a4b11baffbcd389344a7ee10e9ead","id":"q1","prompt":"2x = 10. x = ?","type":"single_choice"},{"hash":"78cbd9b8fd5747cd22fea3b17e604712b72de880a292e89610cabb918d2083c9","id":"q2","prompt":"Pi to two places?","type":"numeric"},{"hash":"b9c272c52ffff9329de0b32037424553db8d8a3102e6e3fa1fa0cf897f6a7b96","id":"q3","max_length":2000,"prompt":"چرا؟ 为什么?","type":"essay"}],"teacher_contact":"t@school.example","time_limit_seconds":900,"title":"Golden / طلایی 🥇","version":3}"#
    static let goldenContentHash = "f92f3b88ab5ee870cfd445c44b12cd9fe717ade34a0a4c6f080788edfac5998e"
    static let goldenQuestionHashes = [
        "588ef87dc1e63fc89e615607b3a9d3b8b69a4b11baffbcd389344a7ee10e9ead",
        "78cbd9b8fd5747cd22fea3b17e604712b72de880a292e89610cabb918d2083c9",
        "b9c272c52ffff9329de0b32037424553db8d8a3102e6e3fa1fa0cf897f6a7b96",
    ]
    static let goldenAnswerTexts = [
        #""b""#, "3.14", "0.1", "1e-07", "100", "true", #"["a","c"]"#, #""Line one\nLine \"two\" فارسی 😀""#,
    ]
    static let goldenDigests = [
        "c100f95c1913f9c72fc1f4ef0847e1e723ffe0bde0b36e5f36c13f81fe8c26ed",
        "2efff1261c25d94dd6698ea1047f5c0a7107ca98b0a6c2427ee6614143500215",
        "14be4b45f18e0d8c67b4f719b5144eee88497e413709d11d85b096d8e2346310",
        "e485fac25775a7da830698e7daac582737fc8b43ba4b351467a16cf8ed83122a",
        "ad57366865126e55649ecb23ae1d48887544976efea46a48eb5d85a6eeb4d306",
        "b5bea41b6c623f7c09f1bf24dcae58ebab3c0cdd90ad966bc43a45b44867e12b",
        "87494a1b580146b76dc4a0a3dba956cf3dc59c5a1d1e55bc177a29f47beb0c81",
        "4eda8ab608f010f609d763a407d556b3ea310ca98ff21a273574c1e4cfef762f",
    ]
    static let goldenStatement =
        #"{"assessment_id":"golden","assessment_version":3,"attempt_id":"attempt-golden","clock_moved_back_ms":0,"content_hash":"abababababababababababababababababababababababababababababababab","forced":false,"format":"vault-receipt-v1","key_fingerprint":"0000-1111-2222-3333-4444-5555-6666-7777","receipt_id":"rcpt-golden","received_at":"2026-11-20T10:10:01.250Z","responses":[{"answer_sha256":"cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd","question_id":"q1","response_id":"r1"}],"submitted_at":"2026-11-20T10:10:00.000Z","time_used_ms":600000,"user":"student"}"#
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import VaultAPI
import VaultCore
import VaultModel
import VaultServer
import VaultSync
import VaultTestSupport

/// A server that lies: every hostile answer is refused with a clear error and nothing is stored.
struct HostileServerTests {
    enum Payload: String, CaseIterable, Sendable {
        case oversized, gzipBomb, hashMismatch, malformedJSON, wrongTypes, answerKeyLeaked, wrongID, badGzip, questionHashForged, truncatedGzip
    }

    static func validServed() -> Assessment {
        try! ServedDocument.hashed(SampleDocuments.quiz().served, version: 1)
    }

    static func body(for payload: Payload) throws -> (Data, gzip: Bool) {
        let valid = validServed()
        switch payload {
        case .oversized:
            return (Data(repeating: 0x20, count: 12 * 1024 * 1024), false)
        case .gzipBomb:
            var bomb = Data("{\"id\":\"quiz\",\"title\":\"".utf8)
            bomb.append(Data(repeating: 0x41, count: 60 * 1024 * 1024))
            return (try Gzip.compress(bomb), true)
        case .hashMismatch:
            var forged = valid
            forged.title = "Changed after hashing"
            return (try CanonicalJSON.encode(forged), false)
        case .malformedJSON:
            return (Data("{\"id\":\"quiz\",\"title\":".utf8), false)
        case .wrongTypes:
            return (Data(#"{"id":"quiz","title":5,"questions":"none","version":"one"}"#.utf8), false)
        case .answerKeyLeaked:
            var leaked = valid
            leaked.questions[0].body = QuestionBody(
                leaked.questions[0].type,
                QuestionFields(choices: leaked.questions[0].body.choices, answerKey: [.string("b")])
            )
            return (try CanonicalJSON.encode(leaked), false)
        case .wrongID:
            var other = valid
            other.id = "other"
            return (try CanonicalJSON.encode(other), false)
        case .badGzip:
            return (Data([0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9]), true)
        case .questionHashForged:
            var forged = valid
            forged.questions[1].prompt = "Different"
            forged.contentHash = try ServedDocument.contentHash(forged)
            return (try CanonicalJSON.encode(forged), false)
        case .truncatedGzip:
            let zipped = try Gzip.compress(try CanonicalJSON.encode(valid))
            return (zipped.prefix(zipped.count - 6), true)
        }
    }

    @Test("hostile answers to a download are refused and nothing is stored", arguments: Payload.allCases)
    func hostile(_ payload: Payload) async throws {
        let (body, gzip) = try Self.body(for: payload)
        let router = Router()
        router.get("/v1/assessments/quiz") { _, _ in
            var headers: HTTPFields = [.contentType: "application/json"]
            if gzip { headers[.contentEncoding] = "gzip" }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        let directory = TemporaryDirectory()
        try await app.test(.live) { client in
            let vault = try TestVault.create(in: directory)
            let transport = AsyncHTTPTransport(baseURL: "http://127.0.0.1:\(client.port!)")
            let before = try vault.storage().usedBytes
            do {
                _ = try await Downloader(client: ServerClient(transport: transport, token: "t"), vault: vault).download("quiz")
                Issue.record("accepted \(payload)")
            } catch let error as ServerError {
                guard case .badResponse = error else {
                    Issue.record("\(payload): \(error)")
                    return
                }
                #expect(!error.vaultError.message.isEmpty)
                #expect(VaultExitClass.isBadData(error.vaultError))
            }
            await transport.shutdown()
            #expect(try vault.cachedAssessments().isEmpty)
            #expect(try vault.storage().usedBytes == before)
        }
    }
}

extension HostileServerTests {
    @Test("a served document whose time limit was changed in flight is refused: the signature is checked against the pinned key, nothing is stored")
    func signedDocumentTampered() async throws {
        let identity = ServerIdentity()
        var timed = SampleDocuments.quiz().served
        timed.timeLimitSeconds = 600
        let honest = try CanonicalJSON.encode(try ServedDocument.hashed(timed, version: 1))
        let signature = try ServedSignature.sign(ServedSignature.document(honest), with: identity)
        // A middle box doubles the time limit and fixes the content hash: only the signature can tell.
        timed.timeLimitSeconds = 1200
        let changed = try CanonicalJSON.encode(try ServedDocument.hashed(timed, version: 1))
        for (body, accepted) in [(changed, false), (honest, true)] {
            let router = Router()
            router.get("/v1/server-key") { _, _ in
                Response(
                    status: .ok,
                    headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: try CanonicalJSON.encode(identity.publicKey.response)))
                )
            }
            router.get("/v1/assessments/quiz") { _, _ in
                var headers: HTTPFields = [.contentType: "application/json"]
                headers[HTTPField.Name(ServedSignature.header)!] = signature
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
            }
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            let directory = TemporaryDirectory()
            try await app.test(.live) { client in
                let vault = try TestVault.create(in: directory)
                let transport = AsyncHTTPTransport(baseURL: "http://127.0.0.1:\(client.port!)")
                defer { Task { await transport.shutdown() } }
                let downloader = Downloader(client: ServerClient(transport: transport, token: "t"), vault: vault)
                if accepted {
                    _ = try await downloader.download("quiz")
                    #expect(try vault.cachedAssessments().map(\.id) == ["quiz"])
                } else {
                    await #expect(throws: ServerError.self) { _ = try await downloader.download("quiz") }
                    #expect(try vault.cachedAssessments().isEmpty)
                }
            }
        }
    }
}

extension HostileServerTests {
    @Test(
        "held attempts edited in flight (an answer changed, another student's attempt slipped in) are refused: signed for this student by the pinned key"
    )
    func heldAttemptsTampered() async throws {
        let identity = ServerIdentity()
        let key = try identity.publicKey
        let attempt = HeldAttempt(
            attemptId: "a-1",
            assessmentId: "quiz",
            assessmentVersion: 1,
            startedAt: "2026-11-20T09:58:00.000Z",
            extraMinutes: 0,
            state: .inProgress,
            answers: [.init(responseId: "r-1", questionId: "q1", answer: .string("b"), answeredAt: "2026-11-20T10:00:00.000Z")]
        )
        let honest = try CanonicalJSON.encode(AttemptsResponse(attempts: [attempt]))
        let signature = try ServedSignature.sign(ServedSignature.attempts(user: "ana", honest), with: identity)
        var changed = attempt
        changed.answers[0].answer = .string("c")
        let edited = try CanonicalJSON.encode(AttemptsResponse(attempts: [changed]))
        let otherUsers = try ServedSignature.sign(ServedSignature.attempts(user: "bo", honest), with: identity)
        var elsewhere = attempt
        elsewhere.assessmentId = "other"
        let otherAssessment = try CanonicalJSON.encode(AttemptsResponse(attempts: [elsewhere]))
        let otherAssessmentSigned = try ServedSignature.sign(ServedSignature.attempts(user: "ana", otherAssessment), with: identity)
        for (body, signed, accepted) in [
            (edited, signature, false), (honest, otherUsers, false), (otherAssessment, otherAssessmentSigned, false), (honest, signature, true),
        ] {
            let router = Router()
            router.get("/v1/attempts") { _, _ in
                var headers: HTTPFields = [.contentType: "application/json"]
                headers[HTTPField.Name(ServedSignature.header)!] = signed
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
            }
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            try await app.test(.live) { client in
                let transport = AsyncHTTPTransport(baseURL: "http://127.0.0.1:\(client.port!)")
                let server = ServerClient(transport: transport, token: "t")
                if accepted {
                    let held = try await server.attempts(assessmentID: "quiz", user: "ana", key: key)
                    #expect(held == [attempt])
                } else {
                    await #expect(throws: ServerError.self) { _ = try await server.attempts(assessmentID: "quiz", user: "ana", key: key) }
                }
                await transport.shutdown()
            }
        }
    }
}

enum VaultExitClass {
    static func isBadData(_ error: VaultError) -> Bool { error.code == .invalidData }
}

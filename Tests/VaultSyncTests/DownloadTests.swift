import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultModel
import VaultServer
import VaultSync
import VaultTestSupport

/// Downloads from the real server over a real socket into a real vault.
struct DownloadTests {
    @Test("download stores a verified copy; a second download is a 304; a new version replaces the copy")
    func downloadFlow() async throws {
        let server = try await LiveServer()
        _ = try await server.publish(SampleDocuments.quiz())
        let vaultDirectory = TemporaryDirectory()
        try await server.run { port in
            let vault = try TestVault.create(in: vaultDirectory)
            let (client, transport) = try await LiveServer.client(port: port)
            defer { Task { await transport.shutdown() } }
            let downloader = Downloader(client: client, vault: vault, diskSpace: .fixed(1 << 40))
            let progress = ProgressLog()
            guard case .stored(_, 1, _, _) = try await downloader.download("quiz", progress: { done, _ in progress.add(done) }) else {
                Issue.record("not stored")
                return
            }
            #expect(progress.count > 0)
            #expect(try vault.loadAssessment(id: "quiz").assessment.questions.allSatisfy { $0.body.answerKey == nil })
            #expect(try await downloader.download("quiz") == .alreadyCurrent(id: "quiz", version: 1))

            _ = try await server.publish(SampleDocuments.quiz(prompt: "What is 3 + 3?"))
            let catalog = try await client.catalog()
            #expect(catalog.first?.version == 2)
            #expect(Downloader.next(5, catalog: catalog, cached: try vault.cachedAssessments()) == ["quiz"])
            guard case .stored(_, 2, _, _) = try await downloader.download("quiz") else {
                Issue.record("v2 not stored")
                return
            }
            #expect(try vault.cachedAssessments().map(\.version) == [2])
            #expect(vault.verify().ok)
        }
    }

    @Test("an unknown or deleted assessment is reported as gone; nothing is stored")
    func gone() async throws {
        let server = try await LiveServer()
        _ = try await server.publish(SampleDocuments.quiz())
        _ = try await server.storage.delete(id: "quiz", now: Date())
        let vaultDirectory = TemporaryDirectory()
        try await server.run { port in
            let vault = try TestVault.create(in: vaultDirectory)
            let (client, transport) = try await LiveServer.client(port: port)
            defer { Task { await transport.shutdown() } }
            await #expect(throws: ServerError.notFound("quiz")) { try await Downloader(client: client, vault: vault).download("quiz") }
            #expect(try vault.cachedAssessments().isEmpty)
        }
    }

    @Test("an expired token is told as 'sign in again'; a stopped server as offline")
    func signInAndOffline() async throws {
        let server = try await LiveServer()
        try await server.run { port in
            let transport = AsyncHTTPTransport(baseURL: "http://127.0.0.1:\(port)")
            defer { Task { await transport.shutdown() } }
            let client = ServerClient(transport: transport, token: "vt_expired")
            await #expect(throws: ServerError.signInExpired) { try await client.catalog() }
            #expect(ServerError.signInExpired.vaultError.message == "Your sign-in has expired. Run `vault login`.")
            #expect(await HealthProbe(transport: transport).probe() == .online)
        }
        // Nothing listens on this port any more.
        let closed = AsyncHTTPTransport(baseURL: "http://127.0.0.1:1", connectTimeout: .seconds(1))
        #expect(await HealthProbe(transport: closed).probe() == .offline)
        await #expect(throws: ServerError.offline) { try await ServerClient(transport: closed, token: "x").catalog() }
        await closed.shutdown()
    }
}

final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []
    func add(_ value: Int) { lock.withLock { values.append(value) } }
    var count: Int { lock.withLock { values.count } }
}

import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultModel
import VaultServer
import VaultSync
import VaultTestSupport

/// Shared fixtures of the sync suites: a live server, a vault with answers, and an engine with recorded sleeps.
enum SyncScenario {
    /// A live server with the quiz, a vault that downloaded it and answered `answers` questions in one attempt.
    static func run<T: Sendable>(
        answers: [(String, JSONValue)] = [("q1", .string("b")), ("q2", .bool(true)), ("q3", .string("A day."))],
        submit: Bool = true,
        _ body:
            @Sendable (_ server: LiveServer, _ vault: Vault, _ client: ServerClient, _ transport: AsyncHTTPTransport, _ attempt: String) async throws
            -> T
    ) async throws -> T {
        let server = try await LiveServer()
        _ = try await server.publish(SampleDocuments.quiz())
        let directory = TemporaryDirectory()
        return try await server.run { port in
            let vault = try TestVault.create(in: directory)
            let (client, transport) = try await LiveServer.client(port: port)
            do {
                _ = try await Downloader(client: client, vault: vault, diskSpace: .fixed(1 << 40)).download("quiz")
                let attempt = try vault.openAttempt(on: "quiz")
                for (question, answer) in answers { try vault.recordAnswer(attemptID: attempt.id, questionID: question, answer: answer) }
                if submit { try vault.submitAttempt(attempt.id) }
                let result = try await body(server, vault, client, transport, attempt.id)
                await transport.shutdown()
                return result
            } catch {
                await transport.shutdown()
                throw error
            }
        }
    }

    static func engine(
        _ vault: Vault,
        _ client: ServerClient,
        transport: any HTTPTransport,
        sleeps: RecordedSleeps = RecordedSleeps(),
        resolver: any ConflictResolver = FixedConflictPolicy(.keep),
        configure: (inout SyncEngine.Options) -> Void = { _ in }
    ) -> SyncEngine {
        var options = SyncEngine.Options()
        configure(&options)
        let faulty = ServerClient(transport: transport, token: client.token)
        return SyncEngine(
            vault: vault,
            client: faulty,
            options: options,
            resolver: resolver,
            schedule: RetrySchedule(jitter: 0),
            downloader: Downloader(client: faulty, vault: vault, diskSpace: .fixed(1 << 40)),
            now: { sleeps.now() },
            sleep: { try await sleeps.sleep($0) }
        )
    }

    /// The `SyncStopped` a run ended with, recording an issue when it ended otherwise.
    static func stopped(_ body: () async throws -> SyncReport) async -> SyncStopped? {
        do {
            _ = try await body()
            Issue.record("the run finished")
        } catch let stopped as SyncStopped {
            return stopped
        } catch {
            Issue.record("unexpected \(error)")
        }
        return nil
    }
}

import Foundation
import Synchronization
import Testing
import VaultAPI
import VaultCore
import VaultModel
import VaultServer
import VaultSync
import VaultTestSupport

/// Clocks moved by hand: wall and boot time pass together.
final class PassingClocks: Sendable {
    private let elapsed = Mutex(Duration.seconds(1_000))
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    var clocks: AttemptClocks {
        AttemptClocks(
            wall: { self.start.addingTimeInterval(self.elapsed.withLock { $0 }.inSeconds) },
            boot: { AttemptClocks.BootReading(bootID: "boot-1", elapsed: self.elapsed.withLock { $0 }) }
        )
    }

    func pass(_ duration: Duration) { elapsed.withLock { $0 += duration } }
}

struct ExtraTimeTests {
    @Test("two students, the same exam downloaded from the real server: 30 and 45 minutes, each enforced offline by the vault")
    func twoLimitsEnforcedOffline() async throws {
        let server = try await LiveServer()
        try await server.storage.createUser(
            PasswordHasher.makeRecord(name: "student2", role: .student, password: SecretBytes(Array("student2-pw".utf8)), iterations: 1_000),
            now: Date()
        )
        var quiz = SampleDocuments.quiz("timed")
        quiz.timeLimitSeconds = 1_800
        _ = try await server.publish(quiz)
        try await server.storage.setAccommodation(assessmentID: "timed", user: "student2", extraMinutes: 15)
        let directory = TemporaryDirectory()
        let clocks = PassingClocks()
        try await server.run { port in
            var vaults: [Vault] = []
            for user in ["student", "student2"] {
                let vault = try TestVault.create(in: directory, name: user)
                vault.clocks = clocks.clocks
                let (client, transport) = try await LiveServer.client(port: port, user: user)
                // Shut down on failure too: a client dropped unshut traps, hiding the failure itself.
                do {
                    _ = try await Downloader(client: client, vault: vault, diskSpace: .fixed(1 << 40)).download("timed")
                } catch {
                    await transport.shutdown()
                    throw error
                }
                await transport.shutdown()
                vaults.append(vault)
            }
            try Self.enforce(vaults, clocks: clocks)
        }
    }

    /// No network from here: each vault's own clock and limit decide.
    static func enforce(_ vaults: [Vault], clocks: PassingClocks) throws {
        var attempts: [String] = []
        for vault in vaults {
            let attempt = try vault.openAttempt(on: "timed")
            try vault.startClock(attemptID: attempt.id)
            attempts.append(attempt.id)
        }
        #expect(try vaults[0].attempt(attempts[0]).assessment.timeLimitSeconds == 1_800)
        #expect(try vaults[1].attempt(attempts[1]).assessment.timeLimitSeconds == 2_700)
        clocks.pass(.seconds(35 * 60))
        // 35 minutes in: the first student's time is up (the attempt is submitted, the answer refused); the second's is not.
        #expect(throws: VaultError.self) { try vaults[0].recordAnswer(attemptID: attempts[0], questionID: "q1", answer: .string("b")) }
        #expect(try vaults[0].attempt(attempts[0]).state != .inProgress)
        _ = try vaults[1].recordAnswer(attemptID: attempts[1], questionID: "q1", answer: .string("b"))
        clocks.pass(.seconds(11 * 60))
        #expect(throws: VaultError.self) { try vaults[1].recordAnswer(attemptID: attempts[1], questionID: "q2", answer: .bool(true)) }
    }

    @Test("extra time given during the attempt reaches the vault with the next sync: the deadline it enforces follows (issue 53)")
    func extraTimeDuringTheAttempt() async throws {
        let server = try await LiveServer()
        var quiz = SampleDocuments.quiz("timed")
        quiz.timeLimitSeconds = 1_800
        _ = try await server.publish(quiz)
        let directory = TemporaryDirectory()
        let clocks = PassingClocks()
        try await server.run { port in
            let vault = try TestVault.create(in: directory)
            vault.clocks = clocks.clocks
            let (client, transport) = try await LiveServer.client(port: port)
            do {
                let downloader = Downloader(client: client, vault: vault, diskSpace: .fixed(1 << 40))
                _ = try await downloader.download("timed")
                let attempt = try vault.openAttempt(on: "timed")
                try vault.startClock(attemptID: attempt.id)
                _ = try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("b"))
                clocks.pass(.seconds(19 * 60))
                #expect(vault.timeStatus(of: try vault.attempt(attempt.id)).remaining == .seconds(11 * 60))
                // 11 minutes left: the teacher gives 5 more; the student's next sync brings them.
                try await server.storage.setAccommodation(assessmentID: "timed", user: "student", extraMinutes: 5)
                _ = try await SyncEngine(vault: vault, client: client, downloader: downloader).run()
                let after = try vault.attempt(attempt.id)
                #expect(vault.timeStatus(of: after).remaining == .seconds(16 * 60), "16 minutes, as the desk says")
                #expect(after.answers["q1"] == .string("b"))
            } catch {
                await transport.shutdown()
                throw error
            }
            await transport.shutdown()
        }
    }
}

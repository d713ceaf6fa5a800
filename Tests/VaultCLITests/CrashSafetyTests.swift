import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

/// SIGKILL at random moments during passwd and key rotate: afterwards exactly one password works and the vault
/// passes its integrity check.
struct CrashSafetyTests {
    /// 40 in the normal suite; `scripts/soak` raises it with VAULT_SOAK_TRIALS.
    static let trials = Int(ProcessInfo.processInfo.environment["VAULT_SOAK_TRIALS"] ?? "") ?? 40

    /// How long an uninterrupted run of the command takes here, in microseconds: the slowest of three runs, and kills
    /// spread over 0-200 % of it, so both outcomes (finished, killed midway) occur on a fast machine, a slow CI runner,
    /// under ASan or beside the rest of the suite (one quick measuring run once left all 40 trials killed).
    func window(_ arguments: [String], stdin: String) throws -> UInt32 {
        var slowest = 0.0
        for _ in 0..<3 {
            let start = ContinuousClock.now
            _ = try Binaries.run("vault", arguments, stdin: stdin)
            slowest = max(slowest, (ContinuousClock.now - start).inSeconds * 1_000_000)
        }
        return UInt32(min(max(slowest * 2, 20_000), 5_000_000))
    }

    /// Whether `password` opens the vault; throws on anything but a wrong password (busy, damage).
    func opens(_ path: String, _ password: String) throws -> Bool {
        do {
            _ = try Vault.open(paths: VaultPaths(directory: path), password: TestVault.secret(password), lockWait: .seconds(2))
            return true
        } catch let error as VaultError where error.code == .wrongPassword {
            return false
        }
    }

    /// Whether the vault passes its integrity check, opened with `password`.
    func intact(_ path: String, _ password: String) throws -> Bool {
        try Vault.open(paths: VaultPaths(directory: path), password: TestVault.secret(password), lockWait: .seconds(2)).verify().ok
    }

    /// What one trial saw, checked by the test itself (the loop runs on a thread of its own).
    struct Trial: Sendable {
        var index: Int
        var finished: Bool
        var oldOpens: Bool
        var newOpens: Bool
        var intact: Bool
    }

    // The loops run on threads of their own (`Binaries.offPool`): they wait on processes and sleep for seconds, and a
    // test that blocks Swift concurrency's few shared threads for minutes starves every async test running beside it
    // (the suite's PostgreSQL connections then time out).
    @Test("passwd killed at random points: exactly one of old and new password opens the vault")
    func passwdCrashLoop() async throws {
        let trials = try await Binaries.offPool { () throws -> [Trial] in
            let vault = CLIVault()
            try vault.initialize(password: "pw-a")
            var current = "pw-a"
            var generator = SystemRandomNumberGenerator()
            var trials: [Trial] = []
            // A dry run that changes the password there and back measures the window.
            let window = try self.window(
                ["passwd", "--vault", vault.path, "--password-stdin", "--new-password-stdin", "--kdf-iterations", "1000"],
                stdin: "pw-a\npw-a\n"
            )
            for trial in 0..<Self.trials {
                let next = current == "pw-a" ? "pw-b" : "pw-a"
                let process = try Binaries.start(
                    "vault",
                    ["passwd", "--vault", vault.path, "--password-stdin", "--new-password-stdin", "--kdf-iterations", "1000"]
                )
                let input = process.standardInput as! Pipe
                input.fileHandleForWriting.write(Data("\(current)\n\(next)\n".utf8))
                try? input.fileHandleForWriting.close()
                usleep(UInt32.random(in: 0...window, using: &generator))
                kill(process.processIdentifier, SIGKILL)
                let result = try Binaries.finish(process)
                let oldOpens = try self.opens(vault.path, current)
                let newOpens = try self.opens(vault.path, next)
                let intact = try self.intact(vault.path, newOpens ? next : current)
                trials.append(Trial(index: trial, finished: result.status == 0, oldOpens: oldOpens, newOpens: newOpens, intact: intact))
                if newOpens { current = next }
            }
            return trials
        }
        for trial in trials {
            #expect(trial.oldOpens != trial.newOpens, "trial \(trial.index): old \(trial.oldOpens), new \(trial.newOpens)")
            #expect(trial.intact, "trial \(trial.index)")
        }
        let completed = trials.filter(\.finished).count
        print("passwd crash loop: \(completed) of \(Self.trials) finished before the kill")
        // Both outcomes must occur for the loop to mean anything.
        #expect(completed > 0 && completed < Self.trials)
    }

    @Test("key rotate killed at random points: the password opens, data intact, no leftovers")
    func rotateCrashLoop() async throws {
        struct Seen: Sendable {
            var index: Int
            var ttlDays: Int
            var intact: Bool
            var key: String
            var leftovers: Bool
        }
        let seen = try await Binaries.offPool { () throws -> [Seen] in
            let vault = CLIVault()
            try vault.initialize(password: "pw-r")
            try vault.unlocked(["config", "set", "cache.ttl_days", "9"], password: "pw-r")
            var generator = SystemRandomNumberGenerator()
            var seen: [Seen] = []
            let window = try self.window(["key", "rotate", "--vault", vault.path, "--password-stdin"], stdin: "pw-r\n")
            for trial in 0..<Self.trials {
                let process = try Binaries.start("vault", ["key", "rotate", "--vault", vault.path, "--password-stdin"])
                let input = process.standardInput as! Pipe
                input.fileHandleForWriting.write(Data("pw-r\n".utf8))
                try? input.fileHandleForWriting.close()
                usleep(UInt32.random(in: 0...window, using: &generator))
                kill(process.processIdentifier, SIGKILL)
                _ = try Binaries.finish(process)
                let opened = try Vault.open(paths: VaultPaths(directory: vault.path), password: TestVault.secret("pw-r"), lockWait: .seconds(2))
                let entry = Seen(
                    index: trial,
                    ttlDays: try opened.settings().ttlDays,
                    intact: opened.verify().ok,
                    key: opened.revealKey().literal,
                    leftovers: false
                )
                _ = consume opened
                let paths = VaultPaths(directory: vault.path)
                var checked = entry
                checked.leftovers = SecureFiles.exists(paths.rotatingDatabase) || SecureFiles.exists(paths.rotatingKeyFile)
                seen.append(checked)
            }
            return seen
        }
        for entry in seen {
            #expect(entry.ttlDays == 9 && entry.intact && !entry.leftovers, "trial \(entry.index)")
        }
        let keys = Set(seen.map(\.key))
        print("rotate crash loop: \(keys.count) distinct data keys over \(Self.trials) trials")
        #expect(keys.count > 1)
    }
}

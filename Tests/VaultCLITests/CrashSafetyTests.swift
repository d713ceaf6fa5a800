import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// SIGKILL at random moments during passwd and key rotate: afterwards exactly one password works and the vault
/// passes its integrity check.
struct CrashSafetyTests {
    /// 40 in the normal suite; `scripts/soak` raises it with VAULT_SOAK_TRIALS.
    static let trials = Int(ProcessInfo.processInfo.environment["VAULT_SOAK_TRIALS"] ?? "") ?? 40

    /// How long one uninterrupted run of the command takes here, in microseconds: kills are spread over 0-130 %
    /// of it, so both outcomes (finished, killed midway) occur on a fast machine, a slow CI runner or under ASan.
    func window(_ arguments: [String], stdin: String) throws -> UInt32 {
        let start = ContinuousClock.now
        _ = try Binaries.run("vault", arguments, stdin: stdin)
        let micros = (ContinuousClock.now - start).inSeconds * 1_000_000
        return UInt32(min(max(micros * 1.3, 20_000), 5_000_000))
    }

    /// Whether `password` opens the vault; throws on anything but a wrong password (busy, damage).
    func opens(_ path: String, _ password: String) throws -> Bool {
        do {
            let vault = try Vault.open(paths: VaultPaths(directory: path), password: TestVault.secret(password), lockWait: .seconds(2))
            #expect(vault.verify().ok)
            return true
        } catch let error as VaultError where error.code == .wrongPassword {
            return false
        }
    }

    @Test("passwd killed at random points: exactly one of old and new password opens the vault")
    func passwdCrashLoop() throws {
        let vault = CLIVault()
        try vault.initialize(password: "pw-a")
        var current = "pw-a"
        var generator = SystemRandomNumberGenerator()
        var completed = 0
        // A dry run that changes the password there and back measures the window.
        let window = try window(
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
            if result.status == 0 { completed += 1 }
            let oldOpens = try opens(vault.path, current)
            let newOpens = try opens(vault.path, next)
            #expect(oldOpens != newOpens, "trial \(trial): old \(oldOpens), new \(newOpens)")
            if newOpens { current = next }
        }
        print("passwd crash loop: \(completed) of \(Self.trials) finished before the kill")
        // Both outcomes must occur for the loop to mean anything.
        #expect(completed > 0 && completed < Self.trials)
    }

    @Test("key rotate killed at random points: the password opens, data intact, no leftovers")
    func rotateCrashLoop() throws {
        let vault = CLIVault()
        try vault.initialize(password: "pw-r")
        try vault.unlocked(["config", "set", "cache.ttl_days", "9"], password: "pw-r")
        var generator = SystemRandomNumberGenerator()
        var keys: Set<String> = []
        let window = try window(["key", "rotate", "--vault", vault.path, "--password-stdin"], stdin: "pw-r\n")
        for trial in 0..<Self.trials {
            let process = try Binaries.start("vault", ["key", "rotate", "--vault", vault.path, "--password-stdin"])
            let input = process.standardInput as! Pipe
            input.fileHandleForWriting.write(Data("pw-r\n".utf8))
            try? input.fileHandleForWriting.close()
            usleep(UInt32.random(in: 0...window, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            _ = try Binaries.finish(process)
            let opened = try Vault.open(paths: VaultPaths(directory: vault.path), password: TestVault.secret("pw-r"), lockWait: .seconds(2))
            #expect(try opened.settings().ttlDays == 9, "trial \(trial)")
            #expect(opened.verify().ok, "trial \(trial)")
            keys.insert(opened.revealKey().literal)
            _ = consume opened
            let paths = VaultPaths(directory: vault.path)
            #expect(!SecureFiles.exists(paths.rotatingDatabase) && !SecureFiles.exists(paths.rotatingKeyFile))
        }
        print("rotate crash loop: \(keys.count) distinct data keys over \(Self.trials) trials")
        #expect(keys.count > 1)
    }
}

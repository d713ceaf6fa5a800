import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// passwd, key slots, help, and the JSON and usage contract of the remaining commands, on the real binary.
@Suite(.ownThreads)
struct KeyCommandTests {
    @Test("passwd: a wrong current password changes nothing (77); the right one swaps passwords")
    func passwd() throws {
        let vault = CLIVault()
        try vault.initialize(password: "old-pw")
        let before = vault.snapshot()
        let wrong = try vault.run(
            ["passwd", "--vault", vault.path, "--password-stdin", "--new-password-stdin", "--kdf-iterations", "1000"],
            stdin: "nope\nnew-pw\n"
        )
        #expect(wrong.status == 77)
        #expect(vault.snapshot() == before)
        let changed = try vault.run(
            ["passwd", "--vault", vault.path, "--password-stdin", "--new-password-stdin", "--kdf-iterations", "1000"],
            stdin: "old-pw\nnew-pw\n"
        )
        #expect(changed.status == 0)
        #expect(try vault.unlocked(["status"], password: "old-pw").status == 77)
        #expect(try vault.unlocked(["status"], password: "new-pw").status == 0)
    }

    @Test("key add, list and remove: a recovery password opens the vault; the last slot stays")
    func slots() throws {
        let vault = CLIVault()
        try vault.initialize()
        let added = try vault.run(
            ["key", "add", "--label", "recovery", "--kdf-iterations", "1000", "--vault", vault.path, "--password-stdin", "--new-password-stdin"],
            stdin: "pw-1\nprinted-recovery-code\n"
        )
        #expect(added.status == 0)
        let slots = try #require(try vault.unlocked(["key", "list", "--json"]).json?["slots"] as? [[String: Any]])
        #expect(slots.map { $0["label"] as? String } == ["password", "recovery"])
        #expect(Set(slots[0].keys) == ["id", "label", "created_at", "kdf", "iterations"])
        #expect(try vault.unlocked(["status"], password: "printed-recovery-code").status == 0)
        #expect(try vault.unlocked(["key", "remove", "1"], password: "printed-recovery-code").status == 0)
        #expect(try vault.unlocked(["status"], password: "pw-1").status == 77)
        let last = try vault.unlocked(["key", "remove", "2"], password: "printed-recovery-code")
        #expect(last.status == 77)
        #expect(last.stderr.contains("only way to open"))
        #expect(try vault.unlocked(["key", "remove", "9"], password: "printed-recovery-code").status == 64)
    }

    @Test("--version and --help exit 0; help documents the exit codes")
    func help() throws {
        let version = try Binaries.run("vault", ["--version"])
        #expect(version.status == 0 && version.stdout == "0.1.0\n")
        let help = try Binaries.run("vault", ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("69 offline"))
        #expect(try Binaries.run("vault", ["sync", "--help"]).stdout.contains("--on-conflict"))
    }

    @Test("every --json command prints exactly one JSON document on stdout")
    func oneDocument() throws {
        let vault = CLIVault()
        try vault.initialize()
        for command in [["status"], ["storage"], ["list"], ["config", "list"], ["key", "list"], ["verify"], ["dead-letters", "list"]] {
            let result = try vault.unlocked(command + ["--json"])
            #expect(result.status == 0, "\(command)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
            #expect(object is [String: Any], "\(command)")
            #expect(result.stdout.filter { $0 == "\n" }.count == 1, "\(command)")
        }
    }

    @Test("usage errors exit 64 and change nothing")
    func usage() throws {
        let vault = CLIVault()
        try vault.initialize()
        let before = vault.snapshot()
        for command in [
            ["sync", "--batch-size", "0"], ["sync", "--forever"], ["download"], ["download", "a", "--all"],
            ["download", "Bad_ID"], ["download", "--next", "0"], ["evict"], ["answer", "x"], ["config", "get", "nope"],
        ] {
            let result = try vault.unlocked(command)
            #expect(result.status == 64, "\(command): \(result.status) \(result.stderr)")
        }
        #expect(vault.snapshot() == before)
    }

    @Test("a world-readable key file is refused with the chmod that fixes it (77)")
    func permissions() throws {
        let vault = CLIVault()
        try vault.initialize()
        chmod(vault.path + "/vault.key", 0o644)
        let result = try vault.unlocked(["status"])
        #expect(result.status == 77)
        #expect(result.stderr.contains("chmod 600"))
    }

    @Test("without a sign-in, network commands say how to sign in; logout forgets the token")
    func notSignedIn() throws {
        let vault = CLIVault()
        try vault.initialize()
        let result = try vault.unlocked(["catalog"])
        #expect(result.status == 77)
        #expect(result.stderr.contains("vault login"))
        let server = try ServerProcess()
        try vault.run(
            ["login", "--server", server.url, "--user", "demo", "--vault", vault.path, "--password-stdin", "--server-password-stdin"],
            stdin: "pw-1\ndemo-password\n"
        )
        #expect(try vault.unlocked(["catalog"]).status == 0)
        #expect(try vault.unlocked(["logout"]).status == 0)
        #expect(try vault.unlocked(["catalog"]).status == 77)
        #expect(try vault.unlocked(["status", "--probe", "--json"]).json?["connectivity"] as? String == "online")
        server.stop()
        #expect(try vault.unlocked(["status", "--probe", "--json"]).json?["connectivity"] as? String == "offline")
    }

    @Test("show names an unknown assessment (66); show on a downloaded one lists questions without answers")
    func show() throws {
        let vault = CLIVault()
        try vault.initialize()
        #expect(try vault.unlocked(["show", "nothing-here"]).status == 66)
        #expect(try vault.unlocked(["take", "nothing-here"]).status == 66)
    }
}

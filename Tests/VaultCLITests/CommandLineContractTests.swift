import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// The contract of docs/cli.md, checked on the real binary: global options, JSON keys, exit codes, messages.
@Suite(.ownThreads)
struct CommandLineContractTests {
    @Test("init creates a vault; global options work before and after the command name")
    func globalsAnywhere() throws {
        let vault = CLIVault()
        let created = try vault.initialize()
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stderr.contains("below the recommended"))
        let before = try vault.run(["--json", "--vault", vault.path, "status", "--password-stdin"], stdin: "pw-1\n")
        let after = try vault.unlocked(["status", "--json"])
        #expect(before.status == 0 && after.status == 0)
        #expect(before.stdout == after.stdout)
        let json = try #require(after.json)
        // The documented keys (cli.md: more may be added; these are the ones added since, also documented).
        #expect(
            Set(json.keys)
                == [
                    "connectivity", "pending_answers", "pending_submissions", "dead_letters", "conflicts", "last_sync_at",
                    "unlocked_until", "session_keyring",
                ]
        )
        #expect(json["last_sync_at"] is NSNull)
        #expect(json["connectivity"] as? String == "unknown")
    }

    @Test("the vault directory comes from --vault, else VAULT_HOME, else XDG_DATA_HOME/vault")
    func vaultLocation() throws {
        let root = TemporaryDirectory("vault-loc")
        let viaHome = try Binaries.run(
            "vault",
            ["init", "--kdf-iterations", "1000", "--new-password-stdin", "--json"],
            stdin: "p\n",
            environment: ["VAULT_HOME": root.file("home")]
        )
        #expect(viaHome.status == 0)
        #expect(viaHome.json?["vault"] as? String == root.file("home"))
        let viaXDG = try Binaries.run(
            "vault",
            ["init", "--kdf-iterations", "1000", "--new-password-stdin", "--json"],
            stdin: "p\n",
            environment: ["XDG_DATA_HOME": root.file("xdg")]
        )
        #expect(viaXDG.json?["vault"] as? String == root.file("xdg/vault"))
        #expect(SecureFiles.exists(root.file("xdg/vault/vault.key")))
    }

    @Test("exit codes: 73 existing vault, 77 wrong or missing password, 64 bad flags, 66 no vault")
    func exitCodes() throws {
        let vault = CLIVault()
        #expect(try vault.unlocked(["status"]).status == 66)
        try vault.initialize()
        let again = try vault.initialize(password: "other")
        #expect(again.status == 73)
        #expect(again.stderr.contains("already exists"))
        let before = vault.snapshot()
        let wrong = try vault.unlocked(["status"], password: "nope")
        #expect(wrong.status == 77)
        #expect(wrong.stderr == "vault: The password is not correct. Nothing was changed; try again.\n")
        #expect(vault.snapshot() == before)
        let missing = try vault.run(["status", "--vault", vault.path])
        #expect(missing.status == 77)
        #expect(missing.stderr.contains("--password-stdin"))
        #expect(try vault.run(["status", "--vault", vault.path, "--no-such-flag"]).status == 64)
        #expect(try vault.run(["init", "--vault", vault.path, "--kdf-iterations", "5"]).status == 64)
        #expect(try vault.run(["frobnicate"]).status == 64)
        #expect(try vault.unlocked(["config", "set", "cache.ttl_days", "-4"]).status == 64)
        #expect(try vault.unlocked(["config", "set", "no.such.key", "1"]).status == 64)
        #expect(vault.snapshot() == before)
    }

    @Test("--json errors are one document on stdout with a snake_case code")
    func jsonErrors() throws {
        let vault = CLIVault()
        try vault.initialize()
        let wrong = try vault.unlocked(["status", "--json"], password: "nope")
        let error = try #require(wrong.json?["error"] as? [String: Any])
        #expect(error["code"] as? String == "wrong_password")
        #expect(wrong.stdout.split(separator: "\n").count == 1)
    }

    @Test("config set, get, list and unset round-trip inside the encrypted vault")
    func config() throws {
        let vault = CLIVault()
        try vault.initialize()
        #expect(try vault.unlocked(["config", "set", "sync.batch_size", "25"]).status == 0)
        #expect(try vault.unlocked(["config", "get", "sync.batch_size", "--json"]).json?["sync.batch_size"] as? Int == 25)
        let list = try #require(try vault.unlocked(["config", "list", "--json"]).json?["settings"] as? [String: Int])
        #expect(list["sync.batch_size"] == 25)
        #expect(list["cache.max_bytes"] == 500_000_000)
        #expect(list["cache.ttl_days"] == 7)
        #expect(try vault.unlocked(["config", "unset", "sync.batch_size"]).status == 0)
        #expect(try vault.unlocked(["config", "get", "sync.batch_size"]).stdout == "10\n")
    }

    @Test("storage reports the cache figures with the documented keys")
    func storage() throws {
        let vault = CLIVault()
        try vault.initialize()
        let report = try #require(try vault.unlocked(["storage", "--json"]).json)
        #expect(report["used_bytes"] as? Int == 0)
        #expect(report["limit_bytes"] as? Int == 500_000_000)
        #expect(report["max_assessments"] as? Int == 50)
        #expect((report["file_bytes"] as? Int ?? 0) > 0)
        #expect(report["pending_answers"] as? Int == 0)
        #expect((report["assessments"] as? [Any])?.isEmpty == true)
    }

    @Test("admin usage lists every vault under a root from metadata alone")
    func adminUsage() throws {
        let root = TemporaryDirectory("vault-admin")
        for name in ["alice", "bob"] {
            let result = try Binaries.run(
                "vault",
                ["init", "--vault", root.file("\(name)/.local/share/vault"), "--kdf-iterations", "1000", "--new-password-stdin"],
                stdin: "p\n"
            )
            #expect(result.status == 0)
        }
        let usage = try Binaries.run("vault", ["admin", "usage", "--root", root.path, "--json"])
        let vaults = try #require(usage.json?["vaults"] as? [[String: Any]])
        #expect(vaults.count == 2)
        #expect(vaults.allSatisfy { ($0["bytes"] as? Int ?? 0) > 0 && ($0["files"] as? Int ?? 0) >= 2 })
        #expect((vaults.first?["path"] as? String)?.hasSuffix("alice/.local/share/vault") == true)
        #expect(try Binaries.run("vault", ["admin", "usage", "--root", root.file("nope")]).status == 66)
    }
}

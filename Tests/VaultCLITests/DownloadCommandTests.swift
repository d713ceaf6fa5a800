import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// login, catalog, download, list and the offline rules through the real `vault` and `vault-server` binaries.
@Suite(.ownThreads)
struct DownloadCommandTests {
    func signedIn() throws -> (CLIVault, ServerProcess) {
        let server = try ServerProcess()
        let vault = CLIVault()
        try vault.initialize()
        try vault.signIn(to: server)
        return (vault, server)
    }

    @Test("login, catalog, download and list, with the documented JSON keys")
    func happyPath() throws {
        let (vault, server) = try signedIn()
        let catalog = try #require(try vault.unlocked(["catalog", "--json"]).json?["assessments"] as? [[String: Any]])
        #expect(catalog.map { $0["id"] as? String } == ["algebra-1", "reading-fa-en", "science-timed"])
        #expect(Set(catalog[0].keys) == ["id", "title", "version", "size_bytes", "downloaded_version", "sealed"])
        #expect(catalog[0]["downloaded_version"] is NSNull)

        let download = try vault.unlocked(["download", "algebra-1"])
        #expect(download.status == 0)
        #expect(download.stdout.contains("available offline"))
        let next = try vault.unlocked(["download", "--next", "1", "--json"])
        #expect((next.json?["downloads"] as? [[String: Any]])?.first?["id"] as? String == "reading-fa-en")

        let list = try #require(try vault.unlocked(["list", "--json"]).json?["assessments"] as? [[String: Any]])
        #expect(list.map { $0["id"] as? String } == ["algebra-1", "reading-fa-en"])
        for key in ["id", "title", "version", "size_bytes", "downloaded_at", "expires_at", "attempt_state", "pending_answers"] {
            #expect(list[0][key] != nil, "missing \(key)")
        }
        #expect(list[0]["attempt_state"] as? String == "none")
        let again = try #require(try vault.unlocked(["catalog", "--json"]).json?["assessments"] as? [[String: Any]])
        #expect(again[0]["downloaded_version"] as? Int == 1)

        // A new version on the server shows as outdated, and downloading replaces the copy.
        let document = vault.root.file("algebra.json")
        try Data(#"{"id":"algebra-1","title":"Algebra Quiz","questions":[{"id":"q1","type":"essay","prompt":"Changed"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: document))
        #expect(try server.admin(["publish", document]).stdout.contains("version 2"))
        #expect(try vault.unlocked(["catalog"]).stdout.contains("outdated"))
        #expect(try vault.unlocked(["download", "algebra-1"]).status == 0)
        let versions = try #require(try vault.unlocked(["list", "--json"]).json?["assessments"] as? [[String: Any]])
        #expect(versions.first?["version"] as? Int == 2)
        #expect(TestVault.filesContaining(["Changed", "Algebra Quiz", "demo-password"], in: TemporaryDirectoryFiles.all(vault.path)).isEmpty)
    }

    @Test("offline: network commands exit 69 with a plain message and change nothing; local commands still work")
    func offline() throws {
        let (vault, server) = try signedIn()
        #expect(try vault.unlocked(["download", "algebra-1"]).status == 0)
        server.stop()
        let before = vault.snapshot()
        for command in [["catalog"], ["download", "reading-fa-en"], ["download", "--all"]] {
            let result = try vault.unlocked(command)
            #expect(result.status == 69, "\(command)")
            #expect(result.stderr.contains("needs an internet connection"))
            #expect(result.stderr.contains("fully available offline"))
            #expect(!result.stderr.contains("Connection refused") && !result.stderr.contains("HTTP"))
        }
        let status = try #require(try vault.unlocked(["status", "--json"]).json)
        #expect(status["connectivity"] as? String == "offline")
        #expect(try vault.unlocked(["list"]).stdout.contains("algebra-1"))
        #expect(try vault.unlocked(["storage"]).status == 0)
        // The only change offline is the remembered connectivity state inside the database.
        #expect(vault.snapshot()["vault.key"] == before["vault.key"])
    }

    @Test("a revoked or expired token: 'Your sign-in has expired. Run `vault login`.' and exit 77")
    func expiredToken() throws {
        let (vault, server) = try signedIn()
        // The server forgets every token: as if ours were revoked.
        let revoked = try Binaries.system("sqlite3", [server.dataDirectory + "/server.db", "DELETE FROM tokens"])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let result = try vault.unlocked(["catalog"])
        #expect(result.status == 77)
        #expect(result.stderr == "vault: Your sign-in has expired. Run `vault login`.\n")
        let login = try vault.run(["login", "--vault", vault.path, "--password-stdin", "--server-password-stdin"], stdin: "pw-1\ndemo-password\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(try vault.unlocked(["catalog"]).status == 0)
        let wrong = try vault.run(["login", "--vault", vault.path, "--password-stdin", "--server-password-stdin"], stdin: "pw-1\nnope\n")
        #expect(wrong.status == 77)
        #expect(!wrong.stderr.contains("401"))
    }

    @Test("a server whose key changed (another server at the same address): every network command stops, login too, until --accept-new-server-key")
    func serverKeyChanged() throws {
        let (vault, server) = try signedIn()
        let again = try vault.run(
            ["login", "--vault", vault.path, "--password-stdin", "--server-password-stdin", "--json"],
            stdin: "pw-1\ndemo-password\n"
        )
        let pinned = try #require(again.json?["server_key"] as? String, "\(again.stderr)")
        // A fresh data directory: a new server identity at the same address.
        server.stop()
        try FileManager.default.removeItem(atPath: server.dataDirectory)
        try server.start()
        let before = vault.snapshot()
        for command in [["catalog"], ["download", "algebra-1"], ["sync"]] {
            let result = try vault.unlocked(command)
            #expect(result.status == 77, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("The server's key has changed") && result.stderr.contains(pinned))
            #expect(result.stderr.contains("--accept-new-server-key"))
        }
        #expect(vault.snapshot()["vault.key"] == before["vault.key"])
        let refused = try vault.run(["login", "--vault", vault.path, "--password-stdin", "--server-password-stdin"], stdin: "pw-1\ndemo-password\n")
        #expect(refused.status == 77 && refused.stderr.contains("The server's key has changed"))
        let wrongPin = try vault.run(
            ["login", "--vault", vault.path, "--password-stdin", "--server-password-stdin", "--server-key", pinned],
            stdin: "pw-1\ndemo-password\n"
        )
        #expect(wrongPin.status == 77 && wrongPin.stderr.contains("is not the one you gave"))
        let accepted = try vault.run(
            ["login", "--vault", vault.path, "--password-stdin", "--server-password-stdin", "--accept-new-server-key", "--json"],
            stdin: "pw-1\ndemo-password\n"
        )
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let fresh = try #require(accepted.json?["server_key"] as? String)
        #expect(fresh != pinned)
        #expect(try vault.unlocked(["catalog"]).status == 0)
    }

    @Test("evict and clear-cache through the CLI")
    func eviction() throws {
        let (vault, server) = try signedIn()
        defer { withExtendedLifetime(server) {} }
        let all = try vault.unlocked(["download", "--all"])
        #expect(all.status == 0, "\(all.stderr)")
        let evicted = try vault.unlocked(["evict", "science-timed", "--json"])
        #expect(evicted.status == 0)
        #expect(evicted.json?["evicted"] as? [String] == ["science-timed"])
        #expect(try vault.unlocked(["evict"]).status == 64)
        #expect(try vault.unlocked(["evict", "nope"]).status == 66)
        #expect(try vault.unlocked(["clear-cache"]).status == 0)
        #expect((try vault.unlocked(["list", "--json"]).json?["assessments"] as? [Any])?.isEmpty == true)
    }
}

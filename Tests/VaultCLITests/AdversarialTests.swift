import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
import VaultAPI
#endif

/// The attacks of the hostile review (issue "Trust") that reach the vault through the real `vault` binary.
@Suite(.ownThreads)
struct CLIAdversarialTests {
    @Test("two `vault init` at once: exactly one succeeds (0), the other is told the vault exists (73); the winner's password opens it")
    func concurrentInit() throws {
        for round in 0..<5 {
            let vault = CLIVault()
            let processes = try ["first", "second"].map { password in
                let process = try Binaries.start(
                    "vault",
                    ["init", "--vault", vault.path, "--kdf-iterations", "1000", "--new-password-stdin"]
                )
                let input = process.standardInput as! Pipe
                input.fileHandleForWriting.write(Data("\(password)\n".utf8))
                try? input.fileHandleForWriting.close()
                return (password, process)
            }
            let results = try processes.map { ($0.0, try Binaries.finish($0.1)) }
            let winners = results.filter { $0.1.status == 0 }
            #expect(winners.count == 1, "round \(round): \(results.map { ($0.1.status, $0.1.stderr) })")
            #expect(results.filter { $0.1.status == 73 }.count == 1, "round \(round)")
            if let winner = winners.first?.0 {
                #expect(try vault.run(["status", "--vault", vault.path, "--password-stdin"], stdin: winner + "\n").status == 0)
            }
        }
    }

    @Test("a password over the length limit is refused, never cut; its rest never becomes the new password")
    func overlongPasswordTruncation() throws {
        let vault = CLIVault()
        try vault.initialize()
        let before = vault.snapshot()
        let long = "pw-1" + String(repeating: "x", count: 5_000)
        let result = try vault.run(
            ["passwd", "--vault", vault.path, "--password-stdin", "--new-password-stdin", "--kdf-iterations", "1000"],
            stdin: long + "\nnew-pw\n"
        )
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("longer than"))
        #expect(vault.snapshot() == before)
        // Neither the cut prefix nor the leftover became a password.
        #expect(try vault.unlocked(["status"]).status == 0)
        #expect(try vault.unlocked(["status"], password: String(repeating: "x", count: 5_000 - 4092)).status == 77)
    }

    @Test("an answer on the command line is refused (64) with the reason; nothing is recorded; stdin works")
    func answerInCommandLine() throws {
        let (vault, server) = try CLIFixtures.prepared(answers: [], submit: false)
        defer { withExtendedLifetime(server) {} }
        let refused = try vault.unlocked(["answer", "algebra-1", "q1", "b"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("ps") && refused.stderr.contains("history"))
        let show = try #require(try vault.unlocked(["show", "algebra-1", "--json"]).json)
        let answers = (show["questions"] as? [[String: Any]] ?? []).compactMap { $0["answer"] as? String }
        #expect(answers.isEmpty)
        #expect(try vault.answer("algebra-1", "q1", "b").status == 0)
        // No stdin at all: a plain sentence, not a hang.
        let empty = try vault.unlocked(["answer", "algebra-1", "q3"])
        #expect(empty.status == 64)
        #expect(empty.stderr.contains("No answer"))
    }

    @Test("--vault naming a symlink is refused with a fix, not followed")
    func symlinkedVaultDirectory() throws {
        let vault = CLIVault()
        try vault.initialize()
        let link = vault.root.file("link")
        symlink(vault.path, link)
        let result = try vault.run(["status", "--vault", link, "--password-stdin"], stdin: "pw-1\n")
        #expect(result.status == 77)
        #expect(result.stderr.contains("symbolic link"))
    }

    @Test("logout revokes the token on the server, not only in the vault")
    func tokenLivesAfterLogout() throws {
        let (vault, server) = try CLIFixtures.prepared(answers: [], submit: false)
        defer { withExtendedLifetime(server) {} }
        func liveTokens() throws -> String {
            try Binaries.system(
                "sqlite3",
                [server.dataDirectory + "/server.db", "SELECT count(*) FROM tokens WHERE expires_at > strftime('%s','now')"]
            ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try liveTokens() == "1")
        let result = try vault.unlocked(["logout"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("no longer accepts"))
        #expect(try liveTokens() == "0")
    }

    /// A vault pointed at a man-in-the-middle proxy (scripts/eating-proxy.py) that answers `accepted` for the
    /// essay and the short text without forwarding them, and strikes them from the submission.
    func throughEatingProxy(times: Int) throws -> (CLIVault, ServerProcess, Process, String) {
        let (vault, server) = try CLIFixtures.prepared(
            answers: [("q1", "b"), ("q2", "a,c"), ("q3", "true"), ("q4", "5"), ("q5", "coefficient"), ("q6", "Because the slope is 2.")]
        )
        let portFile = vault.root.file("proxy-port")
        let proxy = try Binaries.start(
            "/usr/bin/python3",
            [Binaries.repositoryRoot + "/scripts/eating-proxy.py", String(server.port), portFile, "q5,q6", String(times)]
        )
        var proxyPort = 0
        for _ in 0..<100 where proxyPort == 0 {
            usleep(50_000)
            proxyPort = Int((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "") ?? 0
        }
        #expect(proxyPort > 0)
        // On a loaded machine the proxy (a Python process) may be slow to answer its first request: a few tries.
        var login: Binaries.Result?
        for _ in 0..<10 where login?.status != 0 {
            if login != nil { usleep(500_000) }
            login = try vault.run(
                [
                    "login", "--server", "http://127.0.0.1:\(proxyPort)", "--user", "demo", "--vault", vault.path, "--password-stdin",
                    "--server-password-stdin",
                ],
                stdin: "pw-1\ndemo-password\n"
            )
        }
        #expect(login?.status == 0, "\(login?.stderr ?? "")")
        return (vault, server, proxy, portFile)
    }

    @Test("partial receipt through a middle box: two answers eaten once are sent again; the vault ends with every answer on the server")
    func partialReceiptThroughMiddleBox() throws {
        let (vault, server, proxy, portFile) = try throughEatingProxy(times: 1)
        defer { kill(proxy.processIdentifier, SIGKILL) }
        let sync = try vault.unlocked(["sync", "--json"])
        #expect(sync.status == 0, "\(sync.stdout) \(sync.stderr)")
        // The proxy really ate the essay and the short text once (its own record).
        let eaten = ((try? String(contentsOfFile: portFile + ".eaten", encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(Set(eaten) == ["q5", "q6"], "\(eaten)")
        let received = try CLIFixtures.received(server)
        #expect(Set(received.responses.map(\.questionId)) == ["q1", "q2", "q3", "q4", "q5", "q6"])
        #expect(received.submissions.count == 1)
        // The receipt the vault kept names all six; verify agrees, and the attempt is handed in.
        let receipts = try #require(try vault.unlocked(["receipts", "algebra-1", "--json"]).json)
        #expect("\(receipts)".contains("q6"))
        #expect(try vault.unlocked(["verify"]).status == 0)
        let list = try #require(try vault.unlocked(["list", "--json"]).json?["assessments"] as? [[String: Any]])
        #expect(list.first?["attempt_state"] as? String == "synced")
    }

    @Test("partial receipt from a middle box that never stops: the vault never says everything is uploaded and names the missing questions")
    func partialReceiptPersistent() throws {
        let (vault, server, proxy, _) = try throughEatingProxy(times: -1)
        defer { kill(proxy.processIdentifier, SIGKILL) }
        let sync = try vault.unlocked(["sync"])
        #expect(sync.status != 0)
        #expect(!sync.stdout.contains("Everything is uploaded"))
        #expect((sync.stdout + sync.stderr).contains("q5, q6"), "\(sync.stdout) \(sync.stderr)")
        // Nothing counts as handed in: the attempt is not synced, and the answers are still waiting.
        let list = try #require(try vault.unlocked(["list", "--json"]).json?["assessments"] as? [[String: Any]])
        #expect(list.first?["attempt_state"] as? String != "synced")
        #expect(Set(try CLIFixtures.received(server).responses.map(\.questionId)) == ["q1", "q2", "q3", "q4"])
    }
}

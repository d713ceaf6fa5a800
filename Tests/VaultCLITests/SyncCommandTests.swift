import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

/// `vault sync` through the real binaries: summaries, exit codes, conflicts, crashes and a lossy network.
@Suite(.ownThreads)
struct SyncCommandTests {
    func received(_ server: ServerProcess, _ id: String = "algebra-1") throws -> ReceivedResponses {
        try CLIFixtures.received(server, id)
    }

    @Test("sync uploads, prints the server's receipt, reports the documented JSON keys, and is a no-op the second time")
    func syncOnce() throws {
        let (vault, server) = try CLIFixtures.prepared()
        let result = try vault.unlocked(["sync", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(result.json)
        for key in ["uploaded", "duplicates", "superseded", "conflicts", "gone", "dead_letters", "remaining"] { #expect(json[key] != nil, "\(key)") }
        #expect(json["uploaded"] as? Int == 3)
        let receipts = try #require(json["receipts"] as? [String])
        #expect(try received(server).submissions.map(\.receiptId) == receipts)
        let again = try #require(try vault.unlocked(["sync", "--json"]).json)
        #expect(again["uploaded"] as? Int == 0)
        let status = try #require(try vault.unlocked(["status", "--json"]).json)
        #expect(status["pending_answers"] as? Int == 0 && !(status["last_sync_at"] is NSNull))
        let list = try #require(try vault.unlocked(["list", "--json"]).json?["assessments"] as? [[String: Any]])
        #expect(list.first?["attempt_state"] as? String == "synced")
    }

    @Test("offline at the start: exit 69 in plain words, the queue untouched")
    func offline() throws {
        let (vault, server) = try CLIFixtures.prepared()
        server.stop()
        let result = try vault.unlocked(["sync"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("needs an internet connection"))
        #expect(try vault.unlocked(["status", "--json"]).json?["pending_answers"] as? Int == 3)
    }

    @Test("conflicts by flag: keep exits 3 and says why; submit sends them forced")
    func conflictFlags() throws {
        let (vault, server) = try CLIFixtures.prepared()
        let changed = vault.root.file("v2.json")
        var document = try JSONDecoder().decode(Assessment.self, from: Data(contentsOf: Binaries.sampleURL("algebra-1")))
        document.questions[0].prompt = "3x = 15. What is x?"
        try CanonicalJSON.encode(document).write(to: URL(fileURLWithPath: changed))
        #expect(try server.admin(["publish", changed]).stdout.contains("version 2"))

        let kept = try vault.unlocked(["sync", "--on-conflict", "keep"])
        #expect(kept.status == 3)
        #expect(kept.stdout.contains("1 answer waits for your decision"))
        #expect(!kept.stdout.contains("409"))
        #expect(try vault.unlocked(["status"]).status == 3)
        let forced = try vault.unlocked(["sync", "--on-conflict", "submit", "--json"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let received = try received(server)
        #expect(received.responses.count == 3)
        #expect(received.submissions.first?.forced == true)
    }

    @Test("conflicts asked on a terminal: the prompt names the change and the teacher; [d] discards and downloads v2")
    func conflictPrompt() throws {
        let (vault, server) = try CLIFixtures.prepared()
        let changed = vault.root.file("v2.json")
        var document = try JSONDecoder().decode(Assessment.self, from: Data(contentsOf: Binaries.sampleURL("algebra-1")))
        document.questions[0].prompt = "5x = 20. What is x?"
        try CanonicalJSON.encode(document).write(to: URL(fileURLWithPath: changed))
        try server.admin(["publish", changed])
        let screen = try PseudoTerminal("vault", ["sync", "--vault", vault.path, "--password-stdin"])
        screen.send("pw-1\n")
        try screen.wait(for: "Algebra Quiz changed on the server")
        try screen.wait(for: "Questions that changed: q1.")
        try screen.wait(for: "ms.rivera@school.example")
        screen.send("d\n")
        try screen.wait(for: "Everything is uploaded.")
        #expect(screen.waitForExit() == 0)
        #expect(try received(server).responses.map(\.questionId).sorted() == ["q3", "q4"])
        // Version 2 is downloaded. `list` shows one row per assessment (issue 53): the handed-in attempt's version 1,
        // with the newer version beside it.
        let rows = try vault.unlocked(["list", "--json"]).json?["assessments"] as? [[String: Any]] ?? []
        #expect(rows.count == 1 && rows.first?["version"] as? Int == 1 && rows.first?["newest_version"] as? Int == 2, "\(rows)")
    }

    @Test("a deleted assessment: 'no longer available', dead letters kept, exit 3; export warns it is not encrypted")
    func goneAndDeadLetters() throws {
        let (vault, server) = try CLIFixtures.prepared()
        try server.admin(["delete", "algebra-1"])
        let result = try vault.unlocked(["sync"])
        #expect(result.status == 3)
        #expect(result.stdout.contains("no longer available"))
        let letters = try #require(try vault.unlocked(["dead-letters", "list", "--json"]).json?["dead_letters"] as? [[String: Any]])
        #expect(letters.count == 4)
        let output = vault.root.file("export.json")
        let export = try vault.unlocked(["dead-letters", "export", "--output", output])
        #expect(export.stderr.contains("not encrypted"))
        #expect((try String(contentsOfFile: output, encoding: .utf8)).contains("3.14"))
        let sealed = vault.root.file("sealed.json")
        let encrypted = try vault.run(
            ["dead-letters", "export", "--encrypt", "--output", sealed, "--vault", vault.path, "--password-stdin", "--new-password-stdin"],
            stdin: "pw-1\nteacher-share\n"
        )
        #expect(encrypted.status == 0)
        #expect(!(try String(contentsOfFile: sealed, encoding: .utf8)).contains("3.14"))
        let id = try #require(letters.first?["id"] as? Int)
        #expect(try vault.unlocked(["dead-letters", "discard", String(id)]).status == 0)
        #expect(try vault.unlocked(["dead-letters", "discard", "999"]).status == 66)
    }

    @Test("crash loop: vault sync killed with SIGKILL at random moments; afterwards the server holds every answer exactly once")
    func crashLoop() throws {
        let answers = (1...6).flatMap { _ in [("q1", "b"), ("q3", "true"), ("q4", "2.5"), ("q5", "x")] }
        let (vault, server) = try CLIFixtures.prepared(answers: [], submit: false)
        // Many answers, each replacing or adding: record them straight through the library for speed.
        do {
            let opened = try Vault.open(paths: VaultPaths(directory: vault.path), password: TestVault.secret("pw-1"))
            let attempt = try opened.openAttempt(on: "algebra-1")
            for (index, (question, value)) in answers.enumerated() {
                let parsed = try AnswerParser.parse(value, for: try #require(attempt.assessment.question(question)))
                try opened.recordAnswer(attemptID: attempt.id, questionID: question, answer: parsed, now: Date().addingTimeInterval(Double(index)))
            }
            try opened.submitAttempt(attempt.id)
        }
        var generator = SystemRandomNumberGenerator()
        var killed = 0
        let trials = Int(ProcessInfo.processInfo.environment["VAULT_SOAK_TRIALS"] ?? "") ?? 25
        for _ in 0..<trials {
            let process = try Binaries.start("vault", ["sync", "--batch-size", "1", "--vault", vault.path, "--password-stdin"])
            let input = process.standardInput as! Pipe
            input.fileHandleForWriting.write(Data("pw-1\n".utf8))
            try? input.fileHandleForWriting.close()
            usleep(UInt32.random(in: 20_000...140_000, using: &generator))
            if process.isRunning { killed += 1 }
            kill(process.processIdentifier, SIGKILL)
            _ = try Binaries.finish(process)
        }
        let final = try vault.unlocked(["sync", "--json"])
        #expect(final.status == 0, "\(final.stderr)")
        let received = try received(server)
        // 4 distinct questions: the latest answer per question is current on the server, each id stored once.
        #expect(Set(received.responses.map(\.id)).count == received.responses.count)
        let current = received.responses.filter { !$0.superseded }
        #expect(current.count == 4)
        #expect(received.submissions.count == 1)
        #expect(try vault.unlocked(["verify"]).status == 0)
        print("sync crash loop: \(killed) of \(trials) runs killed mid-way")
        #expect(killed > 0)
    }

    @Test("through a flaky proxy that drops requests and responses, repeated syncs converge with no duplicates")
    func flakyProxy() throws {
        let (vault, server) = try CLIFixtures.prepared(answers: [("q1", "b"), ("q2", "a,c"), ("q3", "false"), ("q4", "7"), ("q5", "coefficient")])
        let portFile = vault.root.file("proxy-port")
        let proxy = try Binaries.start(
            "/usr/bin/python3",
            [Binaries.repositoryRoot + "/scripts/flaky-proxy.py", String(server.port), portFile, "0.6", "7"]
        )
        defer { kill(proxy.processIdentifier, SIGKILL) }
        var proxyPort = 0
        for _ in 0..<100 where proxyPort == 0 {
            usleep(50_000)
            proxyPort = Int((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "") ?? 0
        }
        #expect(proxyPort > 0)
        // Point the vault at the proxy (signing in through it may itself take a few tries).
        var signedIn = false
        for _ in 0..<30 where !signedIn {
            signedIn =
                try vault.run(
                    [
                        "login", "--server", "http://127.0.0.1:\(proxyPort)", "--user", "demo", "--vault", vault.path, "--password-stdin",
                        "--server-password-stdin",
                    ],
                    stdin: "pw-1\ndemo-password\n"
                ).status == 0
        }
        #expect(signedIn)
        var done = false
        var runs = 0
        var duplicates = 0
        var failures = 0
        while !done && runs < 40 {
            runs += 1
            let result = try vault.unlocked(["sync", "--batch-size", "2", "--json"])
            duplicates += result.json?["duplicates"] as? Int ?? 0
            if result.status != 0 { failures += 1 }
            done = result.status == 0 && (result.json?["remaining"] as? Int) == 0
        }
        #expect(done, "did not converge in \(runs) runs")
        // The proxy really lost traffic, before and after the server applied requests (its own count).
        let drops = ((try? String(contentsOfFile: portFile + ".drops", encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(drops.contains("before") && drops.contains("after"), "\(drops)")
        let received = try received(server)
        #expect(received.responses.count == 5)
        #expect(Set(received.responses.map(\.questionId)).count == 5)
        #expect(received.submissions.count == 1)
        print(
            "flaky proxy: \(drops.count) connections cut; converged after \(runs) sync runs, \(duplicates) duplicates answered, \(failures) runs cut short"
        )
    }

    @Test("sync --watch waits while the server is away and drains the queue once it is back, then exits")
    func watch() throws {
        let (vault, server) = try CLIFixtures.prepared()
        server.stop()
        let watcher = try Binaries.start("vault", ["sync", "--watch", "--vault", vault.path, "--password-stdin"])
        let input = watcher.standardInput as! Pipe
        input.fileHandleForWriting.write(Data("pw-1\n".utf8))
        try? input.fileHandleForWriting.close()
        usleep(1_500_000)
        #expect(watcher.isRunning)
        try server.start()
        let result = try Binaries.finish(watcher, timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("cannot be reached"))
        #expect(try received(server).responses.count == 3)
        #expect(try received(server).submissions.count == 1)
    }
}

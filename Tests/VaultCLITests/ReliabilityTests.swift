import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A full disk and two commands at once, through the real binaries.
@Suite(.ownThreads)
struct ReliabilityTests {
    @Test("disk full while saving an answer: exit 74 in plain words, the vault still opens, nothing saved before is lost")
    func diskFull() throws {
        let (vault, server) = try CLIFixtures.prepared(answers: [("q1", "b")], submit: false)
        defer { withExtendedLifetime(server) {} }
        let size = SecureFiles.size(vault.path + "/vault.db")
        let essay = String(repeating: "A long essay line that keeps going. ", count: 540)
        let limitKB = size / 1024 + 2
        let result = try Binaries.run(
            "/bin/sh",
            [
                "-c", "ulimit -f \(limitKB); exec \"$0\" answer algebra-1 q6 --vault \"$1\" --password-stdin", Binaries.directory + "/vault",
                vault.path,
            ],
            stdin: "pw-1\n" + essay
        )
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("disk is full"))
        #expect(!result.stderr.contains("SQLite") && !result.stderr.contains("errno"))
        let show = try #require(try vault.unlocked(["show", "algebra-1", "--json"]).json)
        let answers = (show["questions"] as? [[String: Any]] ?? []).map { $0["answer"] }
        #expect(answers[0] as? String == "b")
        #expect(answers[5] == nil || answers[5] is NSNull)
        #expect(try vault.unlocked(["verify"]).status == 0)
        // With room again the same answer saves.
        #expect(try vault.unlocked(["answer", "algebra-1", "q6"], extraInput: essay).status == 0)
    }

    @Test("take and sync at once: answers typed on an open screen reach the server while it is open, each once")
    func takeAndSync() throws {
        let (vault, server) = try CLIFixtures.prepared(answers: [("q1", "b")], submit: false)
        defer { withExtendedLifetime(server) {} }
        let screen = try PseudoTerminal("vault", ["take", "algebra-1", "--vault", vault.path, "--password-stdin"])
        screen.send("pw-1\n")
        try screen.wait(for: "Question")
        screen.send("#3\n")
        try screen.wait(for: "Question 3 of 6")
        screen.send("t\n")
        try screen.wait(for: "Saved.")
        // A sync beside the open screen: it runs, and takes what was saved so far.
        let first = try vault.unlocked(["sync", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.json?["uploaded"] as? Int == 2)
        screen.send("3.14\n")
        try screen.wait(for: "Question 5 of 6")
        let second = try vault.unlocked(["sync", "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.json?["uploaded"] as? Int == 1)
        // A key change waits for the screen: it needs the vault alone.
        let rotate = try vault.unlocked(["key", "rotate"])
        #expect(rotate.status == 75, "\(rotate.stderr)")
        screen.send(":q\n")
        #expect(screen.waitForExit() == 0)
        let received = try CLIFixtures.received(server)
        #expect(received.responses.count == 3)
        #expect(Set(received.responses.map(\.id)).count == 3)
        #expect(try vault.unlocked(["verify"]).status == 0)
    }
}

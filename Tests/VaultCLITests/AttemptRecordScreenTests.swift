import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The attempt's own record through the real binaries in a real terminal (tmux, 80x24), issue 55.
@Suite(.ownThreads)
struct AttemptRecordScreenTests {
    static let document = """
        {"id":"recorded","title":"Recorded","time_limit_seconds":1200,"questions":[\
        {"id":"q1","type":"true_false","prompt":"Sound travels faster than light."},\
        {"id":"q2","type":"essay","prompt":"Explain why the sea is salty."}]}
        """
    static let focusOut = "\u{1B}[O"
    static let focusIn = "\u{1B}[I"

    func open(_ screen: TmuxScreen, _ vault: CLIVault) throws {
        try screen.type("\(Binaries.directory)/vault take recorded --vault \(vault.path)")
        try screen.waitFor("Vault password")
        try screen.type("pw-1")
    }

    /// Every switch-on of the terminal's reports in `bytes` is followed by a switch-off.
    func reportsOff(_ bytes: String) -> Bool {
        guard let on = bytes.range(of: "\u{1B}[?1004h", options: .backwards) else { return true }
        return bytes[on.upperBound...].contains("\u{1B}[?1004l\u{1B}[?2004l")
    }

    /// `reportsOff` of the recorded bytes, given tmux's pipe a few seconds to pass the last of them on.
    func reportsOff(recordedIn file: String) -> Bool {
        for _ in 0..<30 {
            if let bytes = try? String(contentsOfFile: file, encoding: .utf8), reportsOff(bytes) { return true }
            usleep(100_000)
        }
        return false
    }

    @Test(
        "start, answer, two focus out/in pairs, a 300-character paste into the essay, kill -9 and resume, submit, sync: the teacher's log lists them in order, the roster says so, vault log shows the same; the terminal's reports are off after every way out"
    )
    func recordThroughTheScreen() throws {
        let (vault, server) = try CLIFixtures.downloaded([])
        defer { withExtendedLifetime(server) {} }
        let file = vault.root.file("recorded.json")
        try Data(Self.document.utf8).write(to: URL(fileURLWithPath: file))
        #expect(try server.admin(["publish", file]).status == 0)
        #expect(try vault.unlocked(["download", "recorded"]).status == 0)
        let screen = try TmuxScreen()
        let bytesFile = screen.directory.file("bytes")
        try screen.record(to: bytesFile)
        try open(screen, vault)
        try screen.waitFor("Start now?")
        #expect(try screen.rows().joined(separator: " ").contains("keeps a record"))
        try screen.type("y")
        try screen.waitFor("Question 1 of 2")
        try screen.type("true")
        try screen.waitFor("Question 2 of 2")
        for _ in 0..<2 {
            try screen.type(Self.focusOut, enter: false)
            try screen.type(Self.focusIn, enter: false)
        }
        let pasted = String(repeating: "salt and water ", count: 20)  // 300 characters
        let canary = "PASTED-CANARY"
        try screen.type("\u{1B}[200~" + canary + pasted.dropFirst(canary.count) + "\u{1B}[201~", enter: false)
        try screen.waitFor("salt and water salt")
        usleep(2_500_000)
        kill(try #require(try screen.pid(of: "vault")), SIGKILL)
        try screen.waitFor("Killed")

        // Back: the unclean end is found; then :q, and the reports are off on the way out.
        try screen.type("clear")
        try open(screen, vault)
        try screen.waitFor("Question ")
        try screen.type(":q")
        try screen.waitFor("Saved. Come back")
        #expect(reportsOff(recordedIn: bytesFile), "after :q")
        // Ctrl-C, then SIGTERM: each switches them off too.
        try screen.type("clear")
        try open(screen, vault)
        try screen.waitFor("Question ")
        try screen.press("C-c")
        try screen.waitFor("Saved. Come back")
        #expect(
            reportsOff(recordedIn: bytesFile),
            "after Ctrl-C: \(String(((try? String(contentsOfFile: bytesFile, encoding: .utf8)) ?? "").suffix(400)).debugDescription)"
        )
        try screen.type("clear")
        try open(screen, vault)
        try screen.waitFor("Question ")
        kill(try #require(try screen.pid(of: "vault")), SIGTERM)
        try screen.waitFor("$")
        #expect(reportsOff(recordedIn: bytesFile), "after SIGTERM")
        // Submit from the screen.
        try screen.type("clear")
        try open(screen, vault)
        try screen.waitFor("Question ")
        try screen.type(":s")
        try screen.waitFor("[y/N]")
        try screen.type("y")
        try screen.waitFor("$")
        #expect(reportsOff(recordedIn: bytesFile), "after submit")
        #expect(try vault.unlocked(["sync"]).status == 0)

        // The teacher's timeline, in order.
        let log = try server.admin(["log", "recorded", "--user", "demo", "--json"])
        #expect(log.status == 0, "\(log.stderr)")
        #expect(!log.stdout.contains(canary) && !log.stdout.contains("salt and water"), "no pasted or answer text")
        let records = try #require(log.json?["records"] as? [[String: Any]])
        #expect(records.count == 1 && records.first?["verified"] as? Bool == true, "\(log.stdout)")
        let events = (records.first?["events"] as? [[String: Any]] ?? []).map {
            ($0["kind"] as? String ?? "", $0["question"] as? String, $0["count"] as? Int)
        }
        let kinds = events.map(\.0)
        func index(_ kind: String, after start: Int = 0) -> Int? { kinds[start...].firstIndex(of: kind) }
        let started = try #require(index("started"))
        let answered = try #require(index("answered", after: started))
        #expect(events[answered].1 == "q1")
        let left1 = try #require(index("left", after: answered))
        let back1 = try #require(index("returned", after: left1))
        let left2 = try #require(index("left", after: back1))
        let back2 = try #require(index("returned", after: left2))
        let paste = try #require(index("pasted", after: back2))
        #expect(events[paste].1 == "q2" && events[paste].2 == 300, "\(events[paste])")
        let unclean = try #require(index("ended_uncleanly", after: paste))
        let resumed = try #require(index("resumed", after: unclean))
        #expect(index("submitted", after: resumed) != nil, "\(kinds)")
        #expect(kinds.filter { $0 == "left" }.count == 2 && kinds.filter { $0 == "pasted" }.count == 1, "\(kinds)")
        // The roster says so in words; the student reads the same record.
        let roster = try server.admin(["roster", "recorded"])
        #expect(roster.stdout.contains("left the exam screen 2 times") && roster.stdout.contains("pasted 300 characters into q2"), "\(roster.stdout)")
        let own = try vault.unlocked(["log", "recorded", "--json"])
        let ownKinds = ((own.json?["events"] as? [[String: Any]]) ?? []).compactMap { $0["kind"] as? String }
        #expect(ownKinds == kinds, "\(own.stdout)")
        let spoken = try vault.unlocked(["log", "recorded"])
        #expect(
            spoken.stdout.contains("You pasted 300 characters into q2.") && spoken.stdout.contains("You left the exam screen."),
            "\(spoken.stdout)"
        )
    }

    @Test(
        "a record emptied with stock tools (the revealed key and sqlcipher: DELETE FROM attempt_log) before the hand-in: it still verifies as a chain, and the teacher's log and roster say it does not begin where the attempt began and has no event for the answers (issue 70)"
    )
    func deletedRecordSeen() throws {
        let (vault, server) = try CLIFixtures.prepared(submit: false)
        defer { server.stop() }
        let reveal = try #require(try vault.unlocked(["key", "reveal", "--yes", "--json"]).json)
        let pragmas = try #require(reveal["pragmas"] as? [String])
        let shell = try Binaries.system(
            "sqlcipher",
            [vault.path + "/vault.db"],
            stdin: pragmas.joined(separator: "\n") + "\nDELETE FROM attempt_log;\n"
        )
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)
        let log = try server.admin(["log", "algebra-1", "--user", "demo"])
        #expect(
            log.stdout.contains("does not begin where the attempt began") && log.stdout.contains("no event for the answers to q1, q3, q4"),
            "\(log.stdout)"
        )
        let roster = try server.admin(["roster", "algebra-1"])
        #expect(roster.stdout.contains("its record does not verify") && roster.stdout.contains("q1, q3, q4"), "\(roster.stdout)")
        // An untouched record says nothing of the kind.
        let (honest, other) = try CLIFixtures.prepared()
        defer { other.stop() }
        #expect(try honest.unlocked(["sync"]).status == 0)
        let clean = try other.admin(["log", "algebra-1", "--user", "demo"])
        #expect(!clean.stdout.contains("does not verify"), "\(clean.stdout)")
    }
}

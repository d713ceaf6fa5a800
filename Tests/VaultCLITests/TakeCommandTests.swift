import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `take` on a real pseudo-terminal, plus `answer`, `show` and `submit`, all against the demo samples.
@Suite(.ownThreads)
struct TakeCommandTests {
    func downloaded(_ ids: [String] = ["--all"]) throws -> (CLIVault, ServerProcess) { try CLIFixtures.downloaded(ids) }

    func take(_ vault: CLIVault, _ id: String) throws -> PseudoTerminal {
        let terminal = try PseudoTerminal("vault", ["take", id, "--vault", vault.path, "--password-stdin"])
        terminal.send("pw-1\n")
        return terminal
    }

    @Test("a typo never ends the test: a letter out of range, an unknown :command and a non-number are said on screen and asked again")
    func typos() throws {
        let (vault, server) = try downloaded(["algebra-1"])
        defer { withExtendedLifetime(server) {} }
        let screen = try take(vault, "algebra-1")
        try screen.wait(for: "Question 1 of 6")
        screen.send("z\n")  // single choice: no such letter
        try screen.wait(for: "Nothing was saved; try again.")
        screen.send(":frobnicate\n")
        try screen.wait(for: "Unknown command :frobnicate")
        screen.send("b\n")
        try screen.wait(for: "Question 2 of 6")
        screen.send("t\n")  // multiple choice: no such letter
        try screen.wait(for: "Type a letter from a to")
        screen.send(">\n>\n")
        try screen.wait(for: "Question 4 of 6")
        screen.send("three\n")  // numeric: not a number
        try screen.wait(for: "Nothing was saved")
        screen.send(":q\n")
        #expect(screen.waitForExit() == 0)
        let show = try #require(try vault.unlocked(["show", "algebra-1", "--json"]).json)
        let answers = (show["questions"] as? [[String: Any]] ?? []).map { $0["answer"] as? String }
        #expect(answers.first == "b")
    }

    @Test(
        "leaving the screen: Ctrl-D saves and exits 0, Ctrl-C saves and exits 130, a closed terminal (SIGHUP) saves; nothing typed and entered is lost"
    )
    func leavingTheScreen() throws {
        let (vault, server) = try downloaded(["algebra-1"])
        defer { withExtendedLifetime(server) {} }
        var screen = try take(vault, "algebra-1")
        try screen.wait(for: "Question 1 of 6")
        screen.send("b\n")
        try screen.wait(for: "Question 2 of 6")
        screen.send("\u{04}")  // Ctrl-D: end of input
        try screen.wait(for: "Saved. Come back with `vault take algebra-1`")
        #expect(screen.waitForExit() == 0)

        screen = try take(vault, "algebra-1")
        try screen.wait(for: "Question 2 of 6")
        screen.send(">\n")
        try screen.wait(for: "Question 3 of 6")
        kill(screen.process.processIdentifier, SIGINT)  // what Ctrl-C sends
        try screen.wait(for: "Saved. Come back")
        #expect(screen.waitForExit() == 130)

        screen = try take(vault, "algebra-1")
        try screen.wait(for: "Question 3 of 6")  // the position was saved on Ctrl-C
        screen.send("t\n")
        try screen.wait(for: "Question 4 of 6")
        kill(screen.process.processIdentifier, SIGHUP)
        #expect(screen.waitForExit() == 129)
        let show = try #require(try vault.unlocked(["show", "algebra-1", "--json"]).json)
        let answers = (show["questions"] as? [[String: Any]] ?? []).map { $0["answer"] }
        #expect(answers[0] as? String == "b")
        #expect(answers[2] as? Bool == true)
    }

    @Test("take on a terminal: every question type, navigation, flag, review, kill -9 and resume, submit")
    func interactive() throws {
        let (vault, server) = try downloaded()
        defer { withExtendedLifetime(server) {} }
        var screen = try take(vault, "algebra-1")
        try screen.wait(for: "Question 1 of 6")
        screen.send("b\n")  // single choice by letter; moves on
        try screen.wait(for: "Question 2 of 6")
        screen.send("a\n")  // toggles a
        try screen.wait(for: "[x] a) 2")
        screen.send("c\n")  // toggles c
        try screen.wait(for: "[x] c) -2")
        screen.send("!\n")  // flag question 2
        try screen.wait(for: "Flagged for review.")
        screen.send(">\n")
        try screen.wait(for: "Question 3 of 6")
        screen.send("maybe\n")  // not a true/false answer: told, nothing saved
        try screen.wait(for: "Accepted: true or false")
        // kill -9 after two saved answers: at most the answer being typed is lost.
        kill(screen.process.processIdentifier, SIGKILL)
        _ = screen.waitForExit()

        screen = try take(vault, "algebra-1")
        try screen.wait(for: "Resuming: 2 answered so far.")
        try screen.wait(for: "Question 3 of 6")
        screen.send("<\n")
        try screen.wait(for: "Question 2 of 6")
        try screen.wait(for: "[flagged]")
        screen.send(">\n")
        try screen.wait(for: "Question 3 of 6")
        screen.send("t\n")
        try screen.wait(for: "Question 4 of 6")
        screen.send("3,14\n")
        try screen.wait(for: "Question 5 of 6")
        screen.send("coefficient\n")
        try screen.wait(for: "Question 6 of 6")
        screen.send("Add 3 to both sides.\n\nThen divide by 4: x = 3.\n.\n")
        try screen.wait(for: "Then divide by 4: x = 3.")
        screen.send("<\n")
        try screen.wait(for: "Question 5 of 6")
        screen.send("#1\n")
        try screen.wait(for: "Question 1 of 6")
        screen.send(":r\n")
        try screen.wait(for: "Unanswered: none. Flagged: 2.")
        screen.send(":s\n")
        try screen.wait(for: "Submit now?")
        screen.send("y\n")
        try screen.wait(for: "Submitted.")
        #expect(screen.waitForExit() == 0)

        let show = try #require(try vault.unlocked(["show", "algebra-1", "--json"]).json)
        #expect(show["attempt_state"] as? String == "submitted")
        let answers = (show["questions"] as? [[String: Any]] ?? []).map { $0["answer"] }
        #expect(answers[0] as? String == "b")
        #expect(answers[1] as? [String] == ["a", "c"])
        #expect(answers[2] as? Bool == true)
        #expect(answers[3] as? Double == 3.14)
        #expect(answers[5] as? String == "Add 3 to both sides.\n\nThen divide by 4: x = 3.")
        let again = try vault.answer("algebra-1", "q1", "a")
        #expect(again.status == 77)
        #expect(again.stderr.contains("cannot be changed"))
        #expect(TestVault.filesContaining(["Then divide by 4", "coefficient", "Algebra Quiz"], in: TemporaryDirectoryFiles.all(vault.path)).isEmpty)
    }

    @Test("a timed attempt runs out: it is submitted with what was saved, and the student is told")
    func timed() throws {
        let (vault, server) = try downloaded([])
        defer { withExtendedLifetime(server) {} }
        let document = vault.root.file("timed.json")
        try Data(
            #"{"id":"quick","title":"Quick","time_limit_seconds":3,"questions":[{"id":"q1","type":"true_false","prompt":"Yes?"},{"id":"q2","type":"short_text","prompt":"Name?"}]}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: document))
        try server.admin(["publish", document])
        #expect(try vault.unlocked(["download", "quick"]).status == 0)
        let screen = try take(vault, "quick")
        // The start screen first: the clock starts only on yes.
        try screen.wait(for: "Start now? [y/N]")
        screen.send("y\n")
        try screen.wait(for: "time left")
        screen.send("t\n")
        try screen.wait(for: "Question 2 of 2")
        try screen.wait(for: "Time is up.", timeout: .seconds(10))
        #expect(screen.waitForExit() == 0)
        let show = try #require(try vault.unlocked(["show", "quick", "--json"]).json)
        #expect(show["attempt_state"] as? String == "submitted")
        // The record says the time ran out, then the hand-in (issue 71): never a hand-in the student chose alone.
        let log = try vault.unlocked(["log", "quick", "--json"])
        let kinds = ((log.json?["events"] as? [[String: Any]]) ?? []).compactMap { $0["kind"] as? String }
        #expect(kinds.suffix(2) == ["time_up", "submitted"], "\(log.stdout)")
        // Reopening gives no extra time: the attempt is closed.
        #expect(try vault.unlocked(["take", "quick"]).status == 77)
    }

    @Test(
        "time limits hold offline: show needs --start, the clock runs between commands, an answer past the limit is refused and the attempt submitted; the teacher sees the time used"
    )
    func timedAcrossCommands() throws {
        let (vault, server) = try downloaded([])
        defer { withExtendedLifetime(server) {} }
        let document = vault.root.file("timed.json")
        try Data(
            #"{"id":"quick2","title":"Quick","time_limit_seconds":1,"questions":[{"id":"q1","type":"short_text","prompt":"First secret prompt"},{"id":"q2","type":"short_text","prompt":"Second"}]}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: document))
        try server.admin(["publish", document])
        #expect(try vault.unlocked(["download", "quick2"]).status == 0)
        // Without --start (and no terminal to ask on) nothing is shown and no clock starts.
        let preview = try vault.unlocked(["show", "quick2"])
        #expect(preview.status == 0)
        #expect(preview.stdout.contains("1 minute") == false && preview.stdout.contains("--start"))
        #expect(!preview.stdout.contains("First secret prompt"))
        #expect(try vault.answer("quick2", "q1", "in time").status == 0)  // the first answer starts the clock
        Thread.sleep(forTimeInterval: 12)  // past the 1 s limit and its 10 s grace, with no command running
        let late = try vault.answer("quick2", "q2", "too late")
        #expect(late.status == 77)
        #expect(late.stderr.contains("ran out") && late.stderr.contains("submitted"))
        let show = try #require(try vault.unlocked(["show", "quick2", "--json"]).json)
        #expect(show["attempt_state"] as? String == "submitted")
        let answers = (show["questions"] as? [[String: Any]] ?? []).map { $0["answer"] as? String }
        #expect(answers == ["in time", nil])
        #expect(try vault.unlocked(["sync"]).status == 0)
        let received = try #require(try server.admin(["responses", "quick2", "--json"]).json)
        let submission = try #require((received["submissions"] as? [[String: Any]])?.first)
        #expect((submission["time_used_ms"] as? Int ?? 0) >= 11_000)
        #expect(submission["started_at"] is String)
    }

    @Test(
        "what a person reads: list and storage in aligned columns with headers, dates relative and local, never a raw timestamp; admin usage with owner and totals"
    )
    func readableOutput() throws {
        let (vault, server) = try downloaded(["algebra-1", "reading-fa-en"])
        defer { withExtendedLifetime(server) {} }
        let isoTimestamp = try Regex(#"\d{4}-\d\d-\d\dT\d\d:\d\d"#)
        for command in [["list"], ["storage"], ["status"]] {
            let output = try vault.unlocked(command).stdout
            #expect(!output.contains(isoTimestamp), "\(command): \(output)")
        }
        let list = try vault.unlocked(["list"]).stdout.split(separator: "\n").map(String.init)
        #expect(list.first?.hasPrefix("ID") == true && list.first?.contains("EXPIRES") == true)
        #expect(list.dropFirst().allSatisfy { $0.contains("in 7 days") || $0.contains("in 6 days") }, "\(list)")
        // Columns line up: the version column starts at the same place in the header and every row (the titles, one
        // of them Farsi, are one column per character, so characters count columns here).
        let starts = list.map { line in
            line.firstRange(of: line == list[0] ? "  VER" : "  1  ").map { line.distance(from: line.startIndex, to: $0.lowerBound) }
        }
        #expect(starts.count == 3 && !starts.contains(nil) && Set(starts).count == 1, "\(list)")
        let usage = try vault.run(["admin", "usage", "--root", vault.root.path]).stdout
        #expect(usage.contains("OWNER") && usage.contains("Total: 1 vault"))
    }

    @Test("answer validates per type (exit 65 naming what is accepted); - reads the text from stdin; submit queues")
    func answerCommand() throws {
        let (vault, server) = try downloaded(["reading-fa-en"])
        defer { withExtendedLifetime(server) {} }
        let bad = try vault.answer("reading-fa-en", "q1", "zz")
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("Accepted: one of a, b, c"))
        #expect(try vault.answer("reading-fa-en", "q9", "a").status == 66)
        #expect(try vault.answer("reading-fa-en", "q1", "a").status == 0)
        let essay = try vault.unlocked(["answer", "reading-fa-en", "q4"], extraInput: "روستای ما کوچک است.\nما یک مدرسه داریم.\n")
        #expect(essay.status == 0, "\(essay.stderr)")
        let list = try #require(try vault.unlocked(["list", "--json"]).json?["assessments"] as? [[String: Any]])
        #expect(list.first?["attempt_state"] as? String == "in_progress")
        #expect(list.first?["pending_answers"] as? Int == 2)
        let submit = try vault.unlocked(["submit", "reading-fa-en", "--json"])
        #expect(submit.json?["unanswered"] as? Int == 2)
        let status = try #require(try vault.unlocked(["status", "--json"]).json)
        #expect(status["pending_answers"] as? Int == 2)
        #expect(status["pending_submissions"] as? Int == 1)
        let show = try vault.unlocked(["show", "reading-fa-en"])
        #expect(show.stdout.contains("روستای ما کوچک است."))
    }

    @Test("reads do not write: show and list make no fsync (strace), an answer makes its durable commit")
    func readsDoNotWrite() throws {
        let (vault, server) = try downloaded(["algebra-1"])
        defer { withExtendedLifetime(server) {} }
        #expect(try vault.answer("algebra-1", "q1", "b").status == 0)  // an attempt exists, as during a test
        func syncs(_ command: [String], input: String = "") throws -> Int {
            let (result, trace) = try vault.traced(command, calls: "fsync,fdatasync", input: input)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            return trace.split(separator: "\n").filter { $0.contains("fsync(") || $0.contains("fdatasync(") }.count
        }
        #expect(try syncs(["show", "algebra-1"]) == 0)
        #expect(try syncs(["list"]) == 0)
        #expect(try syncs(["status"]) == 0)
        // The check can fail: a write does fsync.
        #expect(try syncs(["answer", "algebra-1", "q2"], input: "a\n") > 0)
    }

    @Test("offline-capable commands never open a network connection (strace shows no inet socket)")
    func noNetwork() throws {
        let (vault, server) = try downloaded(["algebra-1"])
        defer { withExtendedLifetime(server) {} }
        let commands: [([String], String)] = [
            (["list"], ""), (["show", "algebra-1"], ""), (["status"], ""), (["storage"], ""), (["verify"], ""),
            (["config", "list"], ""), (["answer", "algebra-1", "q1"], "b\n"), (["take", "algebra-1"], "a\n:q\n"),
            (["submit", "algebra-1"], ""), (["key", "list"], ""), (["evict", "--expired"], ""),
        ]
        for (command, input) in commands {
            let (result, calls) = try vault.traced(command, calls: "socket,connect", input: input)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(!calls.contains("AF_INET") && !calls.contains("AF_INET6"), "\(command) touched the network: \(calls)")
        }
        // The check can fail: a network command shows up in the same trace.
        let trace = vault.root.file("trace.txt")
        _ = try Binaries.run(
            "/usr/bin/strace",
            [
                "-f", "-qq", "-e", "trace=socket,connect", "-o", trace, Binaries.directory + "/vault", "catalog", "--vault", vault.path,
                "--password-stdin",
            ],
            stdin: "pw-1\n"
        )
        #expect(((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").contains("AF_INET"))
    }
}

import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultTestSupport

/// The teacher's desk on the command line (`vault-server roster`, `grade --question`, `export`, `close`, `user add
/// --group`) and what a student sees when their hand-in arrives after closing, through the real binaries.
@Suite(.ownThreads)
struct DeskCommandTests {
    static let essay = "Subtract 3, then divide by 4: x = 3. — محمد"

    @Test("roster, the terminal grading queue (a typo asks again), export to a private file, groups")
    func teacherCommands() throws {
        let (vault, server) = try CLIFixtures.prepared(answers: [("q1", "b"), ("q6", Self.essay)])
        #expect(try vault.unlocked(["sync"]).status == 0)
        #expect(try server.admin(["user", "add", "ana", "--group", "7b", "--password-iterations", "1000"], stdin: "ana-pw\n").status == 0)
        let badGroup = try server.admin(["user", "add", "eve", "--group", "7b\u{1B}[2J", "--password-iterations", "1000"], stdin: "eve-pw\n")
        #expect(badGroup.status != 0 && badGroup.stderr.contains("control characters"))

        let roster = try server.admin(["roster", "algebra-1", "--json"])
        #expect(roster.status == 0, "\(roster.stderr)")
        let students = try #require(roster.json?["students"] as? [[String: Any]])
        let demo = try #require(students.first { $0["user"] as? String == "demo" })
        #expect(
            demo["via"] as? String == "sync" && demo["downloaded_version"] as? Int == 1 && demo["pending"] as? Int == 1,
            "the essay waits; q5 left blank does not (issue 67)"
        )
        #expect(students.first { $0["user"] as? String == "ana" }?["group"] as? String == "7b")
        let group = try server.admin(["roster", "algebra-1", "--group", "7b"])
        #expect(group.stdout.contains("ana") && !group.stdout.contains("demo"))

        // The queue: the essay in full, a typo asks again, a number saves at once.
        let queue = try server.admin(["grade", "algebra-1", "--question", "q6"], stdin: "three\n2.5\n")
        #expect(queue.status == 0, "\(queue.stderr)")
        #expect(queue.stdout.contains(Self.essay))
        #expect(queue.stdout.contains("That is not a number from 0 to 3"))
        #expect(queue.stdout.contains("Saved the points of 1 answer"))
        let over = try server.admin(["grade", "algebra-1", "--question", "q6"], stdin: "9\n\n")
        #expect(over.stdout.contains("That is not a number") && over.stdout.contains("Saved the points of 0 answers"))

        let out = server.dataDirectory + "/../grades.csv"
        let export = try server.admin(["export", "algebra-1", "--format", "csv", "--out", out])
        #expect(export.status == 0, "\(export.stderr)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines[0].hasPrefix("\"user\",\"group\",\"attempt_id\""))
        let row = try #require(lines.first { $0.hasPrefix("\"demo\"") })
        #expect(row.contains(",3.5,9,0,1,0,0,0,0,2.5,"), "q1 1 point, q2-q5 unanswered 0 (nothing to grade in a blank), q6 2.5: \(row)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0, "the gradebook file is private")
        #expect(try server.admin(["export", "nope", "--format", "moodle"]).stderr.contains("There is no assessment nope"))
        #expect(try server.admin(["export", "algebra-1", "--format", "excel"]).status != 0)
    }

    @Test(
        "closing with a student offline who hands in after it: their hand-in is kept and flagged, sync tells them in one sentence, the teacher zeroes or accepts it"
    )
    func lateHandIn() throws {
        let (vault, server) = try CLIFixtures.prepared(answers: [("q1", "b"), ("q3", "true")], submit: false)
        let closed = try server.admin(["close", "algebra-1"])
        #expect(closed.status == 0 && closed.stdout.contains("Closed algebra-1 on") && closed.stdout.contains("UTC"))
        // Handed in after closing (offline: the vault does not know it closed). One made before closing is on time
        // whenever it arrives (ExamDayModelTests, DeskTests.ownHandInBeforeClosingWins).
        #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0)
        let sync = try vault.unlocked(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("This exam had closed when your answers arrived. They are kept, and your teacher decides whether they count."))
        let json = try #require(try vault.unlocked(["sync", "--json"]).json)
        #expect(json["notices"] as? [String] == [])
        let roster = try #require(try server.admin(["roster", "algebra-1", "--json"]).json?["students"] as? [[String: Any]])
        #expect((roster.first { $0["user"] as? String == "demo" }?["flags"] as? [String])?.contains("after_closing") == true)
        #expect(try server.admin(["close", "algebra-1", "--at", "yesterday"]).stderr.contains("--at takes a time"))
    }

    @Test(
        "closing hands in a student's open attempt through the real binaries: the server says how many; the vault's later hand-in gets that receipt in one sentence, its answer after closing kept, not counted"
    )
    func closingHandsInTheOpenAttempt() throws {
        let (vault, server) = try CLIFixtures.prepared(answers: [("q1", "b")], submit: false)
        #expect(try vault.unlocked(["sync"]).status == 0)
        let closed = try server.admin(["close", "algebra-1"])
        #expect(closed.status == 0 && closed.stdout.contains("1 open attempt was handed in"), "\(closed.stdout)")
        // Offline, the student answers once more and hands in, not knowing the exam closed.
        #expect(try vault.answer("algebra-1", "q3", "true").status == 0)
        #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0)
        let sync = try vault.unlocked(["sync"])
        #expect(sync.status == 0, "\(sync.stdout) \(sync.stderr)")
        #expect(sync.stdout.contains("the answers that had reached the server were handed in for you"), "\(sync.stdout)")
        let again = try vault.unlocked(["sync", "--json"])
        #expect(again.status == 0 && (again.json?["submitted"] as? Int) == 0, "nothing left to send: \(again.stdout)")
        let roster = try #require(try server.admin(["roster", "algebra-1", "--json"]).json?["students"] as? [[String: Any]])
        let demo = try #require(roster.first { $0["user"] as? String == "demo" })
        let flags = demo["flags"] as? [String] ?? []
        #expect(demo["state"] as? String == "handed_in" && flags.contains("handed_in_at_closing"), "\(demo)")
        #expect(flags.contains("answers_after_hand_in"), "the answer given after closing is kept, not counted: \(flags)")
    }

    @Test("an account turned off on exam day: the student's `vault login` says so in a sentence, their work stays; turned on, they sign in")
    func turnedOffAccount() throws {
        let (vault, server) = try CLIFixtures.downloaded([])
        #expect(try server.admin(["user", "disable", "demo"]).status == 0)
        let login = ["login", "--server", server.url, "--user", "demo", "--vault", vault.path, "--password-stdin", "--server-password-stdin"]
        let refused = try vault.run(login, stdin: "pw-1\ndemo-password\n")
        #expect(refused.status != 0 && refused.stderr.contains("Your account is turned off on the server"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("403") && !refused.stderr.contains("demo-password"))
        #expect(try server.admin(["user", "enable", "demo"]).status == 0)
        #expect(try vault.run(login, stdin: "pw-1\ndemo-password\n").status == 0)
    }

    @Test(
        "a corrected key through the real binaries: regrade --dry-run lists the student (old, new) and changes nothing; applied, the student's next sync says the new score in a sentence; the vault lists one assessment, not two"
    )
    func regradeReachesTheStudent() throws {
        let (vault, server) = try CLIFixtures.prepared(answers: [("q1", "b"), ("q3", "true")])
        #expect(try vault.unlocked(["sync"]).status == 0)
        #expect(try server.admin(["release", "algebra-1"]).status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)
        // The teacher corrects q1's key (b was marked right by mistake) and republishes: version 2.
        let sample = Binaries.repositoryRoot + "/Sources/VaultServer/Samples/algebra-1.json"
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sample))) as? [String: Any])
        var questions = try #require(document["questions"] as? [[String: Any]])
        questions[0]["answer_key"] = ["c"]
        document["questions"] = questions
        let corrected = server.dataDirectory + "/../algebra-1-corrected.json"
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: corrected))
        #expect(try server.admin(["publish", corrected]).stdout.contains("version 2"))

        let dry = try server.admin(["regrade", "algebra-1", "--dry-run"])
        #expect(dry.status == 0 && dry.stdout.contains("would change 1 score") && dry.stdout.contains("demo (version 1): 2 of "), "\(dry.stdout)")
        #expect(dry.stdout.contains("→ 1 of") && dry.stdout.contains("Nothing was changed"))
        let json = try #require(try server.admin(["regrade", "algebra-1", "--dry-run", "--json"]).json)
        let change = try #require((json["changes"] as? [[String: Any]])?.first)
        #expect(change["user"] as? String == "demo" && change["old_score"] as? Double == 2 && change["new_score"] as? Double == 1, "\(json)")
        let applied = try server.admin(["regrade", "algebra-1"])
        #expect(
            applied.status == 0 && applied.stdout.contains("Regraded algebra-1 with the answer key of version 2: 1 score changed"),
            "\(applied.stdout)"
        )

        let sync = try vault.unlocked(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("Your score on algebra-1 changed from 2 to 1 of "), "\(sync.stdout)")
        let list = try #require(try vault.unlocked(["list", "--json"]).json?["assessments"] as? [[String: Any]])
        #expect(list.filter { $0["id"] as? String == "algebra-1" }.count == 1, "one assessment, not two: \(list)")
    }

    @Test("an attempt begun after closing is refused, and the roster keeps saying so: the vault reports only what the server never received")
    func refusedStaysRefused() throws {
        let (vault, server) = try CLIFixtures.downloaded(["algebra-1"])
        #expect(try server.admin(["close", "algebra-1"]).status == 0)
        Thread.sleep(forTimeInterval: 1.1)  // answered after the closing second
        #expect(try vault.answer("algebra-1", "q1", "b").status == 0)
        _ = try vault.unlocked(["sync"])
        _ = try vault.unlocked(["sync"])
        let roster = try #require(try server.admin(["roster", "algebra-1", "--json"]).json?["students"] as? [[String: Any]])
        let demo = try #require(roster.first { $0["user"] as? String == "demo" })
        #expect(demo["state"] as? String == "refused" && demo["refusal"] as? String == "after_closing", "\(demo)")
    }

    @Test("an answer synced by the real vault carries when its attempt started: the roster shows it (started_at) while they answer")
    func startedAtFromTheVault() throws {
        let (vault, server) = try CLIFixtures.prepared(answers: [("q1", "b")], submit: false)
        let before = Date()
        #expect(try vault.unlocked(["sync"]).status == 0)
        let roster = try #require(try server.admin(["roster", "algebra-1", "--json"]).json?["students"] as? [[String: Any]])
        let demo = try #require(roster.first { $0["user"] as? String == "demo" })
        #expect(demo["state"] as? String == "answering", "\(demo)")
        let started = try #require((demo["started_at"] as? String).flatMap(Timestamp.date), "\(demo)")
        #expect(started <= before && started > before - 300, "\(started) \(before)")
        #expect(try server.admin(["roster", "algebra-1"]).stdout.contains("; started "))
    }
}

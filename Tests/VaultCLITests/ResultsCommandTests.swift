import Foundation
import Testing
import VaultAPI
import VaultTestSupport

/// Results through the real binaries: nothing before release, then score, points and correct answers, offline.
@Suite(.ownThreads)
struct ResultsCommandTests {
    @Test("vault results: none before the teacher releases; after release and a grade, sync brings them and they show offline")
    func releasedResults() throws {
        let server = try ServerProcess()
        let vault = CLIVault()
        try vault.initialize()
        try vault.signIn(to: server)
        #expect(try vault.unlocked(["download", "algebra-1"]).status == 0)
        for (question, value) in [("q1", "b"), ("q2", "a"), ("q6", "Add three, then divide by four.")] {
            #expect(try vault.answer("algebra-1", question, value).status == 0)
        }
        #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0)
        let synced = try vault.unlocked(["sync", "--json"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(try vault.unlocked(["results"]).stdout.contains("No results yet"))

        let attempt = try #require(
            ((try vault.unlocked(["receipts", "--json"]).json?["receipts"] as? [[String: Any]])?.first?["attempt_id"]) as? String
        )
        let data = ["--data", server.dataDirectory]
        #expect(
            try Binaries.run("vault-server", ["grade", "algebra-1", "--attempt", attempt, "--question", "q6", "--points", "2.5"] + data).status == 0
        )
        #expect(
            try Binaries.run("vault-server", ["grade", "algebra-1", "--attempt", "nope", "--question", "q6", "--points", "2"] + data).status != 0
        )
        // Written feedback on the essay (a stray escape in it must not drive the student's terminal).
        let feedback = ["grade", "algebra-1", "--attempt", attempt, "--question", "q6", "--feedback", "Clear steps.\nSay why \u{1B}[2Jyou divide."]
        #expect(try Binaries.run("vault-server", feedback + data).status == 0)
        #expect(try Binaries.run("vault-server", ["release", "algebra-1"] + data).status == 0)
        let teacherView = try Binaries.run("vault-server", ["responses", "algebra-1"] + data)
        #expect(teacherView.stdout.contains("score:"), "\(teacherView.stdout)")

        let again = try vault.unlocked(["sync", "--json"])
        #expect(again.status == 0 && again.json?["results"] as? Int == 1, "\(again.stdout)\(again.stderr)")
        server.stop()
        // Offline from here: the results are in the vault.
        let shown = try vault.unlocked(["results", "algebra-1"])
        #expect(shown.status == 0, "\(shown.stderr)")
        Self.expectStudentsTerms(shown.stdout)
        #expect(shown.stdout.contains("Your teacher wrote: Clear steps. Say why ^[[2Jyou divide."), "\(shown.stdout)")
        #expect(!shown.stdout.contains("\u{1B}[2J"))
        // Decimals as the student's language writes them.
        let spanish = try vault.unlocked(["results", "algebra-1", "--lang", "es"]).stdout
        #expect(spanish.contains("3,50") && spanish.contains("2,50") && !spanish.contains("2.50") && !spanish.contains("3.50"), "\(spanish)")
        let persian = try vault.unlocked(["results", "algebra-1", "--lang", "fa"]).stdout
        #expect(persian.contains("۲٫۵۰"), "\(persian)")
        let json = try #require(try vault.unlocked(["results", "--json"]).json?["results"] as? [[String: Any]])
        #expect(json.first?["released"] as? Bool == true)
        // Evicted with the rest of what is synced: the results still read in full, and results fetched after the
        // eviction (or after downloading it again) are kept too.
        let evicted = try vault.unlocked(["evict", "--synced"])
        let listed = try vault.unlocked(["list", "--json"]).json?["assessments"] as? [Any]
        #expect(evicted.status == 0 && listed?.isEmpty == true, "\(evicted.stdout)")
        Self.expectStudentsTerms(try vault.unlocked(["results", "algebra-1"]).stdout)
        try server.start()
        #expect(try vault.unlocked(["sync"]).status == 0)
        #expect(try vault.unlocked(["download", "algebra-1"]).status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)
        let reread = try vault.unlocked(["results"])
        Self.expectStudentsTerms(reread.stdout)
        #expect(!reread.stdout.contains("No results yet"))
    }

    @Test(
        "a result and a receipt row damaged with the stock sqlcipher shell: results and receipts name them and show the others (exit 65), verify lists them"
    )
    func damagedRowsAreNamed() throws {
        let server = try ServerProcess()
        let vault = CLIVault()
        try vault.initialize()
        try vault.signIn(to: server)
        let data = ["--data", server.dataDirectory]
        for (id, question, value) in [("algebra-1", "q1", "b"), ("science-timed", "q1", "b")] {
            #expect(try vault.unlocked(["download", id]).status == 0)
            #expect(try vault.answer(id, question, value).status == 0)
            #expect(try vault.unlocked(["submit", id]).status == 0)
            #expect(try Binaries.run("vault-server", ["release", id] + data).status == 0)
        }
        #expect(try vault.unlocked(["sync"]).status == 0)
        #expect(try vault.unlocked(["sync", "--json"]).json?["results"] as? Int == 2)
        let receipts = try #require(try vault.unlocked(["receipts", "--json"]).json?["receipts"] as? [[String: Any]])
        let damagedReceipt = try #require(receipts.first { $0["assessment_id"] as? String == "science-timed" }?["receipt_id"] as? String)
        let damagedAttempt = try #require(receipts.first { $0["assessment_id"] as? String == "science-timed" }?["attempt_id"] as? String)

        // A security tester's damage, with the stock shell and the revealed key.
        let reveal = try #require(try vault.unlocked(["key", "reveal", "--yes", "--json"]).json)
        let pragmas = try #require(reveal["pragmas"] as? [String])
        let script =
            pragmas.joined(separator: "\n")
            + "\nUPDATE results SET result = 'not a result' WHERE attempt_id = '\(damagedAttempt)';"
            + "\nUPDATE receipts SET signed = '{' WHERE receipt_id = '\(damagedReceipt)';\n"
        let shell = try Binaries.system("sqlcipher", [vault.path + "/vault.db"], stdin: script)
        #expect(shell.status == 0, "\(shell.stderr)")

        let results = try vault.unlocked(["results"])
        #expect(results.status == 65, "\(results.stdout)\(results.stderr)")
        #expect(results.stderr.contains("A stored results row (\(damagedAttempt)) cannot be read back"), "\(results.stderr)")
        #expect(results.stdout.contains("Algebra"), "the other result is shown: \(results.stdout)")
        let json = try vault.unlocked(["results", "--json"]).json
        #expect((json?["results"] as? [Any])?.count == 1 && (json?["damaged"] as? [[String: Any]])?.first?["key"] as? String == damagedAttempt)
        let listed = try vault.unlocked(["receipts"])
        #expect(listed.status == 65 && listed.stderr.contains("A stored receipts row (\(damagedReceipt)) cannot be read back"), "\(listed.stderr)")
        let verify = try vault.unlocked(["verify"])
        #expect(verify.status != 0)
        #expect(verify.stdout.contains(damagedAttempt) || verify.stderr.contains(damagedAttempt), "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.contains(damagedReceipt) || verify.stderr.contains(damagedReceipt), "\(verify.stdout)\(verify.stderr)")
    }

    /// The result as the student reads it: the question, their own answer and the correct one in the letters and
    /// texts they saw, points per question and in total; no internal ids, no JSON.
    static func expectStudentsTerms(_ text: String) {
        #expect(text.contains("Algebra Quiz (algebra-1, version 1): 3.50 of "), "\(text)")
        #expect(text.contains("1. 2x = 10. What is x?\n     Points: 1 of 1.\n     Your answer: b) 5\n     Correct answer: b) 5"), "\(text)")
        #expect(text.contains("Your answer: a) 2\n     Correct answer: a) 2, c) -2"), "\(text)")
        #expect(text.contains("Correct answer: true") && text.contains("Correct answer: 3.14"), "\(text)")
        #expect(text.contains("Points: 2.50 of ") && text.contains("Your answer: Add three, then divide by four."), "\(text)")
        #expect(!text.contains("[\"") && !text.contains("{\"") && !text.contains("correct: "), "\(text)")
    }
}

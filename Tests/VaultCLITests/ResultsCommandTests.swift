import Foundation
import Testing
import VaultAPI
import VaultTestSupport

/// Results through the real binaries: nothing before release, then score, points and correct answers, offline.
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
            try Binaries.run("vault-server", ["grade", "algebra-1", "--attempt", attempt, "--question", "q6", "--points", "2"] + data).status == 0
        )
        #expect(
            try Binaries.run("vault-server", ["grade", "algebra-1", "--attempt", "nope", "--question", "q6", "--points", "2"] + data).status != 0
        )
        #expect(try Binaries.run("vault-server", ["release", "algebra-1"] + data).status == 0)
        let teacherView = try Binaries.run("vault-server", ["responses", "algebra-1"] + data)
        #expect(teacherView.stdout.contains("score:"), "\(teacherView.stdout)")

        let again = try vault.unlocked(["sync", "--json"])
        #expect(again.status == 0 && again.json?["results"] as? Int == 1, "\(again.stdout)\(again.stderr)")
        server.stop()
        // Offline from here: the results are in the vault.
        let shown = try vault.unlocked(["results", "algebra-1"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("q1  1/1  correct: b"), "\(shown.stdout)")
        #expect(shown.stdout.contains("q2  0/"), "\(shown.stdout)")
        #expect(shown.stdout.contains("q6  2/"), "\(shown.stdout)")
        let json = try #require(try vault.unlocked(["results", "--json"]).json?["results"] as? [[String: Any]])
        #expect(json.first?["released"] as? Bool == true)
    }
}

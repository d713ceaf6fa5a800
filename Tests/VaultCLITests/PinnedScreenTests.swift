import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The take screen as a student sees it: the real `vault` in a real terminal emulator (tmux, 80x24), read back as
/// the rows on the screen.
@Suite(.ownThreads)
struct PinnedScreenTests {
    static let document = """
        {"id":"timed-essay","title":"Timed essay","time_limit_seconds":1200,"questions":[\
        {"id":"q1","type":"true_false","prompt":"Sound travels faster than light."},\
        {"id":"q2","type":"essay","prompt":"Explain why the sea is salty."},\
        {"id":"q3","type":"matching","prompt":"Match each country with its capital.",\
        "left":[{"id":"fr","text":"France"},{"id":"pe","text":"Peru"},{"id":"jp","text":"Japan"}],\
        "right":[{"id":"lima","text":"Lima"},{"id":"paris","text":"Paris"},{"id":"tokyo","text":"Tokyo"}]},\
        {"id":"q4","type":"fill_in_blanks","prompt":"The [1] sat on the [2].","blanks":[{"id":"1"},{"id":"2"}]}]}
        """

    func prepared() throws -> (CLIVault, ServerProcess, TmuxScreen) {
        let (vault, server) = try CLIFixtures.downloaded([])
        let file = vault.root.file("timed-essay.json")
        try Data(Self.document.utf8).write(to: URL(fileURLWithPath: file))
        #expect(try server.admin(["publish", file]).status == 0)
        #expect(try vault.unlocked(["download", "timed-essay"]).status == 0)
        return (vault, server, try TmuxScreen())
    }

    func open(_ screen: TmuxScreen, _ vault: CLIVault, start: Bool) throws {
        try screen.type("\(Binaries.directory)/vault take timed-essay --vault \(vault.path)")
        try screen.waitFor("Vault password")
        try screen.type("pw-1")
        if start {
            try screen.waitFor("Start now?")
            try screen.type("y")
        }
        try screen.waitFor("Question ")
    }

    func answer(_ vault: CLIVault, _ question: Int) throws -> Any? {
        let show = try #require(try vault.unlocked(["show", "timed-essay", "--json"]).json)
        return (show["questions"] as? [[String: Any]])?[question]["answer"]
    }

    @Test("40 essay lines and ? at 80x24: the top rows hold only the title, progress and clock, the clock never sits on the student's text")
    func pinnedHeader() throws {
        let (vault, server, screen) = try prepared()
        defer { withExtendedLifetime(server) {} }
        try open(screen, vault, start: true)
        try screen.type("#2")
        try screen.waitFor("Question 2 of 4")
        for line in 1...40 { try screen.type("Line \(line) of my essay about the sea.") }
        try screen.waitFor("Line 40 of my essay")
        // The essay finished, back to it: the 40 lines shown as the current answer, then the help under them.
        try screen.type(".")
        try screen.waitFor("Question 3 of 4")
        try screen.type("#2")
        try screen.waitFor("Question 2 of 4")
        try screen.type("?")
        try screen.waitFor("leaves (all is saved)")
        // Two ticks of the clock after the screen scrolled: each rewrites its own row only.
        usleep(2_200_000)
        let rows = try screen.rows()
        let shown = rows.joined(separator: "\n")
        #expect(rows[0].hasPrefix("Timed essay") && rows[0].contains("Question 2 of 4"), "\(shown)")
        #expect(rows[1].hasPrefix("time left 19:") || rows[1].hasPrefix("time left 20:"), "\(shown)")
        #expect(rows[2].hasPrefix("────"), "\(shown)")
        #expect(rows.enumerated().allSatisfy { $0.offset == 1 || !$0.element.contains("time left") }, "\(shown)")
        #expect(!rows[1].contains("Line ") && !rows[1].contains("essay"), "\(shown)")
        // The question itself scrolled away under the header (so the screen did scroll).
        #expect(!shown.contains("Explain why the sea"), "\(shown)")
        #expect(rows.allSatisfy { $0.count <= 80 })
        try screen.type(":q")
        try screen.waitFor("Saved. Come back")
    }

    @Test(
        "a stray line at a saved essay asks before replacing it (no keeps it); :q inside an essay leaves the screen; the next opening is not on the essay"
    )
    func strayLineAtAnEssay() throws {
        let (vault, server, screen) = try prepared()
        defer { withExtendedLifetime(server) {} }
        try open(screen, vault, start: true)
        try screen.type("#2")
        try screen.waitFor("Question 2 of 4")
        try screen.type("The sea is salty because rivers bring salt.")
        try screen.waitFor("Keep typing")
        try screen.type(":q")
        try screen.waitFor("Saved. Come back")
        #expect(try answer(vault, 1) as? String == "The sea is salty because rivers bring salt.")
        try screen.type("clear")
        try open(screen, vault, start: false)
        try screen.waitFor("Question 1 of 4")
        try screen.type("#2")
        try screen.waitFor("Question 2 of 4")
        try screen.type("b")
        try screen.waitFor("Replace your saved essay of 8 words")
        try screen.type("n")
        try screen.waitFor("kept as it was")
        try screen.type(":q")
        try screen.waitFor("Saved. Come back")
        #expect(try answer(vault, 1) as? String == "The sea is salty because rivers bring salt.")
    }

    @Test("a line typed without Enter is saved within seconds and survives kill -9; after the screen ends nothing typed reaches the shell")
    func unfinishedLine() throws {
        let (vault, server, screen) = try prepared()
        defer { withExtendedLifetime(server) {} }
        try open(screen, vault, start: true)
        try screen.type("#2")
        try screen.waitFor("Question 2 of 4")
        try screen.type("The sea is salty.")
        try screen.waitFor("Keep typing")
        // Typed, edited (Backspace, Left, a word inserted), and never entered.
        try screen.type("Rivers bring salt", enter: false)
        try screen.press("BSpace", "BSpace", "BSpace", "BSpace")
        try screen.type("minerals", enter: false)
        try screen.press("Home")
        try screen.type("All ", enter: false)
        try screen.waitFor("All Rivers bring minerals")
        usleep(3_000_000)
        let pid = try #require(try screen.pid(of: "vault"))
        kill(pid, SIGKILL)
        try screen.waitFor("Killed")
        #expect(try answer(vault, 1) as? String == "The sea is salty.\nAll Rivers bring minerals")

        // The screen-reader mode keeps the unfinished line too, and writes no escape sequence while it is typed.
        try screen.type("clear")
        let spokenFile = screen.directory.file("spoken")
        try screen.record(to: spokenFile)
        try screen.type("\(Binaries.directory)/vault take timed-essay --accessible --vault \(vault.path)")
        try screen.waitFor("Vault password")
        try screen.type("pw-1")
        try screen.waitFor("Your answer:")
        try screen.type("#2")
        try screen.waitFor("Question 2 of 4")
        try screen.type(":e")
        try screen.waitFor("Continuing your answer")
        try screen.type("Salt stays when wtr", enter: false)
        try screen.press("BSpace", "BSpace")
        try screen.type("ater dries", enter: false)
        try screen.waitFor("Salt stays when water dries")
        usleep(3_000_000)
        kill(try #require(try screen.pid(of: "vault")), SIGKILL)
        try screen.waitFor("$")
        #expect(try answer(vault, 1) as? String == "The sea is salty.\nAll Rivers bring minerals\nSalt stays when water dries")
        // What the screen wrote from the essay on, to the shell's "Killed" (the shell's own prompt has escapes).
        let recorded = try String(contentsOfFile: spokenFile, encoding: .utf8)
        let spoken = recorded.components(separatedBy: "Continuing your answer").last?.components(separatedBy: "Killed").first ?? ""
        #expect(spoken.contains("Salt stays when wtr\u{8} \u{8}\u{8} \u{8}ater dries") && !spoken.contains("\u{1B}"), "\(spoken)")

        // Something typed and not entered when the screen closes stays out of the shell: Ctrl-C, then Enter.
        let marker = screen.directory.file("typed-into-the-shell")
        try screen.type("clear")
        try open(screen, vault, start: false)
        try screen.type("touch \(marker)", enter: false)
        try screen.waitFor("touch \(marker)")
        try screen.press("C-c")
        try screen.waitFor("Saved. Come back")
        try screen.press("Enter")
        usleep(500_000)
        #expect(!FileManager.default.fileExists(atPath: marker), "text typed in the take screen reached the shell")
        // The terminal is as it was: the shell echoes what is typed.
        try screen.type("echo terminal-$((6*7))")
        try screen.waitFor("terminal-42")
    }

    @Test("matching at the terminal: 1b 2a, :n, :p, 3c keeps three pairs; Enter on the last question says how to submit")
    func pairsAddUp() throws {
        let (vault, server, screen) = try prepared()
        defer { withExtendedLifetime(server) {} }
        try open(screen, vault, start: true)
        try screen.type("#3")
        try screen.waitFor("Question 3 of 4")
        try screen.type("1b 2a")
        try screen.waitFor("Now paired: 1 b) Paris; 2 a) Lima.")
        try screen.type(":n")
        try screen.waitFor("Question 4 of 4")
        try screen.type(":p")
        try screen.waitFor("Question 3 of 4")
        try screen.type("3c")
        try screen.waitFor("Now paired: 1 b) Paris; 2 a) Lima; 3 c) Tokyo.")
        let pairs = try #require(try answer(vault, 2) as? [[String]])
        #expect(pairs.count == 3 && pairs.contains(["jp", "tokyo"]) && pairs.contains(["fr", "paris"]), "\(pairs)")
        // The last question: its last blank moves on like the others, and Enter says what to do next.
        try screen.type(":n")
        try screen.waitFor("Question 4 of 4")
        try screen.type("cat")
        try screen.type("mat")
        try screen.waitFor("This is the last question")
        try screen.type("")
        // The redrawn question: the note stays, the blanks' prompts went (the screen before the Enter was read had
        // both, so a wait for the note alone passed on the old screen).
        try screen.waitUntil("the last question's note without the blanks' prompts") { rows in
            rows.contains { $0.contains(":s submits") } && !rows.contains { $0.contains("Blank [1]") }
        }
        try screen.type(":q")
        try screen.waitFor("Saved. Come back")
    }
}

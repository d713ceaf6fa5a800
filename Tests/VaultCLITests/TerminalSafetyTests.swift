import Foundation
import Testing
import VaultTestSupport

/// Text from outside never drives a terminal: a title, a prompt and an essay carrying window-title, clear-screen
/// and clipboard sequences are stored as written (`--json` shows them, JSON-escaped) and shown visibly by every
/// command that prints them, on the student's side and the teacher's.
@Suite(.ownThreads)
struct TerminalSafetyTests {
    static let title = "Quiz \u{1B}]0;pwned\u{07}\u{1B}[2J"
    static let prompt = "Write here \u{1B}]52;c;ZXZpbA==\u{07} please."
    static let essay = "My essay\u{1B}]0;owned\u{07}\u{1B}[2J and a second line\nstill mine\u{1B}]52;c;Y2xpcA==\u{07}"

    static func noRawEscape(_ text: String, _ label: String) {
        #expect(!text.contains("\u{1B}") && !text.contains("\u{07}"), "\(label) printed a raw control: \(text.debugDescription)")
    }

    @Test("a hostile title, prompt and essay: shown as ^[ by catalog, list, show, responses and grade; stored and --json as written")
    func hostileText() throws {
        let (vault, server) = try CLIFixtures.downloaded([])
        let document: [String: Any] = [
            "id": "hostile", "title": Self.title,
            "questions": [["id": "q1", "type": "essay", "prompt": Self.prompt, "points": 2]],
        ]
        let file = vault.root.file("hostile.json")
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: file))
        let published = try server.admin(["publish", file])
        #expect(published.status == 0, "\(published.stderr)")
        Self.noRawEscape(published.stdout + published.stderr, "publish")

        let catalog = try vault.unlocked(["catalog"])
        #expect(catalog.stdout.contains("Quiz ^[]0;pwned^G^[[2J"), "\(catalog.stdout)")
        Self.noRawEscape(catalog.stdout, "catalog")
        #expect(try vault.unlocked(["download", "hostile"]).status == 0)
        let list = try vault.unlocked(["list"])
        #expect(list.stdout.contains("^[]0;pwned"), "\(list.stdout)")
        Self.noRawEscape(list.stdout, "list")
        let show = try vault.unlocked(["show", "hostile"])
        #expect(show.stdout.contains("^[]52;c;ZXZpbA==^G"), "\(show.stdout)")
        Self.noRawEscape(show.stdout, "show")

        let saved = try vault.answer("hostile", "q1", Self.essay)
        #expect(saved.status == 0, "\(saved.stderr)")
        let submit = try vault.unlocked(["submit", "hostile"])
        #expect(submit.status == 0)
        Self.noRawEscape(submit.stdout, "submit")
        #expect(try vault.unlocked(["sync"]).status == 0)

        // The teacher's side: shown visibly, the essay's own line break kept.
        let responses = try server.admin(["responses", "hostile"])
        #expect(responses.status == 0)
        #expect(responses.stdout.contains("My essay^[]0;owned^G^[[2J and a second line"), "\(responses.stdout)")
        Self.noRawEscape(responses.stdout, "responses")
        let grade = try server.admin(["grade", "hostile", "--question", "q1"], stdin: "1\n")
        #expect(grade.status == 0, "\(grade.stderr)")
        #expect(grade.stdout.contains("still mine^[]52;c;Y2xpcA==^G") && grade.stdout.contains("Write here ^[]52"), "\(grade.stdout)")
        Self.noRawEscape(grade.stdout, "grade")

        // Stored as typed: the JSON carries the very characters, escaped by JSON.
        let stored = try server.admin(["responses", "hostile", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(stored.stdout.utf8)) as? [String: Any])
        let answers = try #require(json["responses"] as? [[String: Any]])
        #expect(answers.contains { ($0["answer"] as? String) == Self.essay }, "\(answers)")
    }
}

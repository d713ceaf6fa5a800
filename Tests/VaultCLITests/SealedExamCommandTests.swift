import Foundation
import Testing
import VaultAPI
import VaultTestSupport

/// A sealed exam through the real binaries: published, downloaded ahead, unreadable until the start code.
@Suite(.ownThreads)
struct SealedExamCommandTests {
    static let canary = "CANARY-SEALED-CLI"

    @Test(
        "download ahead; show and answer refuse with a sentence; wrong codes x3 change nothing; the right code opens it; the canary is on screen only then"
    )
    func sealedFromPublishToUnseal() throws {
        let server = try ServerProcess(verbose: true)
        let data = ["--data", server.dataDirectory]
        let document = server.directory.file("sealed.json")
        try Data(
            """
            {"id":"final-exam","title":"Final exam","sealed":true,"opens_at":"2030-06-01T09:00:00Z","time_limit_seconds":1800,
             "questions":[{"id":"q1","type":"single_choice","prompt":"\(Self.canary) pick one","choices":[{"id":"a","text":"\(Self.canary) A"},{"id":"b","text":"B"}],"answer_key":["a"]},
                          {"id":"q2","type":"essay","prompt":"\(Self.canary) explain"}]}
            """.utf8
        ).write(to: URL(fileURLWithPath: document))
        #expect(try Binaries.run("vault-server", ["publish", document] + data).status == 0)

        let vault = CLIVault()
        try vault.initialize()
        try vault.signIn(to: server)
        let catalog = try vault.unlocked(["catalog"])
        #expect(catalog.stdout.contains("sealed: opens") && !catalog.stdout.contains(Self.canary), "\(catalog.stdout)")
        let downloaded = try vault.unlocked(["download", "final-exam"])
        #expect(downloaded.status == 0, "\(downloaded.stderr)")
        let listed = try vault.unlocked(["list"])
        #expect(listed.stdout.contains("sealed: opens") && listed.stdout.contains("or with the start code"), "\(listed.stdout)")
        #expect(!listed.stdout.contains(Self.canary))

        for command in [["show", "final-exam"], ["answer", "final-exam", "q1"]] {
            let refused = try vault.unlocked(command, extraInput: "a\n")
            #expect(refused.status == 77, "\(command): \(refused.stderr)")
            #expect(refused.stderr.contains("sealed exam") && refused.stderr.contains("vault unseal final-exam"))
            #expect(!refused.stdout.contains(Self.canary) && !refused.stderr.contains(Self.canary))
        }
        let before = vault.snapshot()
        for wrong in ["AAAA-BBBB-CCCC", "nonsense", "K7Q2-M9X4-PT3R"] {
            let result = try vault.unlocked(["unseal", "final-exam", "--start-code-stdin"], extraInput: wrong + "\n")
            #expect(result.status == 77, "\(result.stderr)")
            #expect(result.stderr.contains("start code is not right"))
        }
        #expect(vault.snapshot() == before, "a wrong code changes nothing")
        // Online before opens_at: the server says when it opens.
        let early = try vault.unlocked(["unseal", "final-exam", "--online"])
        #expect(early.status != 0 && early.stderr.contains("2030-06-01"), "\(early.stderr)")

        let code = try Binaries.run("vault-server", ["start-code", "final-exam", "--seal-iterations", "1000"] + data)
        let startCode = try #require(code.stdout.split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)
        // `show` asks for the code itself: a wrong one changes nothing, the proctor's opens the exam and shows it.
        let beforeShow = vault.snapshot()
        let wrongShow = try vault.unlocked(["show", "final-exam", "--start", "--start-code-stdin"], extraInput: "AAAA-BBBB-CCCC\n")
        #expect(wrongShow.status == 77 && !wrongShow.stdout.contains(Self.canary))
        #expect(vault.snapshot() == beforeShow)
        let opened = try vault.unlocked(["unseal", "final-exam", "--start-code-stdin"], extraInput: startCode.lowercased() + "\n")
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout.contains("2 questions") && opened.stdout.contains("30 minutes, from when you answer yes"), "\(opened.stdout)")
        // The clock has not started at the unsealing: the list says so, and `show` asks (or takes --start).
        let listedOpen = try vault.unlocked(["list", "--json"])
        #expect(listedOpen.stdout.contains("\"attempt_state\":\"not_started\""), "\(listedOpen.stdout)")
        let asked = try vault.unlocked(["show", "final-exam"])
        #expect(asked.status == 0 && !asked.stdout.contains(Self.canary) && asked.stdout.contains("Nothing was started"), "\(asked.stdout)")
        let shown = try vault.unlocked(["show", "final-exam", "--start"])
        #expect(shown.status == 0 && shown.stdout.contains(Self.canary), "\(shown.stdout)\(shown.stderr)")
        #expect(!(try vault.unlocked(["list"]).stdout.contains("sealed")))
        let again = try vault.unlocked(["unseal", "final-exam", "--start-code-stdin"], extraInput: startCode + "\n")
        #expect(again.status == 0 && again.stdout.contains("not sealed (or already unsealed)"))
        #expect(try vault.answer("final-exam", "q1", "a").status == 0)
        // Commands that show and save it write nothing readable to their TMPDIR.
        let tmp = TemporaryDirectory("sealed-tmp")
        for command in [["show", "final-exam"], ["answer", "final-exam", "q2"]] {
            let result = try vault.run(
                command + ["--vault", vault.path, "--password-stdin"],
                stdin: "pw-1\nAn essay.\n",
                environment: ["TMPDIR": tmp.path]
            )
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        for file in TemporaryDirectoryFiles.all(tmp.path) {
            #expect(FileManager.default.contents(atPath: file).map { $0.range(of: Data(Self.canary.utf8)) == nil } ?? true, "\(file)")
        }
        // Extra time during the exam (issue 53): the next sync brings the student's copy again; an exam unsealed here
        // stays unsealed (never sealed again by a download), and its time follows.
        let extra = try Binaries.run("vault-server", ["accommodation", "final-exam", "--user", "demo", "--extra-minutes", "5"] + data)
        #expect(extra.status == 0, "\(extra.stderr)")
        let extraSynced = try vault.unlocked(["sync"])
        #expect(extraSynced.status == 0, "\(extraSynced.stderr)")
        let stillOpen = try vault.unlocked(["show", "final-exam"])
        #expect(stillOpen.status == 0 && stillOpen.stdout.contains(Self.canary), "\(stillOpen.stdout)\(stillOpen.stderr)")
        let timed = try vault.unlocked(["list", "--json"])
        #expect(!timed.stdout.contains("sealed\":true"), "\(timed.stdout)")
        // The canary is nowhere in the vault's files (everything at rest is encrypted).
        for (name, bytes) in vault.snapshot() { #expect(bytes.range(of: Data(Self.canary.utf8)) == nil, "\(name)") }
        #expect(try vault.unlocked(["verify"]).status == 0)
        // Handed in: the teacher sees when it was unsealed.
        #expect(try vault.answer("final-exam", "q2", "Because.").status == 0)
        #expect(try vault.unlocked(["submit", "final-exam"]).status == 0)
        let synced = try vault.unlocked(["sync"])
        #expect(synced.status == 0, "\(synced.stderr)")
        let view = try Binaries.run("vault-server", ["responses", "final-exam"] + data)
        #expect(view.stdout.contains("unsealed at 20"), "\(view.stdout)")
        // The server's log has the requests, never a question or the code.
        let log = server.stop()
        #expect(log.contains("GET /v1/assessments/final-exam 200"), "\(log)")
        #expect(!log.contains(Self.canary) && !log.contains(startCode))
    }
}

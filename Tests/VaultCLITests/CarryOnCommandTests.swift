import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultTestSupport

/// Carrying on at another machine, through the real binaries and a real server on each store: two vaults of one
/// student, one attempt, one receipt, nothing summed, the later answer by time, the replaced one kept.
@Suite(.ownThreads)
struct CarryOnCommandTests {
    /// SQLite always; PostgreSQL where it is installed (and always where the run requires it).
    static let stores: [String] = PostgresCluster.unavailableReason != nil && !PostgresCluster.required ? ["sqlite"] : ["sqlite", "postgres"]

    static func server(_ store: String) async throws -> ServerProcess {
        guard store == "postgres" else { return try ServerProcess() }
        let cluster = try await PostgresCluster.shared()
        return try ServerProcess(database: try await cluster.createDatabase())
    }

    /// A new vault signed in as `demo`, with `id` downloaded; the download's result.
    static func device(_ server: ServerProcess, downloading id: String) throws -> (CLIVault, Binaries.Result) {
        let vault = CLIVault()
        try vault.initialize()
        try vault.signIn(to: server)
        return (vault, try vault.unlocked(["download", id]))
    }

    @Test("q1-q3 on A, synced; B continues the same attempt, answers q4-q6 and hands in; A's q2 changed before arrives later", arguments: stores)
    func carryOn(store: String) async throws {
        let server = try await Self.server(store)
        let (a, first) = try Self.device(server, downloading: "algebra-1")
        #expect(first.status == 0 && !first.stdout.contains("another device"), "\(first.stdout)")
        for (question, value) in [("q1", "b"), ("q2", "a,c"), ("q3", "true")] { #expect(try a.answer("algebra-1", question, value).status == 0) }
        #expect(try a.unlocked(["sync"]).status == 0)
        // A changes q2 and never syncs it before its machine dies.
        #expect(try a.answer("algebra-1", "q2", "b").status == 0)

        let (b, download) = try Self.device(server, downloading: "algebra-1")
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stdout.contains("You started Algebra Quiz on another device: 3 answers brought here."), "\(download.stdout)")
        // A's answers are B's now, under the same attempt.
        let shown = try b.unlocked(["show", "algebra-1", "--json"])
        let items = try #require((try? JSONSerialization.jsonObject(with: Data(shown.stdout.utf8))) as? [String: Any], "\(shown.stdout)")
        let answered = (items["questions"] as? [[String: Any]] ?? items["items"] as? [[String: Any]] ?? []).filter { $0["answer"] != nil }
        #expect(answered.compactMap { $0["id"] as? String }.sorted() == ["q1", "q2", "q3"], "\(shown.stdout)")
        for (question, value) in [("q4", "3.14"), ("q5", "coefficient"), ("q6", "Because the slope is 2.")] {
            #expect(try b.answer("algebra-1", question, value).status == 0)
        }
        let submit = try b.unlocked(["submit", "algebra-1"])
        #expect(submit.status == 0, "\(submit.stdout) \(submit.stderr)")
        let sync = try b.unlocked(["sync", "--json"])
        #expect(sync.status == 0, "\(sync.stdout) \(sync.stderr)")

        // A comes back online.
        let back = try a.unlocked(["sync"])
        #expect(back.status == 0, "\(back.stdout) \(back.stderr)")
        // A is told, in a sentence each, what moved on elsewhere, and its copy of the attempt is closed.
        #expect(back.stdout.contains("Algebra Quiz: questions q4, q5, q6 were answered later on another device"), "\(back.stdout)")
        #expect(back.stdout.contains("Algebra Quiz was handed in on another device."), "\(back.stdout)")
        let after = try a.answer("algebra-1", "q5", "slope")
        #expect(after.status != 0 && after.stderr.contains("already submitted"), "\(after.stdout) \(after.stderr)")
        // B, at its next sync: told that q2 changed, and its receipt is the one over the final set (one receipt id).
        let receiptsBefore = try b.unlocked(["receipts", "--json"]).stdout
        let renewed = try b.unlocked(["sync"])
        #expect(renewed.status == 0, "\(renewed.stdout) \(renewed.stderr)")
        #expect(
            renewed.stdout.contains(
                "Algebra Quiz: question q2 was answered on another device before your hand-in; those answers count, and your receipt is renewed"
            ),
            "\(renewed.stdout)"
        )
        let receipts = try b.unlocked(["receipts", "--json"]).stdout
        let receiptIDs = { (text: String) in text.components(separatedBy: "rcpt-").dropFirst().map { $0.prefix(20) } }
        #expect(Set(receiptIDs(receipts)) == Set(receiptIDs(receiptsBefore)) && !receiptIDs(receipts).isEmpty, "\(receipts)")
        #expect(try b.unlocked(["verify"]).status == 0)
        let quiet = try b.unlocked(["sync"])
        #expect(!quiet.stdout.contains("another device"), "said once: \(quiet.stdout)")

        let received = try CLIFixtures.received(server)
        #expect(Set(received.responses.map(\.attemptId)).count == 1, "one attempt across both devices")
        #expect(received.submissions.count == 1, "one hand-in, one receipt")
        let current = received.responses.filter { !$0.superseded }
        #expect(current.count == 6, "nothing summed: one current answer per question")
        #expect(current.first { $0.questionId == "q2" }?.answer == .array([.string("b")]), "A's q2 is the later answer by time")
        let replaced = received.responses.filter(\.superseded)
        #expect(replaced.map(\.questionId) == ["q2"] && replaced.first?.answer == .array([.string("a"), .string("c")]), "kept, visible")
        #expect(received.submissions.first?.flags?.contains(.changedAfterHandIn) == true)
        #expect(received.submissions.first?.flags?.contains(.secondAttempt) != true)
        let roster = try #require(try server.admin(["roster", "algebra-1", "--json"]).json?["students"] as? [[String: Any]])
        let demo = try #require(roster.first { $0["user"] as? String == "demo" })
        #expect(demo["state"] as? String == "handed_in", "\(demo)")
        #expect(demo["devices"] as? Int == 2 && (demo["devices_last_seen"] as? [String])?.count == 2, "\(demo)")
        #expect(try server.admin(["roster", "algebra-1"]).stdout.contains(", on 2 devices"))
    }

    @Test("in Spanish, the other device's path says every sentence in Spanish: the answers brought over, and those answered later elsewhere")
    func carryOnInSpanish() async throws {
        let server = try await Self.server("sqlite")
        let (a, _) = try Self.device(server, downloading: "algebra-1")
        for (question, value) in [("q1", "b"), ("q3", "true")] { #expect(try a.answer("algebra-1", question, value).status == 0) }
        #expect(try a.unlocked(["sync"]).status == 0)
        let b = CLIVault()
        try b.initialize()
        try b.signIn(to: server)
        let download = try b.unlocked(["download", "algebra-1", "--lang", "es"])
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stdout.contains("Empezaste Algebra Quiz en otro dispositivo: se trajeron 2 respuestas aquí."), "\(download.stdout)")
        #expect(try b.answer("algebra-1", "q4", "2.5").status == 0)
        #expect(try b.unlocked(["sync"]).status == 0)
        let back = try a.unlocked(["sync", "--lang", "es"])
        #expect(back.stdout.contains("Algebra Quiz: la pregunta q4 se respondió más tarde en otro dispositivo"), "\(back.stdout)")
        for output in [download.stdout, back.stdout] { #expect(!output.contains("another device") && !output.contains("brought here"), "\(output)") }
    }

    @Test("a timed test continued on another device keeps the first device's clock", arguments: stores)
    func timedCarryOn(store: String) async throws {
        let server = try await Self.server(store)
        let (a, _) = try Self.device(server, downloading: "science-timed")
        // Answering starts the clock on A.
        #expect(try a.answer("science-timed", "q1", "b").status == 0)
        #expect(try a.unlocked(["sync"]).status == 0)

        let (b, download) = try Self.device(server, downloading: "science-timed")
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stdout.contains("You started Science Sprint (10 minutes) on another device at"), "\(download.stdout)")
        #expect(download.stdout.contains("9 minutes left"), "the time used on A counts: \(download.stdout)")
        let take = try b.unlocked(["take", "science-timed", "--non-interactive"], extraInput: ":q\n")
        #expect(take.status == 0, "\(take.stdout) \(take.stderr)")
        #expect(take.stdout.contains("You started this test on another device at"), "\(take.stdout)")
        #expect(take.stdout.contains("9 minutes left"), "\(take.stdout)")
        #expect(!take.stdout.contains("Start now?"), "the clock is not started again: \(take.stdout)")
    }

    /// Tests/FaultShim/wallclock.c, built here: a process's wall clock set off by WALL_OFFSET_SECONDS.
    static let wallClockShim: String? = {
        let output = NSTemporaryDirectory() + "/vault-wallclock-\(getpid()).so"
        let built = try? Binaries.system(
            "cc",
            ["-shared", "-fPIC", "-O1", "-o", output, Binaries.repositoryRoot + "/Tests/FaultShim/wallclock.c", "-ldl"]
        )
        return built?.status == 0 ? output : nil
    }()

    @Test(
        "a timed test continued on a device whose clock is 2 hours behind shows the first device's time left, not a fresh limit (issue 51)",
        arguments: stores
    )
    func timedCarryOnWithAClockBehind(store: String) async throws {
        let shim = try #require(Self.wallClockShim, "cc builds Tests/FaultShim/wallclock.c")
        let server = try await Self.server(store)
        let (a, _) = try Self.device(server, downloading: "science-timed")
        // A's clock is 2 minutes behind: by the server's clock, A's attempt started 2 minutes ago.
        let aBehind = ["LD_PRELOAD": shim, "WALL_OFFSET_SECONDS": "-120"]
        #expect(try a.answer("science-timed", "q1", "b", environment: aBehind).status == 0)
        #expect(try a.unlocked(["sync"], environment: aBehind).status == 0)

        // C's clock is two hours behind: counting from it would give all 10 minutes back.
        let c = CLIVault()
        try c.initialize()
        try c.signIn(to: server)
        let cBehind = ["LD_PRELOAD": shim, "WALL_OFFSET_SECONDS": "-7200"]
        let download = try c.unlocked(["download", "science-timed"], environment: cBehind)
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stdout.contains("8 minutes left") || download.stdout.contains("7 minutes left"), "\(download.stdout)")
    }

    @Test(
        "a vault closed across its deadline: the next command hands the attempt in and says so once; sync sends it; the server holds it handed in (issue 53)",
        arguments: stores
    )
    func timeRanOutWhileAway(store: String) async throws {
        let shim = try #require(Self.wallClockShim, "cc builds Tests/FaultShim/wallclock.c")
        let server = try await Self.server(store)
        let (vault, _) = try Self.device(server, downloading: "science-timed")
        #expect(try vault.answer("science-timed", "q1", "b").status == 0)
        // The student comes back 11 minutes later (the test's clock moves; the 10 minutes and their grace are over).
        let later = ["LD_PRELOAD": shim, "WALL_OFFSET_SECONDS": "660"]
        let status = try vault.unlocked(["status"], environment: later)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stderr.contains("Your time on Science Sprint"), "\(status.stderr)")
        #expect(status.stderr.contains("ran out at") && status.stderr.contains("your answers were handed in"), "\(status.stderr)")
        let again = try vault.unlocked(["status"], environment: later)
        #expect(!again.stderr.contains("ran out"), "said once: \(again.stderr)")
        let synced = try vault.unlocked(["sync", "--json"], environment: later)
        #expect(synced.status == 0, "\(synced.stderr)")
        let roster = try server.admin(["roster", "science-timed", "--json"])
        let students = try #require(
            (try JSONSerialization.jsonObject(with: Data(roster.stdout.utf8)) as? [String: Any])?["students"] as? [[String: Any]]
        )
        let demo = try #require(students.first { $0["user"] as? String == "demo" })
        #expect(demo["state"] as? String == "handed_in", "\(demo)")
        #expect(!((demo["flags"] as? [String]) ?? []).contains("over_time"), "handed in at its limit, not over it: \(demo)")
    }

    @Test("a sealed exam continued on another device needs the start code there too (the key is per device)")
    func sealedCarryOn() throws {
        let server = try ServerProcess()
        let data = ["--data", server.dataDirectory]
        let document = server.directory.file("sealed.json")
        try Data(
            """
            {"id":"final-exam","title":"Final exam","sealed":true,"opens_at":"2030-06-01T09:00:00Z",
             "questions":[{"id":"q1","type":"single_choice","prompt":"Pick one","choices":[{"id":"a","text":"A"},{"id":"b","text":"B"}],"answer_key":["a"]},
                          {"id":"q2","type":"essay","prompt":"Explain"}]}
            """.utf8
        ).write(to: URL(fileURLWithPath: document))
        #expect(try Binaries.run("vault-server", ["publish", document] + data).status == 0)
        let code = try Binaries.run("vault-server", ["start-code", "final-exam", "--seal-iterations", "1000"] + data)
        let startCode = try #require(code.stdout.split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)

        let (a, _) = try Self.device(server, downloading: "final-exam")
        #expect(try a.unlocked(["unseal", "final-exam", "--start-code-stdin"], extraInput: startCode + "\n").status == 0)
        #expect(try a.answer("final-exam", "q1", "a").status == 0)
        #expect(try a.unlocked(["sync"]).status == 0)

        let (b, sealed) = try Self.device(server, downloading: "final-exam")
        #expect(sealed.status == 0, "\(sealed.stderr)")
        #expect(sealed.stdout.contains("It is sealed on this one: enter the start code with `vault unseal final-exam`"), "\(sealed.stdout)")
        #expect(try b.unlocked(["unseal", "final-exam", "--start-code-stdin"], extraInput: startCode + "\n").status == 0)
        let again = try b.unlocked(["download", "final-exam"])
        #expect(again.stdout.contains("You started Final exam on another device: 1 answer brought here."), "\(again.stdout)")
        #expect(try b.answer("final-exam", "q2", "Because.").status == 0)
        #expect(try b.unlocked(["submit", "final-exam"]).status == 0)
        #expect(try b.unlocked(["sync"]).status == 0)
        let received = try CLIFixtures.received(server, "final-exam")
        #expect(received.submissions.count == 1 && Set(received.responses.map(\.attemptId)).count == 1)
        #expect(received.responses.filter { !$0.superseded }.count == 2)
    }
}

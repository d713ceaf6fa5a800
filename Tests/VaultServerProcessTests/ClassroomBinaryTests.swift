import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The second hop through the real binaries (issue 58): a district server on PostgreSQL, a classroom server on the
/// teacher's laptop (SQLite), six vaults, the district away while the class answers, and `classroom push` killed and
/// cut on its way up.
@Suite(.serialized)
struct ClassroomBinaryTests {
    static let canary = "Canary-Teacher-Pw-7781"
    static let answers: [(String, String)] = [
        ("q1", "b"), ("q2", "a,c"), ("q3", "true"), ("q4", "3.14"), ("q5", "coefficient"), ("q6", "Add 3 to both sides, then divide by 4."),
    ]

    /// The flaky proxy (scripts/flaky-proxy.py) in front of `port`, losing `dropRate` of its connections.
    static func proxy(to port: Int, dropRate: String, in directory: TemporaryDirectory) throws -> (Process, Int) {
        let portFile = directory.file("proxy-port")
        let proxy = try Binaries.start(
            "/usr/bin/python3",
            [Binaries.repositoryRoot + "/scripts/flaky-proxy.py", String(port), portFile, dropRate, "58"]
        )
        var proxyPort = 0
        for _ in 0..<100 where proxyPort == 0 {
            usleep(50_000)
            proxyPort = Int((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "") ?? 0
        }
        return (proxy, proxyPort)
    }

    static func received(_ server: ServerProcess, _ id: String = "algebra-1") throws -> ReceivedResponses {
        try JSONDecoder().decode(ReceivedResponses.self, from: Data(try server.admin(["responses", id, "--json"]).stdout.utf8))
    }

    static func status(_ classroom: ServerProcess) throws -> [String: Any] {
        let result = try classroom.admin(["classroom", "status", "--json"])
        return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    /// Runs `classroom push` until nothing waits (a push through a lossy link may give up; the next one goes on).
    static func pushUntilDone(_ classroom: ServerProcess) throws {
        for _ in 0..<6 {
            _ = try classroom.admin(["classroom", "push"])
            let status = try status(classroom)
            if status["waiting_answers"] as? Int == 0, status["waiting_hand_ins"] as? Int == 0 { return }
        }
        Issue.record("classroom push never finished: \(try status(classroom))")
    }

    /// A district (SQLite, the demo's class) and a classroom linked to it and pulled, serving; a vault that signed in
    /// to the district with the demo's password (its key registered there), then to the classroom with that key, and
    /// downloaded algebra-1 there.
    static func linkedClass(
        pushEvery: Int? = nil,
        atTheDistrict: (CLIVault) throws -> Void = { _ in }
    ) throws -> (district: ServerProcess, classroom: ServerProcess, vault: CLIVault) {
        let district = try ServerProcess()
        let vault = CLIVault()
        #expect(try vault.initialize().status == 0)
        #expect(
            try vault.unlocked(["login", "--server", district.url, "--user", "demo", "--server-password-stdin"], extraInput: "demo-password\n").status
                == 0
        )
        try atTheDistrict(vault)
        let classroom = try ServerProcess(arguments: pushEvery.map { ["--push-every", String($0)] } ?? [], demo: false)
        classroom.stop()
        let linked = try classroom.admin(
            ["classroom", "init", "--upstream", district.url, "--teacher", "teacher", "--password-iterations", "1000"],
            stdin: "teacher-password\n"
        )
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(try classroom.admin(["classroom", "pull"]).status == 0)
        try classroom.start()
        #expect(
            try vault.unlocked(["login", "--server", classroom.url, "--user", "demo", "--with-vault-key", "--accept-new-server-key"]).status == 0
        )
        #expect(try vault.unlocked(["download", "algebra-1"]).status == 0)
        return (district, classroom, vault)
    }

    @Test(
        "nothing handed in through a classroom is lost (issue 69): a pooled quiz first drawn at the classroom and a hand-in file imported there both reach the district, every answer once, from a vault the district never saw"
    )
    func nothingLostThroughClassroom() throws {
        let (district, classroom, vault) = try Self.linkedClass()
        defer {
            classroom.stop()
            district.stop()
        }
        // A pooled quiz of the teacher's: the classroom makes the student's draw, and the district has none.
        var pooled = Fixtures.quiz(id: "pool-quiz")
        pooled.sections = [Section(id: "pool", title: "Pool", select: 3, shuffle: true, questions: ["q1", "q2", "q3", "q4", "q5", "q6"])]
        let file = district.directory.file("pool-quiz.json")
        try CanonicalJSON.encode(pooled).write(to: URL(fileURLWithPath: file))
        #expect(try district.admin(["publish", file, "--owner", "teacher"]).status == 0)
        #expect(try classroom.admin(["classroom", "pull"]).status == 0)
        #expect(try vault.unlocked(["download", "pool-quiz"]).status == 0)
        let shown = try #require(try vault.unlocked(["show", "pool-quiz", "--json"]).json?["questions"] as? [[String: Any]])
        let drawn = shown.compactMap { $0["id"] as? String }
        #expect(drawn.count == 3, "\(drawn)")
        let values = Dictionary(uniqueKeysWithValues: Self.answers)
        for question in drawn { #expect(try vault.answer("pool-quiz", question, values[question] ?? "a").status == 0) }
        #expect(try vault.unlocked(["submit", "pool-quiz"]).status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)
        let pushed = try classroom.admin(["classroom", "push"])
        #expect(pushed.status == 0 && !pushed.stdout.contains("refused 1"), "\(pushed.stdout) \(pushed.stderr)")
        let pool = try Self.received(district, "pool-quiz")
        #expect(Set(pool.responses.map(\.questionId)) == Set(drawn) && pool.submissions.count == 1, "\(pool.responses.map(\.questionId)) \(drawn)")
        // One story (issue 69): the district's roster counts the download made on the classroom.
        let roster = try district.admin(["roster", "pool-quiz", "--json"]).json
        let row = (roster?["students"] as? [[String: Any]])?.first { $0["user"] as? String == "demo" }
        #expect(row?["downloaded_version"] as? Int == 1 && row?["downloaded_at"] is String, "\(String(describing: roster))")
        // ... naming the classroom it came through, as `classroom list` does, for the download and the hand-in.
        let listed = try district.admin(["classroom", "list", "--json"]).json?["classrooms"] as? [[String: Any]]
        let classroomID = try #require(listed?.first?["id"] as? String)
        #expect(
            row?["downloaded_through"] as? String == classroomID && row?["handed_in_through"] as? String == classroomID,
            "\(String(describing: row))"
        )
        let text = try district.admin(["roster", "pool-quiz"]).stdout
        #expect(text.contains("through classroom \(classroomID.prefix(9))"), "\(text)")
        // The district's receipt travels (issue 69): exported whole, it verifies at the district without the classroom.
        let synced = try vault.unlocked(["sync", "--json"])
        #expect(synced.stdout.contains(#""confirmed_by_district":1"#), "\(synced.stdout)")
        let exported = vault.root.file("district-receipt.json")
        let export = try vault.unlocked(["receipts", "export", "pool-quiz", "--out", exported])
        #expect(export.status == 0 && export.stdout.contains("district's receipt"), "\(export.stdout) \(export.stderr)")
        let atDistrict = try district.admin(["receipts", "verify", exported])
        #expect(atDistrict.status == 0, "\(atDistrict.stdout) \(atDistrict.stderr)")
        #expect(try vault.unlocked(["receipts", "verify", exported]).status == 0)
        let classroomOwn = vault.root.file("classroom-receipt.json")
        #expect(try vault.unlocked(["receipts", "export", "pool-quiz", "--out", classroomOwn, "--classroom"]).status == 0)
        #expect(try district.admin(["receipts", "verify", classroomOwn]).status == 65)

        // A package made on the classroom for a vault the district never saw: its hand-in file, imported there, goes up.
        let work = TemporaryDirectory("classroom-import")
        let sheet = work.file("codes.txt")
        let made = try classroom.admin([
            "package", "algebra-1", "--user", "demo", "--out", work.path, "--json", "--codes", sheet, "--seal-iterations", "1000",
        ])
        let package = try #require((made.json?["packages"] as? [[String: Any]])?.first?["file"] as? String, "\(made.stderr)")
        let slip = PackageBinaryTests.Made(file: package, code: try PackageBinaryTests.code(in: sheet, for: "demo"))
        let fingerprint = try #require(try Binaries.system("curl", ["-s", classroom.url + APIPath.serverKey]).json?["fingerprint"] as? String)
        let fresh = CLIVault()
        try fresh.initialize()
        #expect(try PackageBinaryTests.importing(fresh, slip, ["--server-key", fingerprint]).0.status == 0)
        for (question, value) in Self.answers {
            #expect(try PackageBinaryTests.offline(fresh, ["answer", "algebra-1", question], stdin: "pw-1\n\(value)\n").0.status == 0)
        }
        #expect(try PackageBinaryTests.offline(fresh, ["submit", "algebra-1"]).0.status == 0)
        let handIn = work.file("demo-hand-in.vault")
        #expect(try PackageBinaryTests.offline(fresh, ["hand-in", "algebra-1", "--out", handIn]).0.status == 0)
        let imported = try classroom.admin(["import", handIn])
        #expect(imported.status == 0, "\(imported.stderr)")
        let second = try classroom.admin(["classroom", "push"])
        #expect(second.status == 0, "\(second.stdout) \(second.stderr)")
        let status = try Self.status(classroom)
        #expect((status["refused"] as? [Any])?.isEmpty == true, "\(status)")
        let held = try Self.received(district)
        #expect(held.submissions.count == 1 && held.responses.count == Self.answers.count, "\(held.responses.count) \(held.submissions.count)")
    }

    @Test(
        "a new laptop through a classroom (issue 68): a student whose key the district knows gets a class code for a second vault; its work reaches the district, which then lists both keys, the new one vouched by the classroom, and the first still signs in"
    )
    func newLaptopByClassCode() throws {
        let (district, classroom, first) = try Self.linkedClass()
        defer {
            classroom.stop()
            district.stop()
        }
        let code = try classroom.admin(["classroom", "code", "--user", "demo"])
        let typed = try #require(code.stdout.split(separator: "\n").first?.split(separator: " ").last.map(String.init), "\(code.stdout)")
        let laptop = CLIVault()
        #expect(try laptop.initialize().status == 0)
        let login = try laptop.unlocked(
            ["login", "--server", classroom.url, "--user", "demo", "--class-code", "--server-password-stdin", "--accept-new-server-key"],
            extraInput: typed + "\n"
        )
        #expect(login.status == 0, "\(login.stdout) \(login.stderr)")
        #expect(try laptop.unlocked(["download", "algebra-1"]).status == 0)
        for (question, value) in Self.answers { #expect(try laptop.answer("algebra-1", question, value).status == 0) }
        #expect(try laptop.unlocked(["submit", "algebra-1"]).status == 0)
        #expect(try laptop.unlocked(["sync"]).status == 0)
        let pushed = try classroom.admin(["classroom", "push"])
        #expect(pushed.status == 0, "\(pushed.stdout) \(pushed.stderr)")
        let status = try Self.status(classroom)
        #expect((status["refused"] as? [Any])?.isEmpty == true, "nothing refused upstream: \(status)")
        let held = try Self.received(district)
        #expect(held.submissions.count == 1 && held.responses.count == Self.answers.count, "\(held.responses.count) \(held.submissions.count)")
        // Added beside the first key, never in its place.
        let keys = try district.admin(["user", "keys", "demo", "--json"]).json?["keys"] as? [[String: Any]] ?? []
        #expect(keys.count == 2 && keys.allSatisfy { $0["revoked_at"] == nil }, "\(keys)")
        #expect(keys.contains { $0["origin"] as? String == "classroom" } && keys.contains { $0["origin"] as? String == "sign_in" }, "\(keys)")
        let again = try first.unlocked(["login", "--server", district.url, "--user", "demo", "--with-vault-key", "--accept-new-server-key"])
        #expect(again.status == 0, "the first laptop still signs in: \(again.stderr)")
        // The student's next sync through the classroom says the district holds it.
        let synced = try laptop.unlocked(["sync", "--json"])
        #expect(synced.stdout.contains(#""confirmed_by_district":1"#), "\(synced.stdout)")
    }

    @Test(
        "a class with pictures (issue 69): an assessment of six 1 MB pictures (8 MB) pulls one document at a time, students download it from the classroom, its answers go up; the next pull fetches no document again"
    )
    func bigAssessmentPulls() throws {
        let (district, classroom, vault) = try Self.linkedClass()
        defer {
            classroom.stop()
            district.stop()
        }
        var pictures = Fixtures.quiz(id: "pictures")
        for index in pictures.questions.indices {
            var generator = SystemRandomNumberGenerator()
            let bytes = Data((0..<125_000).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64, Array.init) })
            pictures.questions[index].media = [
                Media(name: "map-\(index).png", mimeType: "image/png", data: bytes.base64EncodedString(), alt: "a map")
            ]
        }
        let file = district.directory.file("pictures.json")
        try CanonicalJSON.encode(pictures).write(to: URL(fileURLWithPath: file))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)).count > 8_000_000)
        let published = try district.admin(["publish", file, "--owner", "teacher"])
        #expect(published.status == 0, "\(published.stderr)")
        let pulled = try classroom.admin(["classroom", "pull"])
        #expect(pulled.status == 0 && pulled.stdout.contains("1 of the assessments were new or changed"), "\(pulled.stdout) \(pulled.stderr)")
        // The classroom once took more than the vault's 10 s to the first byte (seven generic byte searches of the
        // 8 MB document); one try is what a student makes.
        let started = ContinuousClock.now
        let download = try vault.unlocked(["download", "pictures"])
        print("an 8 MB download from the classroom took \(ContinuousClock.now - started)")
        #expect(download.status == 0, "\(download.stdout) \(download.stderr)")
        #expect(try vault.answer("pictures", "q1", "b").status == 0)
        #expect(try vault.unlocked(["submit", "pictures"]).status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)
        let pushed = try classroom.admin(["classroom", "push"])
        #expect(pushed.status == 0, "\(pushed.stdout) \(pushed.stderr)")
        let held = try Self.received(district, "pictures")
        #expect(held.submissions.count == 1 && held.responses.count == 1, "\(held.responses.count) \(held.submissions.count)")
        let again = try classroom.admin(["classroom", "pull"])
        #expect(again.status == 0 && again.stdout.contains("0 of the assessments were new or changed"), "\(again.stdout)")
    }

    @Test(
        "a receipt the district signed before the vault joined a classroom still verifies in the vault after (issue 69)"
    )
    func receiptFromBeforeTheClassroom() throws {
        var earlier = ""
        let (district, classroom, vault) = try Self.linkedClass { (vault: CLIVault) throws in
            #expect(try vault.unlocked(["download", "algebra-1"]).status == 0)
            for (question, value) in Self.answers { #expect(try vault.answer("algebra-1", question, value).status == 0) }
            #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0)
            #expect(try vault.unlocked(["sync"]).status == 0)
            earlier = vault.root.file("earlier.json")
            #expect(try vault.unlocked(["receipts", "export", "algebra-1", "--out", earlier]).status == 0)
        }
        defer {
            classroom.stop()
            district.stop()
        }
        let verified = try vault.unlocked(["receipts", "verify", earlier])
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
        #expect(try district.admin(["receipts", "verify", earlier]).status == 0)
    }

    @Test(
        "a stolen classroom (issue 69): the district lists it with its teacher; once revoked, its pull is refused with a sentence (77) and its key signs in as the teacher nowhere"
    )
    func revokedClassroom() throws {
        let (district, classroom, _) = try Self.linkedClass()
        let listed = try district.admin(["classroom", "list", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let classrooms = try #require(
            (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["classrooms"] as? [[String: Any]]
        )
        #expect(classrooms.count == 1 && classrooms.first?["teacher"] as? String == "teacher" && classrooms.first?["revoked_at"] == nil)
        let id = try #require(classrooms.first?["id"] as? String)
        let table = try district.admin(["classroom", "list"])
        #expect(table.stdout.contains(id) && table.stdout.contains("live"), "\(table.stdout)")
        #expect(try classroom.admin(["classroom", "pull"]).status == 0)
        // The classroom's own key, the one students check, in its status.
        let own = try #require(try Binaries.system("curl", ["-s", classroom.url + APIPath.serverKey]).json?["fingerprint"] as? String)
        #expect(try Self.status(classroom)["fingerprint"] as? String == own)
        #expect(
            try classroom.admin(["classroom", "status"]).stdout.contains(
                "Students check this classroom's key when their vault first meets it: \(own)"
            )
        )
        let revoked = try district.admin(["classroom", "revoke", id])
        #expect(revoked.status == 0 && revoked.stdout.contains("pulls and pushes nothing"), "\(revoked.stdout) \(revoked.stderr)")
        let pull = try classroom.admin(["classroom", "pull"])
        #expect(pull.status == 77 && pull.stderr.contains("revoked"), "\(pull.status) \(pull.stderr)")
        #expect(try district.admin(["classroom", "list"]).stdout.contains("revoked"))
        #expect(try district.admin(["classroom", "revoke", "nope"]).status != 0)
    }

    @Test(
        "no password to a classroom (issue 68): vault login with a password learns the server is a classroom first, sends no password (every write, send and sendto traced), and says to use the class code or the vault's key"
    )
    func noPasswordToTheClassroom() throws {
        let (district, classroom, _) = try Self.linkedClass()
        defer { withExtendedLifetime(district) {} }
        let fresh = CLIVault()
        #expect(try fresh.initialize().status == 0)
        let canary = "canary-pw-7f3a9c"
        let (result, trace) = try fresh.traced(
            ["login", "--server", classroom.url, "--user", "demo", "--server-password-stdin"],
            calls: "write,writev,sendto,sendmsg",
            input: canary + "\n"
        )
        #expect(result.status == 77, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("This is a classroom server: your password is never sent to it") && result.stderr.contains("--class-code"))
        let hex = Data(canary.utf8).map { String(format: "\\x%02x", $0) }.joined()
        #expect(!trace.isEmpty && !trace.contains(hex) && !trace.contains(canary), "the password left the vault")
        // The same vault's key or a class code still sign in (linkedClass signed in by key).
    }

    @Test(
        "district (PostgreSQL) and classroom (SQLite): the class pulled, six vaults (four by their keys, two by class codes) answer and hand in with the district away; push killed twice and through a link losing a third: every answer once, one hand-in per student, receipts back to each vault verified against the district's key; no password or hash on the classroom's disk",
        .enabled(if: PostgresCluster.runsHere, "PostgreSQL is not installed"),
        .timeLimit(.minutes(8))
    )
    func wholeClass() async throws {
        let database = try await PostgresCluster.shared().createDatabase(prefix: "district")
        let district = try ServerProcess(database: database)
        defer { district.stop() }
        let students = (1...6).map { "s\($0)" }
        for name in students { #expect(try district.admin(["user", "add", name, "--group", "7b"], stdin: "\(name)-pw\n").status == 0) }
        #expect(try district.admin(["user", "add", "kay", "--role", "teacher"], stdin: Self.canary + "\n").status == 0)
        #expect(try district.admin(["share", "algebra-1", "--teacher", "kay"]).status == 0)

        // Four students signed in to the district once (their vault keys registered there); two never had a network.
        let vaults = Dictionary(uniqueKeysWithValues: students.map { ($0, CLIVault()) })
        for name in students {
            let vault = try #require(vaults[name])
            #expect(try vault.initialize().status == 0)
        }
        for name in students.prefix(4) {
            let login = try vaults[name]!.unlocked(
                ["login", "--server", district.url, "--user", name, "--server-password-stdin"],
                extraInput: "\(name)-pw\n"
            )
            #expect(login.status == 0, "\(login.stderr)")
        }

        // The classroom: linked through a link that loses a third of its requests, pulled, then served.
        let classroom = try ServerProcess(demo: false)
        defer { classroom.stop() }
        classroom.stop()
        let (proxy, proxyPort) = try Self.proxy(to: district.port, dropRate: "0.33", in: classroom.directory)
        defer { kill(proxy.processIdentifier, SIGKILL) }
        let linked = try classroom.admin(
            ["classroom", "init", "--upstream", "http://127.0.0.1:\(proxyPort)", "--teacher", "kay", "--password-iterations", "1000"],
            stdin: Self.canary + "\n"
        )
        #expect(linked.status == 0, "\(linked.stderr)")
        var pulled = try classroom.admin(["classroom", "pull", "--group", "7b"])
        for _ in 0..<3 where pulled.status != 0 { pulled = try classroom.admin(["classroom", "pull", "--group", "7b"]) }
        #expect(pulled.status == 0 && pulled.stdout.contains("6 students (4 with a vault key)"), "\(pulled.stdout) \(pulled.stderr)")
        try classroom.start()

        // The district goes away; the class works on the classroom alone.
        district.stop()
        for name in students.prefix(4) {
            let login = try vaults[name]!.unlocked(
                ["login", "--server", classroom.url, "--user", name, "--with-vault-key", "--accept-new-server-key"]
            )
            #expect(login.status == 0, "\(name): \(login.stderr)")
        }
        for name in students.suffix(2) {
            let code = try classroom.admin(["classroom", "code", "--user", name])
            #expect(code.stdout.contains("It works once, until "), "\(code.stdout)")
            let typed = try #require(code.stdout.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
            let login = try vaults[name]!.unlocked(
                ["login", "--server", classroom.url, "--user", name, "--class-code", "--server-password-stdin"],
                extraInput: typed.lowercased() + "\n"
            )
            #expect(login.status == 0, "\(name): \(login.stderr)")
            // A code works once: another vault typing it is refused, in a sentence.
            let other = CLIVault()
            #expect(try other.initialize().status == 0)
            let reused = try other.unlocked(
                ["login", "--server", classroom.url, "--user", name, "--class-code", "--server-password-stdin"],
                extraInput: typed + "\n"
            )
            #expect(reused.status != 0 && reused.stderr.contains("class code does not sign in"), "\(reused.stderr)")
        }
        for name in students {
            let vault = vaults[name]!
            #expect(try vault.unlocked(["download", "algebra-1"]).status == 0)
            // s4 answers half here, the rest later straight with the district (the same attempt through both hops).
            for (question, value) in name == "s4" ? Array(Self.answers.prefix(3)) : Self.answers {
                #expect(try vault.answer("algebra-1", question, value).status == 0)
            }
            if name != "s4" { #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0) }
            let sync = try vault.unlocked(["sync"])
            #expect(sync.status == 0, "\(name): \(sync.stdout) \(sync.stderr)")
        }
        var status = try Self.status(classroom)
        #expect(status["waiting_answers"] as? Int == 33 && status["waiting_hand_ins"] as? Int == 5, "\(status)")

        // The district is back. s4 finishes its attempt straight with it.
        try district.start()
        let s4 = vaults["s4"]!
        #expect(
            try s4.unlocked(
                ["login", "--server", district.url, "--user", "s4", "--server-password-stdin", "--accept-new-server-key"],
                extraInput: "s4-pw\n"
            )
            .status == 0
        )
        for (question, value) in Self.answers.suffix(3) { #expect(try s4.answer("algebra-1", question, value).status == 0) }
        #expect(try s4.unlocked(["submit", "algebra-1"]).status == 0)
        let direct = try s4.unlocked(["sync"])
        #expect(direct.status == 0, "\(direct.stdout) \(direct.stderr)")

        // Push killed twice mid-way (one item a request, so it is caught in the middle), then run to the end through
        // the lossy link.
        // The classroom's outbox read as the push settles it (the store is SQLite: reads see each commit).
        let outbox = try classroom.openStore()
        func settled() throws -> Int { try outbox.row("SELECT COUNT(*) FROM classroom_outbox WHERE state <> 'waiting'")?.int(0) ?? 0 }
        var killedAt: [Int] = []
        for _ in 0..<2 {
            let before = try settled()
            let push = try Binaries.start(
                "vault-server",
                ["classroom", "push", "--chunk", "1", "--data", classroom.dataDirectory],
                environment: classroom.environment
            )
            // Killed once the district has taken a few items of this push, well before all of them.
            for _ in 0..<6_000 where try settled() < before + 4 { usleep(2_000) }
            kill(push.processIdentifier, SIGKILL)
            push.waitUntilExit()
            killedAt.append(try settled())
        }
        #expect(killedAt[0] > 0 && killedAt[1] > killedAt[0] && killedAt[1] < 38, "\(killedAt)")
        try Self.pushUntilDone(classroom)
        // The link really lost requests on the way (the proxy's own record).
        let drops = (try? String(contentsOfFile: classroom.directory.file("proxy-port") + ".drops", encoding: .utf8)) ?? ""
        #expect(!drops.isEmpty, "\(drops)")
        status = try Self.status(classroom)
        #expect((status["refused"] as? [Any])?.isEmpty == true, "\(status)")

        let held = try Self.received(district)
        #expect(held.responses.count == 36, "\(held.responses.count)")
        #expect(Set(held.responses.map(\.id)).count == held.responses.count)
        #expect(Set(held.responses.compactMap(\.user)) == Set(students))
        #expect(held.submissions.count == 6 && Set(held.submissions.compactMap(\.user)) == Set(students))
        for name in students {
            #expect(Set(held.responses.filter { $0.user == name }.map(\.questionId)) == Set(Self.answers.map(\.0)), "\(name)")
        }

        // One more sync with the classroom: each classroom hand-in's receipt from the district arrives, verified.
        let districtKey = try JSONDecoder().decode(ServerKeyResponse.self, from: Data(try district.admin(["key", "show", "--json"]).stdout.utf8))
        for name in students where name != "s4" {
            let vault = vaults[name]!
            let sync = try vault.unlocked(["sync", "--json"])
            #expect(sync.status == 0 && sync.stdout.contains(#""confirmed_by_district":1"#), "\(name): \(sync.stdout) \(sync.stderr)")
            let receipts = try vault.unlocked(["receipts", "--json"]).stdout
            #expect(receipts.contains(districtKey.fingerprint), "\(name): \(receipts)")
            let shown = try vault.unlocked(["receipts"]).stdout
            #expect(shown.contains("confirmed by the district (\(districtKey.fingerprint))"), "\(shown)")
        }

        // Nothing of a password on the classroom's disk: not the teacher's (typed at init), not a hash of any. And
        // nothing readable at all once it is stopped (issue 69): not the questions or their key, not an answer, not
        // its private key; its store is not a database without its key.
        classroom.stop()
        let storeText = String(
            decoding: try #require(try classroom.openStore().rows("SELECT source FROM assessment_versions").first).data(0),
            as: UTF8.self
        )
        #expect(storeText.contains("answer_key") && storeText.contains("linear equations"), "the canaries below are in the store")
        #expect(try !classroom.openStore().rows("SELECT id FROM responses WHERE answer LIKE '%coefficient%'").isEmpty)
        let privateKey = try #require(try classroom.openStore().rows("SELECT material FROM server_keys").first).data(0)
        #expect(privateKey.count >= 32)
        for file in try FileManager.default.subpathsOfDirectory(atPath: classroom.dataDirectory) {
            let bytes = FileManager.default.contents(atPath: classroom.dataDirectory + "/" + file) ?? Data()
            for canary in [Self.canary, "coefficient", "Add 3 to both sides", "answer_key", "linear equations"].map({ Data($0.utf8) }) + [privateKey]
            {
                #expect(bytes.range(of: canary) == nil, "\(file) holds a canary (\(canary.count) bytes)")
            }
        }
        let plain = try? Database(path: classroom.dataDirectory + "/server.db", encryption: .plaintext, configuration: DatabaseConfiguration())
        #expect(plain == nil, "the classroom's store opens without its key")
        let store = try classroom.openStore()
        #expect(try store.rows("SELECT name FROM users WHERE password_hash <> '' OR salt <> ''").isEmpty)
    }

    @Test(
        "a classroom that changes one answer before pushing has that answer refused by the district and named in classroom status; every other answer is stored, and the hand-in waits for it"
    )
    func changedAnswerNamed() throws {
        let (district, classroom, vault) = try Self.linkedClass()
        defer {
            classroom.stop()
            district.stop()
        }
        for (question, value) in Self.answers { #expect(try vault.answer("algebra-1", question, value).status == 0) }
        #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)

        // The classroom's own store, changed behind the students' backs: one answer made another.
        let store = try classroom.openStore()
        try store.execute("UPDATE classroom_outbox SET body = replace(body, '\"coefficient\"', '\"constant\"') WHERE kind = 'answer'", [])
        let changed = try #require(try store.row("SELECT item_id FROM classroom_outbox WHERE body LIKE '%constant%'")?.string(0))
        let push = try classroom.admin(["classroom", "push"])
        #expect(push.status == 0 && push.stdout.contains("refused 1"), "\(push.stdout) \(push.stderr)")
        let status = try Self.status(classroom)
        let refused = try #require(status["refused"] as? [[String: Any]])
        #expect(refused.count == 1 && refused.first?["id"] as? String == changed, "\(status)")
        #expect((refused.first?["message"] as? String)?.contains("changed after the student sent it") == true)
        #expect(status["stored_answers"] as? Int == 5 && status["waiting_hand_ins"] as? Int == 1, "\(status)")
        let text = try classroom.admin(["classroom", "status"]).stdout
        #expect(text.contains("Refused by the district (1)") && text.contains(changed), "\(text)")
        let held = try Self.received(district)
        #expect(held.responses.count == 5 && !held.responses.contains { $0.id == changed } && held.submissions.isEmpty)
        // Refused is never silent (issue 68): the student's next sync with the classroom says so (3), and so do the
        // receipts; later syncs never say "Everything is uploaded" again.
        let told = try vault.unlocked(["sync"])
        #expect(told.status == 3, "\(told.status) \(told.stdout) \(told.stderr)")
        #expect(
            told.stdout.contains("The district refused your work on algebra-1: Not signed by a vault of demo's")
                && told.stdout.contains("new class code") && !told.stdout.contains("Everything is uploaded"),
            "\(told.stdout)"
        )
        let receipts = try vault.unlocked(["receipts"]).stdout
        #expect(receipts.contains("refused by the district: Not signed by a vault of demo's"), "\(receipts)")
        let json = try vault.unlocked(["receipts", "--json"]).stdout
        #expect(json.contains(#""refused_by_district""#) && json.contains(changed), "\(json)")
        let again = try vault.unlocked(["sync"])
        #expect(again.status == 0 && again.stdout.contains("refused 1 attempt of yours earlier") && !again.stdout.contains("Everything is uploaded"))
    }

    @Test(
        "a classroom server pushes and pulls by itself while the district can be reached: answers synced to it reach the district without `classroom push`, those sent while the district is away follow once it is back, and a release at the district reaches the classroom"
    )
    func pushesByItself() throws {
        let (district, classroom, vault) = try Self.linkedClass(pushEvery: 1)
        defer {
            classroom.stop()
            district.stop()
        }
        func districtAnswers(_ count: Int) throws -> Bool {
            for _ in 0..<40 {
                if try Self.received(district).responses.count == count { return true }
                usleep(250_000)
            }
            return false
        }
        for (question, value) in Self.answers.prefix(2) { #expect(try vault.answer("algebra-1", question, value).status == 0) }
        #expect(try vault.unlocked(["sync"]).status == 0)
        #expect(try districtAnswers(2), "the district never received the answers")

        // The district away: the answer waits on the classroom, and goes once the district is back.
        district.stop()
        #expect(try vault.answer("algebra-1", "q3", "true").status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)
        usleep(2_500_000)
        #expect(try Self.status(classroom)["waiting_answers"] as? Int == 1)
        try district.start()
        #expect(try districtAnswers(3), "the answer sent while the district was away never arrived")
        #expect(try Self.status(classroom)["waiting_answers"] as? Int == 0)

        // The class comes down by itself too: results released at the district are released on the classroom.
        #expect(try district.admin(["release", "algebra-1"]).status == 0)
        let store = try classroom.openStore()
        var released = false
        for _ in 0..<40 where !released {
            released = try store.row("SELECT COUNT(*) FROM assessments WHERE id = 'algebra-1' AND released_at IS NOT NULL")?.int(0) == 1
            if !released { usleep(250_000) }
        }
        #expect(released, "the district's release never reached the classroom")
        #expect(try Self.status(classroom)["results_at"] is String)
    }

    @Test(
        "results come back down through the classroom: points, feedback and the release made at the district reach the student's vault at its next sync with the classroom; points and feedback given on the classroom go up to the district"
    )
    func resultsComeDown() throws {
        let (district, classroom, vault) = try Self.linkedClass()
        defer {
            classroom.stop()
            district.stop()
        }
        for (question, value) in Self.answers { #expect(try vault.answer("algebra-1", question, value).status == 0) }
        #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)
        #expect(try classroom.admin(["classroom", "push"]).status == 0)
        let attempt = try #require(try Self.received(district).submissions.first?.attemptId)

        // The district's teacher grades the essay and releases; the classroom's teacher marks q5 on the laptop.
        let graded = try district.admin(
            ["grade", "algebra-1", "--question", "q6", "--attempt", attempt, "--points", "2", "--feedback", "Well argued, one step missing."]
        )
        #expect(graded.status == 0, "\(graded.stderr)")
        #expect(try district.admin(["release", "algebra-1"]).status == 0)
        let marked = try classroom.admin(
            ["grade", "algebra-1", "--question", "q5", "--attempt", attempt, "--points", "1", "--feedback", "Right word, well spelled."]
        )
        #expect(marked.status == 0, "\(marked.stderr)")
        #expect(try Self.status(classroom)["waiting_marks"] as? Int == 2)

        let push = try classroom.admin(["classroom", "push"])
        #expect(push.status == 0 && push.stdout.contains("From the district: 1 results released"), "\(push.stdout) \(push.stderr)")
        #expect(try Self.status(classroom)["stored_marks"] as? Int == 2)
        let districtStore = try district.openStore()
        #expect(try districtStore.row("SELECT points FROM grades WHERE question_id = 'q5'")?.double(0) == 1)
        #expect(try districtStore.row("SELECT text FROM feedback WHERE question_id = 'q5'")?.string(0) == "Right word, well spelled.")

        // The student syncs with the classroom only, and reads the district's words.
        #expect(try vault.unlocked(["sync"]).status == 0)
        let results = try vault.unlocked(["results", "algebra-1"])
        #expect(results.status == 0, "\(results.stderr)")
        #expect(
            results.stdout.contains("Well argued, one step missing.") && results.stdout.contains("Right word, well spelled."),
            "\(results.stdout)"
        )
    }
}

import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultTestSupport

/// No network at all (issue 57): a student's package in by file, answers out by file, through the real binaries.
struct PackageBinaryTests {
    /// `vault ARGS` with no network at all where this machine allows it (`unshare -n`), traced for the sockets it
    /// opens; the result and whether any socket other than AF_UNIX was opened.
    static func offline(_ vault: CLIVault, _ arguments: [String], stdin: String = "pw-1\n") throws -> (Binaries.Result, Bool) {
        let trace = vault.root.file("trace-\(UUID().uuidString)")
        let isolated = (try? Binaries.system("unshare", ["-n", "true"]).status) == 0
        let command =
            ["/usr/bin/strace", "-f", "-qq", "-e", "trace=socket", "-o", trace, Binaries.directory + "/vault"] + arguments
            + ["--vault", vault.path, "--password-stdin"]
        let result =
            isolated
            ? try Binaries.system("unshare", ["-n"] + command, stdin: stdin)
            : try Binaries.system(command[0], Array(command.dropFirst()), stdin: stdin)
        let sockets = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
        let network = sockets.split(separator: "\n").contains { $0.contains("socket(") && !$0.contains("AF_UNIX") && !$0.contains("AF_LOCAL") }
        return (result, network)
    }

    static func publish(_ server: ServerProcess, _ assessment: Assessment, in directory: String) throws {
        let file = directory + "/\(assessment.id)-\(UUID().uuidString).json"
        try CanonicalJSON.encode(assessment).write(to: URL(fileURLWithPath: file))
        let published = try server.admin(["publish", file])
        #expect(published.status == 0, "\(published.stderr)")
    }

    /// A package file and its slip code (issue 68), as the teacher hands them out: the file on the stick, the code on
    /// paper.
    struct Made {
        let file: String
        let code: String
    }

    static func package(
        _ server: ServerProcess,
        _ id: String,
        user: String,
        into directory: String,
        expires: String? = nil,
        replacing: Bool = false
    ) throws -> Made {
        let sheet = directory + "/codes-\(UUID().uuidString).txt"
        let made = try server.admin(
            ["package", id, "--user", user, "--out", directory, "--json", "--codes", sheet, "--seal-iterations", "1000"]
                + (expires.map { ["--expires", $0] } ?? []) + (replacing ? ["--replace"] : [])
        )
        #expect(made.status == 0, "\(made.stderr)")
        let written = try #require((made.json?["packages"] as? [[String: Any]])?.first?["file"] as? String)
        let kept = directory + "/\(user)-\(id)-\(UUID().uuidString).vaultpkg"
        try FileManager.default.moveItem(atPath: written, toPath: kept)
        return Made(file: kept, code: try code(in: sheet, for: user))
    }

    /// A student's code from a codes sheet (`USER<TAB>CODE` lines).
    static func code(in sheet: String, for user: String) throws -> String {
        let lines = try String(contentsOfFile: sheet, encoding: .utf8).split(separator: "\n")
        let line = try #require(lines.first { $0.hasPrefix(user + "\t") }, "no code for \(user) in the sheet")
        return String(line.split(separator: "\t")[1])
    }

    /// `vault import` of a package with its slip code typed on stdin after the password.
    static func importing(_ vault: CLIVault, _ made: Made, _ extra: [String] = [], code: String? = nil) throws -> (Binaries.Result, Bool) {
        try offline(vault, ["import", made.file, "--code-stdin"] + extra, stdin: "pw-1\n\(code ?? made.code)\n")
    }

    @Test(
        "a vault that never met the server: import (fingerprint confirmed), answer, submit and hand in with no network; the server stores every answer once under that student; the receipt verifies back in the vault; refusals leave the vault as it was",
        arguments: Store.here
    )
    func noNetworkAtAll(_ store: Store) async throws {
        let database: String? = store == .postgres ? try await PostgresCluster.shared().createDatabase(prefix: "pkg") : nil
        let server = try ServerProcess(database: database)
        let work = TemporaryDirectory("packages")
        for name in ["ana", "ben"] {
            #expect(try server.admin(["user", "add", name, "--role", "student", "--password-iterations", "1000"], stdin: "\(name)-pw\n").status == 0)
        }
        let first = Fixtures.quiz(id: "pkg-quiz")
        try Self.publish(server, first, in: work.path)
        let fingerprint = try #require(try Binaries.system("curl", ["-s", server.url + APIPath.serverKey]).json?["fingerprint"] as? String)
        let anaV1 = try Self.package(server, "pkg-quiz", user: "ana", into: work.path)

        // A stolen stick is not enough (issue 68): the package's questions are sealed, and without Ana's slip code a
        // classmate's fresh vault imports nothing (77, nothing stored).
        #expect(try !String(contentsOfFile: anaV1.file, encoding: .utf8).contains("2x = 10"), "the package's questions are readable")
        let classmate = CLIVault()
        try classmate.initialize()
        let guessed = try Self.importing(classmate, anaV1, ["--server-key", fingerprint], code: "AAAA-BBBB-CCCC").0
        #expect(guessed.status == 77 && guessed.stderr.contains("slip code"), "\(guessed.status) \(guessed.stderr)")
        #expect(try !classmate.unlocked(["list", "--json"]).stdout.contains("pkg-quiz"))

        // Ana's vault, offline from its first command.
        let vault = CLIVault()
        try vault.initialize()
        let (imported, importNetwork) = try Self.importing(vault, anaV1, ["--server-key", fingerprint, "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(!importNetwork, "import opened a network socket")
        let (again, _) = try Self.importing(vault, anaV1, ["--server-key", fingerprint, "--json"])
        #expect(again.status == 0 && again.json?["stored"] as? Bool == false, "the same package twice changes nothing")
        // A vault that only ever had packages speaks as one (issue 71): no empty address, the way that works instead.
        let catalog = try vault.run(["catalog", "--vault", vault.path, "--password-stdin"], stdin: "pw-1\n")
        #expect(
            catalog.status == 64 && catalog.stderr.contains("vault hand-in") && catalog.stderr.contains("vault import")
                && !catalog.stderr.contains("not a server address"),
            "\(catalog.stderr)"
        )
        for (question, value) in [("q1", "b"), ("q3", "true"), ("q5", "Ada")] {
            let (saved, network) = try Self.offline(vault, ["answer", "pkg-quiz", question], stdin: "pw-1\n\(value)\n")
            #expect(saved.status == 0 && !network, "\(saved.stderr)")
        }
        #expect(try Self.offline(vault, ["submit", "pkg-quiz"]).0.status == 0)
        let handIn = work.file("ana-hand-in.vault")
        let (made, handInNetwork) = try Self.offline(vault, ["hand-in", "pkg-quiz", "--out", handIn])
        #expect(made.status == 0 && !handInNetwork, "\(made.stderr)")

        // The teacher imports it: stored once under Ana; twice stores nothing twice; the receipt goes back by file.
        let receipts = work.file("receipts")
        let stored = try server.admin(["import", handIn, "--receipts", receipts])
        #expect(stored.status == 0 && stored.stdout.contains("ana"), "\(stored.stderr)")
        #expect(try server.admin(["import", handIn, "--receipts", receipts]).status == 0)
        let listing = try server.admin(["responses", "pkg-quiz", "--json"])
        let responses = (listing.json?["responses"] as? [[String: Any]]) ?? []
        #expect(responses.count == 3 && responses.allSatisfy { $0["user"] as? String == "ana" }, "\(listing.stdout)")
        let receipt = try #require(try FileManager.default.contentsOfDirectory(atPath: receipts).first)
        let (attached, _) = try Self.offline(vault, ["receipts", "import", receipts + "/" + receipt])
        #expect(attached.status == 0, "\(attached.stderr)")

        // A copy of Ana's package on a second device cannot hand in as Ana now that her vault key is bound.
        let copy = CLIVault()
        try copy.initialize()
        #expect(try Self.importing(copy, anaV1, ["--server-key", fingerprint]).0.status == 0)
        _ = try Self.offline(copy, ["answer", "pkg-quiz", "q1"], stdin: "pw-1\na\n")
        _ = try Self.offline(copy, ["submit", "pkg-quiz"])
        let copied = work.file("copy-hand-in.vault")
        #expect(try Self.offline(copy, ["hand-in", "pkg-quiz", "--out", copied]).0.status == 0)
        let refused = try server.admin(["import", copied])
        #expect(refused.status != 0 && refused.stderr.contains("already used to hand in from another device"), "\(refused.stderr)")
        #expect((try server.admin(["responses", "pkg-quiz", "--json"]).json?["responses"] as? [[String: Any]])?.count == 3)

        // Refused, the vault unchanged: one byte changed, another server's key, an expired package, an older version.
        let before = try vault.unlocked(["list", "--json"]).stdout
        var changed = try Data(contentsOf: URL(fileURLWithPath: anaV1.file))
        changed[changed.count / 2] ^= 0x01
        let changedFile = work.file("changed.vaultpkg")
        try changed.write(to: URL(fileURLWithPath: changedFile))
        #expect([65, 77].contains(try Self.offline(vault, ["import", changedFile]).0.status))
        let other = try ServerProcess()
        #expect(try other.admin(["user", "add", "ana", "--role", "student", "--password-iterations", "1000"], stdin: "ana-pw\n").status == 0)
        try Self.publish(other, first, in: work.path)
        let foreign = try Self.package(other, "pkg-quiz", user: "ana", into: work.path)
        let foreignResult = try Self.importing(vault, foreign).0
        #expect(foreignResult.status == 77 && foreignResult.stderr.contains("another server"), "\(foreignResult.stderr)")
        // A package already expired is not made (issue 68); one that expires in a moment is refused by the vault
        // once that moment has passed.
        let past = try server.admin(["package", "pkg-quiz", "--user", "ana", "--out", work.path, "--expires", "2020-01-01T00:00:00Z"])
        #expect(past.status == 64 && past.stderr.contains("would be expired already"), "\(past.stderr)")
        let soon = Date().addingTimeInterval(2)
        let expired = try Self.package(server, "pkg-quiz", user: "ana", into: work.path, expires: Timestamp.string(soon))
        while Date() < soon.addingTimeInterval(0.5) { try await Task.sleep(for: .milliseconds(100)) }
        let expiredResult = try Self.importing(vault, expired).0
        #expect(expiredResult.status == 77 && expiredResult.stderr.contains("expired"), "\(expiredResult.stderr)")
        let benPackage = try Self.package(server, "pkg-quiz", user: "ben", into: work.path)
        let benResult = try Self.importing(vault, benPackage).0
        #expect(benResult.status == 77 && benResult.stderr.contains("belongs to ana"), "\(benResult.stderr)")
        #expect(try vault.unlocked(["list", "--json"]).stdout == before)
        var second = first
        second.questions[0].prompt = "Version two: 2x = 10. x = ?"
        try Self.publish(server, second, in: work.path)
        let anaV2 = try Self.package(server, "pkg-quiz", user: "ana", into: work.path)
        let fresh = CLIVault()
        try fresh.initialize()
        #expect(try Self.importing(fresh, anaV2, ["--server-key", fingerprint]).0.status == 0)
        let older = try Self.importing(fresh, anaV1).0
        #expect(older.status == 77 && older.stderr.contains("older version"), "\(older.stderr)")
        #expect(try vault.unlocked(["verify"]).status == 0)

        // Later, a network: Ana's first vault signs in with its own key (registered by her first hand-in; she never
        // typed a server password on it) and syncs; nothing is stored twice.
        let login = try vault.run(
            ["login", "--server", server.url, "--user", "ana", "--vault", vault.path, "--password-stdin", "--with-vault-key"],
            stdin: "pw-1\n"
        )
        #expect(login.status == 0, "\(login.stderr)")
        // A vault whose key nobody registered cannot do the same.
        let stranger = CLIVault()
        try stranger.initialize()
        let refusedKey = try stranger.run(
            ["login", "--server", server.url, "--user", "ana", "--vault", stranger.path, "--password-stdin", "--with-vault-key"],
            stdin: "pw-1\n"
        )
        #expect(refusedKey.status == 77 && refusedKey.stderr.contains("does not know this vault's key"), "\(refusedKey.stderr)")
        let sync = try vault.unlocked(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect((try server.admin(["responses", "pkg-quiz", "--json"]).json?["responses"] as? [[String: Any]])?.count == 3)
        #expect((try server.admin(["responses", "pkg-quiz", "--json"]).json?["submissions"] as? [[String: Any]])?.count == 1)
    }

    @Test(
        "a classmate with the stick and the code hands in first (issue 68): a replacing package for Ana goes into her own vault, her hand-in is stored as her one attempt, the classmate's is kept apart on the roster, their key signs in no more and hands in nothing more, and `user keys` says why",
        arguments: Store.here
    )
    func thiefThenNewPackage(_ store: Store) async throws {
        let database: String? = store == .postgres ? try await PostgresCluster.shared().createDatabase(prefix: "thief") : nil
        let server = try ServerProcess(database: database)
        let work = TemporaryDirectory("packages-thief")
        #expect(try server.admin(["user", "add", "ana", "--role", "student", "--password-iterations", "1000"], stdin: "ana-pw\n").status == 0)
        try Self.publish(server, Fixtures.quiz(id: "pkg-quiz"), in: work.path)
        let fingerprint = try #require(try Binaries.system("curl", ["-s", server.url + APIPath.serverKey]).json?["fingerprint"] as? String)
        let first = try Self.package(server, "pkg-quiz", user: "ana", into: work.path)
        /// Answers and submits (`value`), or makes the hand-in file of the attempt already submitted again (nil).
        func handIn(_ vault: CLIVault, _ value: String?, name: String) throws -> Binaries.Result {
            if let value {
                #expect(try Self.offline(vault, ["answer", "pkg-quiz", "q1"], stdin: "pw-1\n\(value)\n").0.status == 0)
                #expect(try Self.offline(vault, ["submit", "pkg-quiz"]).0.status == 0)
            }
            let file = work.file("\(name)-\(UUID().uuidString).vault")
            #expect(try Self.offline(vault, ["hand-in", "pkg-quiz", "--out", file]).0.status == 0)
            return try server.admin(["import", file])
        }
        let ana = CLIVault()
        try ana.initialize()
        #expect(try Self.importing(ana, first, ["--server-key", fingerprint]).0.status == 0)
        // The classmate copied the stick and learned the code: their hand-in binds their key to Ana.
        let thief = CLIVault()
        try thief.initialize()
        #expect(try Self.importing(thief, first, ["--server-key", fingerprint]).0.status == 0)
        #expect(try handIn(thief, "a", name: "thief").status == 0)
        func signIn(_ vault: CLIVault) throws -> Int32 {
            try vault.run(
                ["login", "--server", server.url, "--user", "ana", "--vault", vault.path, "--password-stdin", "--with-vault-key"],
                stdin: "pw-1\n"
            ).status
        }
        #expect(try signIn(thief) == 0)
        #expect(try handIn(ana, "b", name: "ana").status != 0, "Ana's own hand-in is refused while the classmate holds her package")

        // The remedy: a replacing package for Ana, into her existing vault (same version).
        let second = try Self.package(server, "pkg-quiz", user: "ana", into: work.path, replacing: true)
        let renewed = try Self.importing(ana, second).0
        #expect(renewed.status == 0 && renewed.stdout.contains("new package from your teacher is in place"), "\(renewed.stdout) \(renewed.stderr)")
        let stored = try handIn(ana, nil, name: "ana-again")
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(try signIn(thief) == 77)
        #expect(try handIn(thief, nil, name: "thief-again").status != 0)
        // The classmate's hand-in is kept apart for the teacher: Ana's row is her own attempt, not a second one.
        let roster = try server.admin(["roster", "pkg-quiz", "--json"]).json?["students"] as? [[String: Any]] ?? []
        let row = try #require(roster.first { $0["user"] as? String == "ana" })
        let apart = row["kept_apart"] as? [[String: Any]] ?? []
        #expect(apart.count == 1 && apart.first?["attempt_id"] as? String != row["attempt_id"] as? String, "\(row)")
        #expect(row["attempts"] as? Int == 1 && !((row["flags"] as? [String]) ?? []).contains("second_attempt"), "\(row)")
        let text = try server.admin(["roster", "pkg-quiz"]).stdout
        #expect(text.contains("kept apart") && text.contains("by a revoked device"), "\(text)")
        let keys = try server.admin(["user", "keys", "ana", "--json"]).json?["keys"] as? [[String: Any]] ?? []
        #expect(keys.count == 2, "\(keys)")
        #expect(keys.contains { $0["revoked_by"] as? String == "a new package for pkg-quiz" }, "\(keys)")
        #expect(keys.contains { $0["revoked_at"] == nil && $0["origin"] as? String == "package" }, "\(keys)")
        #expect(try signIn(ana) == 0)
    }

    @Test(
        "by file: --group and --all write one package per student; a sealed exam stays sealed in its package and opens offline with the start code; `list` says it came from a file; a hand-in crafted with Ana's package to claim Ben is refused, nothing stored"
    )
    func sealedGroupsAndCraftedHandIn() throws {
        let server = try ServerProcess()
        let work = TemporaryDirectory("packages-sealed")
        for (name, group) in [("ana", "7b"), ("ben", "7b"), ("cara", "8a")] {
            let added = try server.admin(
                ["user", "add", name, "--role", "student", "--group", group, "--password-iterations", "1000"],
                stdin: "\(name)-pw\n"
            )
            #expect(added.status == 0, "\(added.stderr)")
        }
        let document = work.file("sealed.json")
        try Data(
            """
            {"id":"sealed-pkg","title":"Sealed by file","sealed":true,"opens_at":"2030-06-01T09:00:00Z",
             "questions":[{"id":"q1","type":"single_choice","prompt":"Secret pick","choices":[{"id":"a","text":"A"},{"id":"b","text":"B"}],"answer_key":["a"]}]}
            """.utf8
        ).write(to: URL(fileURLWithPath: document))
        #expect(try server.admin(["publish", document]).status == 0)

        // One file per student of the group, and of everyone with --all.
        func written(_ selection: [String], into directory: String) throws -> [String] {
            let made = try server.admin(
                ["package", "sealed-pkg"] + selection + ["--out", directory, "--json", "--codes", directory + ".codes", "--seal-iterations", "1000"]
            )
            #expect(made.status == 0, "\(made.stderr)")
            return ((made.json?["packages"] as? [[String: Any]]) ?? []).compactMap { $0["user"] as? String }.sorted()
        }
        #expect(try written(["--group", "7b"], into: work.file("group")) == ["ana", "ben"])
        // Every student (the test server's own `demo` as well).
        #expect(try written(["--all"], into: work.file("all")) == ["ana", "ben", "cara", "demo"])
        let files = try FileManager.default.contentsOfDirectory(atPath: work.file("all")).sorted()
        #expect(files == ["ana", "ben", "cara", "demo"].map { "\($0)-sealed-pkg.vaultpkg" }, "\(files)")
        let anaPackage = try Self.package(server, "sealed-pkg", user: "ana", into: work.path)
        let packageText = try String(contentsOfFile: anaPackage.file, encoding: .utf8)
        #expect(!packageText.contains("Secret pick"), "the sealed questions are readable in the package")

        let served = try Binaries.system("curl", ["-s", server.url + APIPath.serverKey])
        let fingerprint = try #require(served.json?["fingerprint"] as? String)
        let vault = CLIVault()
        try vault.initialize()
        #expect(try Self.importing(vault, anaPackage, ["--server-key", fingerprint]).0.status == 0)
        let listed = try Self.offline(vault, ["list"]).0
        #expect(listed.stdout.contains("sealed") && listed.stdout.contains("from a file"), "\(listed.stdout)")
        let listedJSON = try Self.offline(vault, ["list", "--json"]).0
        #expect((listedJSON.json?["assessments"] as? [[String: Any]])?.first?["source"] as? String == "file", "\(listedJSON.stdout)")
        let shut = try Self.offline(vault, ["show", "sealed-pkg"]).0
        #expect(shut.status != 0 && !shut.stdout.contains("Secret pick") && shut.stderr.contains("sealed exam"), "\(shut.stderr)")
        let code = try server.admin(["start-code", "sealed-pkg", "--seal-iterations", "1000"])
        let startCode = try #require(code.stdout.split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)
        let (opened, network) = try Self.offline(vault, ["unseal", "sealed-pkg", "--start-code-stdin"], stdin: "pw-1\n\(startCode)\n")
        #expect(opened.status == 0 && !network, "\(opened.stderr)")
        #expect(try Self.offline(vault, ["show", "sealed-pkg"]).0.stdout.contains("Secret pick"))

        // Ana's package, used to hand in as Ben: her enrolment secret, Ben's name, a key of her own.
        let package = try JSONDecoder().decode(AssessmentPackage.self, from: Data(packageText.utf8))
        let key = try ServerPublicKey(try JSONDecoder().decode(ServerKeyResponse.self, from: Data(served.stdout.utf8)))
        let payload = try CanonicalJSON.encode(
            HandInPayload(
                user: "ben",
                responses: [],
                submission: SubmissionRequest(
                    attemptId: "crafted",
                    assessmentId: "sealed-pkg",
                    assessmentVersion: 1,
                    submittedAt: "2030-06-01T10:00:00.000Z",
                    responseIds: [],
                    answers: []
                ),
                enrolment: package.enrolment
            )
        )
        let device = DeviceKey()
        let signed = SignedHandIn(
            payload: String(decoding: payload, as: UTF8.self),
            deviceKey: device.publicKey,
            signature: try device.signature(for: payload)
        )
        let crafted = work.file("crafted.vault")
        try HandInFile.seal(try CanonicalJSON.encode(signed), to: key).write(to: URL(fileURLWithPath: crafted))
        let refused = try server.admin(["import", crafted])
        #expect(refused.status == 65 && refused.stderr.contains("not ben's"), "\(refused.stderr)")
        let responses = try server.admin(["responses", "sealed-pkg", "--json"])
        #expect((responses.json?["submissions"] as? [[String: Any]])?.isEmpty ?? true, "\(responses.stdout)")
    }
}

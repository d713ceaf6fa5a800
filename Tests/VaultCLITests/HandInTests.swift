import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultTestSupport

/// `vault hand-in` → `vault-server import` → `vault receipts import`, with the real binaries and a real server.
@Suite(.ownThreads)
struct HandInTests {
    let server: ServerProcess
    init() throws { server = try ServerProcess() }

    func signedInVault() throws -> CLIVault {
        let vault = CLIVault()
        try vault.initialize()
        try vault.signIn(to: server)
        #expect(try vault.unlocked(["download", "algebra-1"]).status == 0)
        return vault
    }

    func answerAll(_ vault: CLIVault, essay: String) throws {
        for (question, value) in [("q1", "b"), ("q2", "a,c"), ("q3", "true"), ("q4", "3.14"), ("q5", "coefficient"), ("q6", essay)] {
            let saved = try vault.answer("algebra-1", question, value)
            #expect(saved.status == 0, "\(question): \(saved.stderr)")
        }
    }

    func importFiles(_ files: [String], data: String? = nil, receipts: String) throws -> Binaries.Result {
        try Binaries.run("vault-server", ["import"] + files + ["--data", data ?? server.dataDirectory, "--receipts", receipts])
    }

    func storedCounts() throws -> (responses: Int, submissions: Int) {
        let result = try Binaries.run("vault-server", ["responses", "algebra-1", "--json", "--data", server.dataDirectory])
        let received = try JSONDecoder().decode(ReceivedResponses.self, from: Data(result.stdout.utf8))
        return (received.responses.count, received.submissions.count)
    }

    @Test(
        "hand-in, import twice, attach the receipt: stored once, and the next sync sends nothing; an unsubmitted attempt is refused; the file holds no answer"
    )
    func handInRoundTrip() throws {
        let vault = try signedInVault()
        let canary = "CANARY-\(UUID().uuidString)"
        try answerAll(vault, essay: canary)
        let file = vault.root.file("hand-in.vault")
        let early = try vault.unlocked(["hand-in", "algebra-1", "--out", file])
        #expect(early.status == 77 && early.stderr.contains("has not been submitted yet"))
        #expect(!FileManager.default.fileExists(atPath: file))

        #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0)
        let made = try vault.unlocked(["hand-in", "algebra-1", "--out", file])
        #expect(made.status == 0, "\(made.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("vault-hand-in-v1\n"))
        for secret in [canary, "coefficient", "algebra-1", "\"user\""] { #expect(!text.contains(secret), "\(secret) in plaintext") }

        let receipts = vault.root.file("receipts")
        let first = try importFiles([file], receipts: receipts)
        #expect(first.status == 0, "\(first.stderr)")
        let again = try importFiles([file], receipts: receipts)
        #expect(again.status == 0 && again.stdout == first.stdout, "importing twice gives the same receipt")
        #expect(try storedCounts() == (6, 1))
        // The teacher's roster says it came in as a hand-in file.
        let roster = try #require(try server.admin(["roster", "algebra-1", "--json"]).json?["students"] as? [[String: Any]])
        #expect(roster.first { $0["user"] as? String == "demo" }?["via"] as? String == "hand_in")
        let written = try FileManager.default.contentsOfDirectory(atPath: receipts)
        #expect(written.count == 1)
        // The attempt's own record came with the file and verifies (issue 55); it holds no answer text.
        let log = try server.admin(["log", "algebra-1", "--user", "demo", "--json"])
        let record = try #require((log.json?["records"] as? [[String: Any]])?.first, "\(log.stdout)")
        #expect(record["verified"] as? Bool == true, "\(log.stdout)")
        let kinds = (record["events"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
        #expect(kinds.first == "started" && kinds.contains("submitted") && kinds.last == "handed_in_by_file", "\(kinds)")
        #expect(!log.stdout.contains(canary))

        let attached = try vault.unlocked(["receipts", "import", receipts + "/" + written[0]])
        #expect(attached.status == 0, "\(attached.stderr)")
        let sync = try vault.unlocked(["sync", "--json"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.json?["uploaded"] as? Int == 0 && sync.json?["submitted"] as? Int == 0, "\(sync.stdout)")
        #expect(try storedCounts() == (6, 1))
        #expect(try vault.unlocked(["receipts", "algebra-1"]).stdout.contains(written[0].replacingOccurrences(of: ".json", with: "")))
    }

    @Test("sync first, then import the same attempt's hand-in: the same receipt, nothing stored twice")
    func syncThenImport() throws {
        let vault = try signedInVault()
        try answerAll(vault, essay: "Add three, divide by four.")
        #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0)
        let file = vault.root.file("hand-in.vault")
        #expect(try vault.unlocked(["hand-in", "algebra-1", "--out", file]).status == 0)
        let synced = try vault.unlocked(["sync", "--json"])
        #expect(synced.status == 0, "\(synced.stderr)")
        let receiptID = try #require((synced.json?["receipts"] as? [String])?.first, "\(synced.stdout)")
        let imported = try importFiles([file], receipts: vault.root.file("receipts"))
        #expect(imported.status == 0 && imported.stdout.contains(receiptID), "\(imported.stdout)\(imported.stderr)")
        #expect(try storedCounts() == (6, 1))
    }

    @Test("a flipped byte, a truncated file, a file for another server, an oversized file: refused in a sentence, nothing stored")
    func hostileFiles() throws {
        let vault = try signedInVault()
        try answerAll(vault, essay: "Because.")
        #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0)
        let file = vault.root.file("hand-in.vault")
        #expect(try vault.unlocked(["hand-in", "algebra-1", "--out", file]).status == 0)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        let receipts = vault.root.file("receipts")

        let flippedFile = vault.root.file("flipped.vault")
        var flipped = bytes
        let position = "vault-hand-in-v1\n".utf8.count + 60
        flipped[position] = flipped[position] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        try Data(flipped).write(to: URL(fileURLWithPath: flippedFile))
        let truncatedFile = vault.root.file("truncated.vault")
        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: truncatedFile))
        let hugeFile = vault.root.file("huge.vault")
        bytes = Array("vault-hand-in-v1\n".utf8) + Array(repeating: UInt8(ascii: "A"), count: 17 * 1024 * 1024)
        try Data(bytes).write(to: URL(fileURLWithPath: hugeFile))

        for (name, expected) in [
            (flippedFile, "was changed, cut short, or made for another server"), (truncatedFile, "cut short"),
            (hugeFile, "far larger than any hand-in"),
        ] {
            let result = try importFiles([name], receipts: receipts)
            #expect(result.status == 65, "\(name): \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(name): \(result.stderr)")
        }
        // Another server: a fresh store has an identity of its own.
        let other = TemporaryDirectory("other-server")
        let elsewhere = try importFiles([file], data: other.file("data"), receipts: receipts)
        #expect(elsewhere.status == 65 && elsewhere.stderr.contains("made for another server"), "\(elsewhere.stderr)")
        #expect(try storedCounts() == (0, 0))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: receipts))?.isEmpty ?? true)
    }

    @Test(
        "a forged hand-in file: one naming a student but signed by a key never registered to them is refused (65), naming the student; nothing stored"
    )
    func forgedHandIn() throws {
        let vault = try signedInVault()
        try answerAll(vault, essay: "Mine.")
        #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0)
        let real = vault.root.file("real.vault")
        #expect(try vault.unlocked(["hand-in", "algebra-1", "--out", real]).status == 0)
        // The forger knows the server's public key (anyone does) and writes a file for `demo` signed by a key of
        // their own.
        let served = try Binaries.run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(server.port)\(APIPath.serverKey)"])
        let key = try ServerPublicKey(try JSONDecoder().decode(ServerKeyResponse.self, from: Data(served.stdout.utf8)))
        let payload = HandInPayload(
            user: "demo",
            responses: [],
            submission: SubmissionRequest(
                attemptId: "forged",
                assessmentId: "algebra-1",
                assessmentVersion: 1,
                submittedAt: "2026-11-20T10:10:00.000Z",
                responseIds: [],
                answers: []
            )
        )
        let bytes = try CanonicalJSON.encode(payload)
        let forger = DeviceKey()
        let signed = SignedHandIn(
            payload: String(decoding: bytes, as: UTF8.self),
            deviceKey: forger.publicKey,
            signature: try forger.signature(for: bytes)
        )
        let forged = vault.root.file("forged.vault")
        try HandInFile.seal(try CanonicalJSON.encode(signed), to: key).write(to: URL(fileURLWithPath: forged))
        let receipts = vault.root.file("receipts")
        let result = try importFiles([forged], receipts: receipts)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("not signed by a device demo ever signed in from"), "\(result.stderr)")
        #expect(try storedCounts() == (0, 0))
        // The student's own file, signed by the key registered at login, goes in.
        #expect(try importFiles([real], receipts: receipts).status == 0)
        #expect(try storedCounts() == (6, 1))
    }

    /// `curl` against the test server: a JSON body from a file (never on the command line), an optional token.
    func curl(_ method: String, _ path: String, json: Data? = nil, token: String? = nil, in directory: CLIVault) throws -> Data {
        var arguments = ["-s", "-X", method, "http://127.0.0.1:\(server.port)\(path)"]
        if let token { arguments += ["-H", "authorization: Bearer \(token)"] }
        if let json {
            let file = directory.root.file("body-\(UUID().uuidString).json")
            try json.write(to: URL(fileURLWithPath: file))
            arguments += ["-H", "content-type: application/json", "--data-binary", "@\(file)"]
        }
        return Data(try Binaries.run("/usr/bin/curl", arguments).stdout.utf8)
    }

    @Test("import is all or nothing: a hand-in file properly signed by the student's device with one invalid answer stores nothing (65)")
    func importAllOrNothing() throws {
        let scratch = CLIVault()
        let token = try JSONDecoder().decode(
            TokenResponse.self,
            from: try curl("POST", APIPath.token, json: try CanonicalJSON.encode(TokenRequest(user: "demo", password: "demo-password")), in: scratch)
        ).token
        let device = DeviceKey()
        _ = try curl(
            "POST",
            APIPath.deviceKeys,
            json: try CanonicalJSON.encode(DeviceKeyRequest(publicKey: device.publicKey)),
            token: token,
            in: scratch
        )
        let served = try JSONDecoder().decode(Assessment.self, from: try curl("GET", APIPath.assessment("algebra-1"), token: token, in: scratch))
        func item(_ question: String, _ answer: JSONValue) -> ResponseItem {
            ResponseItem(
                id: UUID().uuidString,
                attemptId: "all-or-nothing",
                assessmentId: "algebra-1",
                assessmentVersion: served.version ?? 1,
                questionId: question,
                questionHash: served.question(question)?.hash ?? "",
                answer: answer,
                timeSpentMs: 1_000,
                answeredAt: "2026-11-20T10:00:00.000Z"
            )
        }
        // Two valid answers and a numeric question answered with text.
        let items = [item("q1", .string("b")), item("q3", .bool(true)), item("q4", .string("not a number"))]
        let payload = try CanonicalJSON.encode(
            HandInPayload(
                user: "demo",
                responses: items,
                submission: SubmissionRequest(
                    attemptId: "all-or-nothing",
                    assessmentId: "algebra-1",
                    assessmentVersion: served.version ?? 1,
                    submittedAt: "2026-11-20T10:10:00.000Z",
                    responseIds: items.map(\.id)
                )
            )
        )
        let signed = SignedHandIn(
            payload: String(decoding: payload, as: UTF8.self),
            deviceKey: device.publicKey,
            signature: try device.signature(for: payload)
        )
        let key = try ServerPublicKey(try JSONDecoder().decode(ServerKeyResponse.self, from: try curl("GET", APIPath.serverKey, in: scratch)))
        let file = scratch.root.file("partly-invalid.vault")
        try HandInFile.seal(try CanonicalJSON.encode(signed), to: key).write(to: URL(fileURLWithPath: file))
        let result = try importFiles([file], receipts: scratch.root.file("receipts"))
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("nothing of this file was stored"), "\(result.stderr)")
        #expect(try storedCounts() == (0, 0))
    }
}

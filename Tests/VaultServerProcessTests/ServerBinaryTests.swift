import Foundation
import Testing
import VaultAPI
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The real `vault-server` executable: serve on an ephemeral port, the admin subcommands beside it, SIGTERM.
struct ServerBinaryTests {
    @Test("serve --port 0 writes its port; publish, user add, delete and responses work while it runs; SIGTERM stops it cleanly")
    func serveAndAdminister() async throws {
        let root = TemporaryDirectory("vault-server-bin")
        let data = root.file("data")
        let portFile = root.file("port")
        let server = try Binaries.start(
            "vault-server",
            ["serve", "--port", "0", "--port-file", portFile, "--data", data, "--demo", "--password-iterations", "1000", "--verbose"]
        )
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        var port = 0
        for _ in 0..<100 where port == 0 {
            try await Task.sleep(for: .milliseconds(100))
            port = Int((try? String(contentsOfFile: portFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        }
        #expect(port > 0)

        let added = try Binaries.run(
            "vault-server",
            ["user", "add", "kim", "--role", "teacher", "--data", data, "--password-iterations", "1000"],
            stdin: "kim-secret\n"
        )
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try Binaries.run("vault-server", ["user", "add", "kim", "--data", data], stdin: "x\n").status != 0)

        let document = root.file("doc.json")
        try Data(#"{"id":"cli-quiz","title":"From the CLI","questions":[{"id":"q1","type":"essay","prompt":"Why?"}]}"#.utf8).write(
            to: URL(fileURLWithPath: document)
        )
        let published = try Binaries.run("vault-server", ["publish", document, "--data", data])
        #expect(published.stdout == "Published cli-quiz version 1 (1 question).\n")
        #expect(
            try Binaries.run("vault-server", ["publish", document, "--data", data]).stdout == "cli-quiz is unchanged at version 1 (1 question).\n"
        )
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: document))
        // Bad data: exit 65 with a sentence, nothing published.
        let malformed = try Binaries.run("vault-server", ["publish", document, "--data", data])
        #expect(malformed.status == 65 && malformed.stderr.contains("not a valid assessment document"), "\(malformed.stderr)")
        // Numbers out of bounds (issue 51): exit 65 with a sentence; the running server keeps serving.
        let fixtures = Binaries.repositoryRoot + "/Tests/VaultServerTests/Fixtures/hostile-review-5/"
        for (file, sentence) in [
            ("points-1e19.json", "at most 10,000 points"), ("points-minus-10.json", "at most 10,000 points"),
            ("normal-maximum-1e19.xml", "more than the 10,000 a question may be worth"),
            ("doubling-27.xml", "more work to score than a question may"),
        ] {
            let refused = try Binaries.run("vault-server", ["publish", fixtures + file, "--data", data])
            #expect(refused.status == 65 && refused.stderr.contains(sentence), "\(file): \(refused.status) \(refused.stderr)")
        }
        #expect(try curl(["http://127.0.0.1:\(port)\(APIPath.health)"]).status == 200)

        // A forgotten password (issue 53): a new one from stdin, never an argument; the old one is refused after it,
        // and the account's sessions are signed out.
        let before = try await post(port: port, path: APIPath.token, body: #"{"user":"kim","password":"kim-secret"}"#)
        let oldToken = try JSONDecoder().decode(TokenResponse.self, from: before.body).token
        let changed = try Binaries.run(
            "vault-server",
            ["user", "passwd", "kim", "--data", data, "--password-iterations", "1000"],
            stdin: "kim-new-one\n"
        )
        #expect(changed.status == 0 && changed.stdout.contains("Set a new password for kim"), "\(changed.stderr)")
        #expect(!changed.stdout.contains("kim-new-one") && !changed.stderr.contains("kim-new-one"))
        #expect(try await post(port: port, path: APIPath.token, body: #"{"user":"kim","password":"kim-secret"}"#).status == 401)
        #expect(try await get(port: port, path: APIPath.assessments, token: oldToken).status == 401, "the old session is signed out")
        #expect(try Binaries.run("vault-server", ["user", "passwd", "nobody", "--data", data], stdin: "x-password\n").status != 0)
        let renewed = try await post(port: port, path: APIPath.token, body: #"{"user":"kim","password":"kim-new-one"}"#)
        #expect(renewed.status == 200)
        try Binaries.run("vault-server", ["user", "passwd", "kim", "--data", data, "--password-iterations", "1000"], stdin: "kim-secret\n")
        // Turned off: the right password is refused with its own code and sentence, the session is signed out; turned
        // on again, the same password signs in.
        let session = try JSONDecoder().decode(
            TokenResponse.self,
            from: try await post(port: port, path: APIPath.token, body: #"{"user":"kim","password":"kim-secret"}"#).body
        ).token
        let disabled = try Binaries.run("vault-server", ["user", "disable", "kim", "--data", data])
        #expect(disabled.status == 0 && disabled.stdout.contains("Turned off kim"), "\(disabled.stderr)")
        let refused = try await post(port: port, path: APIPath.token, body: #"{"user":"kim","password":"kim-secret"}"#)
        #expect(refused.status == 403 && String(decoding: refused.body, as: UTF8.self).contains("account_disabled"))
        #expect(try await get(port: port, path: APIPath.assessments, token: session).status == 401, "the session is signed out")
        #expect(
            try await post(port: port, path: APIPath.token, body: #"{"user":"kim","password":"wrong"}"#).status == 401,
            "a wrong one says nothing more"
        )
        #expect(try Binaries.run("vault-server", ["user", "disable", "nobody", "--data", data]).status != 0)
        #expect(try Binaries.run("vault-server", ["user", "enable", "kim", "--data", data]).status == 0)

        // The running server sees what the subcommands wrote, and the new teacher can sign in.
        let token = try await post(port: port, path: APIPath.token, body: #"{"user":"kim","password":"kim-secret"}"#)
        #expect(token.status == 200)
        let catalog = try await get(
            port: port,
            path: APIPath.assessments,
            token: try JSONDecoder().decode(TokenResponse.self, from: token.body).token
        )
        let ids = try JSONDecoder().decode(CatalogResponse.self, from: catalog.body).assessments.map(\.id)
        #expect(ids.contains("cli-quiz") && ids.contains("algebra-1") && ids.contains("reading-fa-en"))

        let responses = try Binaries.run("vault-server", ["responses", "cli-quiz", "--data", data, "--json"])
        let received = try JSONDecoder().decode(ReceivedResponses.self, from: Data(responses.stdout.utf8))
        #expect(received.assessmentId == "cli-quiz" && received.responses.isEmpty)
        #expect(try Binaries.run("vault-server", ["delete", "cli-quiz", "--data", data]).status == 0)
        #expect(try Binaries.run("vault-server", ["delete", "cli-quiz", "--data", data]).status != 0)

        kill(server.processIdentifier, SIGTERM)
        let result = try Binaries.finish(server, timeout: .seconds(20))
        #expect(result.status == 0, "\(result.stderr)")
        // Request lines were logged, and none carries a password, a token or a body.
        #expect(result.stderr.contains("POST /v1/auth/token 200"))
        #expect(result.stderr.contains("GET /v1/assessments 200"))
        #expect(!result.stderr.contains("kim-secret") && !result.stderr.contains("vt_") && !result.stderr.contains("Bearer"))
    }

    struct Reply {
        let status: Int
        let body: Data
    }

    func get(port: Int, path: String, token: String) async throws -> Reply {
        try curl(["-H", "Authorization: Bearer \(token)", "http://127.0.0.1:\(port)\(path)"])
    }

    func post(port: Int, path: String, body: String) async throws -> Reply {
        try curl(["-X", "POST", "--data-binary", body, "http://127.0.0.1:\(port)\(path)"])
    }

    /// curl as an independent HTTP client: body, then the status on the last line.
    func curl(_ arguments: [String]) throws -> Reply {
        let result = try Binaries.run("/usr/bin/curl", ["-s", "-w", "\n%{http_code}"] + arguments)
        var lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.popLast() ?? "") ?? 0
        return Reply(status: status, body: Data(lines.joined(separator: "\n").utf8))
    }

    @Test("every server subcommand creates its files private, even under umask 000")
    func serverFilesUnderUmaskZero() throws {
        let directory = TemporaryDirectory("server-umask")
        let data = directory.file("data")
        let result = try Binaries.run(
            "/bin/sh",
            [
                "-c", "umask 000; exec \"$0\" user add kim --role teacher --data \"$1\" --password-iterations 1000",
                Binaries.directory + "/vault-server", data,
            ],
            stdin: "kim-secret\n"
        )
        #expect(result.status == 0, "\(result.stderr)")
        func mode(_ path: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: data) {
            let bits = try mode(data + "/" + name)
            #expect(bits & 0o077 == 0, "\(name) is \(String(bits & 0o777, radix: 8))")
        }
        #expect(try mode(data) & 0o077 == 0)
    }

    @Test("vault-server refuses a password in --database and in VAULT_SERVER_DATABASE_URL, without echoing it")
    func binaryRefusesPasswordInURL() throws {
        let url = "postgres://vault:hunter2-secret@127.0.0.1:1/x"
        for (arguments, environment) in [
            (["user", "add", "kim", "--database", url], [String: String]()), (["responses", "quiz", "--json"], ["VAULT_SERVER_DATABASE_URL": url]),
        ] {
            let result = try Binaries.run("vault-server", arguments, stdin: "kim-pw\n", environment: environment)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("password file"))
            #expect(!result.stderr.contains("hunter2") && !result.stdout.contains("hunter2"))
        }
    }
}

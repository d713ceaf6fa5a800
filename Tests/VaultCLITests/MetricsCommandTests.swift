import Foundation
import Testing
import VaultAPI
import VaultTestSupport

/// `GET /metrics` of the real `vault-server serve` (issue 59), read by Prometheus's own reference parser
/// (`prometheus_client`, Debian's python3-prometheus-client) after a real vault's sync.
@Suite(.ownThreads)
struct MetricsCommandTests {
    /// The page as the reference parser reads it: each sample by name and labels (`name{label="value",...}`).
    static func scrape(_ server: ServerProcess, headers: [String] = []) throws -> (status: String, samples: [String: Double]) {
        let page = try Binaries.system(
            "curl",
            ["-s", "-o", "-", "-w", "\n%{http_code}", server.url + "/metrics"] + headers.flatMap { ["-H", $0] }
        )
        var lines = page.stdout.components(separatedBy: "\n")
        let status = lines.removeLast()
        guard status == "200" else { return (status, [:]) }
        let parser = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            out = {}
            for family in text_string_to_metric_families(sys.stdin.read()):
                for s in family.samples:
                    labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
                    out[f"{s.name}{{{labels}}}"] = s.value
            print(json.dumps(out))
            """
        let parsed = try Binaries.system("/usr/bin/python3", ["-c", parser], stdin: lines.joined(separator: "\n"))
        #expect(parsed.status == 0, "the reference parser refused the page: \(parsed.stderr)")
        let samples = (try JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [String: Double]) ?? [:]
        return (status, samples)
    }

    @Test("on PostgreSQL, /metrics shows the pool: how long each lease waited, and the connections at work (none once the sync is done)")
    func postgresPool() async throws {
        let server = try ServerProcess(database: try await PostgresCluster.shared().createDatabase(prefix: "pool"))
        let vault = CLIVault()
        try vault.initialize()
        try vault.signIn(to: server)
        #expect(try vault.unlocked(["download", "algebra-1"]).status == 0)
        #expect(try vault.answer("algebra-1", "q1", "b").status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)
        let scraped = try Self.scrape(server)
        #expect((scraped.samples["vault_db_lease_wait_count{}"] ?? 0) > 0, "\(scraped.samples.keys.filter { $0.hasPrefix("vault_db") }.sorted())")
        #expect(scraped.samples["vault_db_connections_in_use{}"] == 0, "\(scraped.samples.filter { $0.key.hasPrefix("vault_db") })")
    }

    @Test(
        "after a real vault's sync, /metrics parses with the reference parser and counts exactly its 3 answers and 1 hand-in; a second sync adds none; a student's token or a forwarded request gets no page"
    )
    func countsWhatASyncSent() throws {
        let (vault, server) = try CLIFixtures.prepared(answers: [("q1", "b"), ("q3", "true"), ("q4", "3.14")])
        #expect(try vault.unlocked(["sync"]).status == 0)
        let first = try Self.scrape(server)
        #expect(first.status == "200")
        #expect(first.samples[#"vault_answers_total{outcome="accepted"}"#] == 3, "\(first.samples.keys.sorted())")
        #expect(first.samples[#"vault_submissions_total{outcome="created"}"#] == 1)
        #expect(first.samples[#"vault_downloads_total{assessment="algebra-1"}"#] == 1)
        let routes = first.samples.filter { $0.key.hasPrefix("hb_requests") && $0.key.contains("/v1/submissions") }
        #expect(routes.values.reduce(0, +) == 1, "requests by route: \(routes)")
        #expect(first.samples.keys.contains { $0.hasPrefix("vault_server_start_time_seconds{") })
        // No label names a person: the demo student's name appears nowhere.
        #expect(!first.samples.keys.contains { $0.contains("demo") })

        #expect(try vault.unlocked(["sync"]).status == 0)
        let second = try Self.scrape(server)
        #expect(
            second.samples[#"vault_answers_total{outcome="accepted"}"#] == 3 && second.samples[#"vault_submissions_total{outcome="created"}"#] == 1
        )

        // Not this machine's own request: a proxy's, or a student's token.
        #expect(try Self.scrape(server, headers: ["X-Forwarded-For: 10.0.0.9"]).status == "404")
        // The README's nginx settings pass only Host and X-Forwarded-Proto (issue 70): a remote client's request
        // through them arrives from loopback and is still not this machine's own; nor one naming X-Real-IP.
        for header in ["X-Forwarded-Proto: https", "X-Real-IP: 10.0.0.9", "Forwarded: for=10.0.0.9", "Via: 1.1 proxy"] {
            #expect(try Self.scrape(server, headers: [header]).status == "404", "\(header)")
            let status = try Binaries.system(
                "curl",
                ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", header, server.url + APIPath.serverStatus]
            )
            #expect(status.stdout == "404", "\(header): the admin status too")
        }
        let token = try Binaries.system(
            "curl",
            ["-s", "-H", "Content-Type: application/json", "-d", #"{"user":"demo","password":"demo-password"}"#, server.url + APIPath.token]
        )
        let student = try #require((try JSONSerialization.jsonObject(with: Data(token.stdout.utf8)) as? [String: Any])?["token"] as? String)
        #expect(try Self.scrape(server, headers: ["Authorization: Bearer \(student)"]).status == "404")

        // The same batch sent twice (a vault that never heard the first answer): the second moves the duplicate
        // counter, not the accepted one.
        let served = try Binaries.system("curl", ["-s", "-H", "Authorization: Bearer \(student)", server.url + APIPath.assessment("algebra-1")])
        let document = try JSONDecoder().decode(Assessment.self, from: Data(served.stdout.utf8))
        let batch = String(
            decoding: try CanonicalJSON.encode(
                BatchRequest(responses: [Fixtures.item(document, question: "q5", answer: .string("twice"), attempt: "metrics-twice")])
            ),
            as: UTF8.self
        )
        for _ in 0..<2 {
            let sent = try Binaries.system(
                "curl",
                [
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(student)", "-H", "Content-Type: application/json",
                    "-d", batch, server.url + APIPath.batch,
                ]
            )
            #expect(sent.stdout == "200", "\(sent.stdout) \(sent.stderr)")
        }
        let third = try Self.scrape(server)
        #expect(third.samples[#"vault_answers_total{outcome="accepted"}"#] == 4)
        #expect(third.samples[#"vault_answers_total{outcome="duplicate"}"#] == 1, "\(third.samples.filter { $0.key.hasPrefix("vault_answers") })")
    }

    @Test(
        "behind a real nginx set up exactly as the README says (its proxy_set_header lines), /metrics and the admin status answer 404 to a client of the proxy, while the API works through it and this machine's own request gets the page (issue 70)"
    )
    func behindTheREADMEsNginx() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let readme = try String(contentsOfFile: Binaries.repositoryRoot + "/README.md", encoding: .utf8)
        let directives = readme.matches(of: /proxy_set_header [^;`\n]+;/).map { String($0.output) }
        #expect(directives.count >= 2, "the README names the proxy's headers: \(directives)")
        let directory = try TemporaryDirectory()
        let port = PostgresCluster.freePort()
        let prefix = directory.path
        let configuration = """
            daemon off;
            master_process off;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/error.log;
            events {}
            http {
                access_log off;
                client_body_temp_path \(prefix)/body;
                proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi;
                uwsgi_temp_path \(prefix)/uwsgi;
                scgi_temp_path \(prefix)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass \(server.url);
                        \(directives.joined(separator: "\n                "))
                    }
                }
            }
            """
        try configuration.write(toFile: directory.file("nginx.conf"), atomically: true, encoding: .utf8)
        let nginx = try Binaries.start("/usr/sbin/nginx", ["-p", prefix, "-c", directory.file("nginx.conf")])
        defer { kill(nginx.processIdentifier, SIGKILL) }
        let proxy = "http://127.0.0.1:\(port)"
        func status(_ url: String) throws -> String {
            try Binaries.system("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", url]).stdout
        }
        // nginx is up when the API answers through it.
        var health = ""
        for _ in 0..<50 where health != "200" {
            health = try status(proxy + APIPath.health)
            if health != "200" { usleep(100_000) }
        }
        #expect(health == "200", "the API through the proxy")
        #expect(try status(proxy + "/metrics") == "404")
        #expect(try status(proxy + APIPath.serverStatus) == "404")
        #expect(try status(server.url + "/metrics") == "200", "this machine's own request")
    }
}

/// `--log-format json` (issue 59): one JSON object a line, each request's with its id, echoed in `X-Request-Id`; at
/// trace level no password, token or answer in any line.
@Suite(.ownThreads)
struct JSONLogTests {
    @Test(
        "every line of a json log parses, each request line carries its request id (the one a proxy gave, echoed back), and at trace level no canary password, token or essay appears"
    )
    func jsonLines() throws {
        let server = try ServerProcess(arguments: ["--log-format", "json", "--log-level", "trace"])
        let password = "Canary-Pw-7731"
        let essay = "CANARY-ESSAY-5521 divided by four"
        #expect(try server.admin(["user", "passwd", "demo", "--password-iterations", "1000"], stdin: password + "\n").status == 0)
        let vault = CLIVault()
        try vault.initialize()
        let login = try vault.run(
            ["login", "--server", server.url, "--user", "demo", "--vault", vault.path, "--password-stdin", "--server-password-stdin"],
            stdin: "pw-1\n\(password)\n"
        )
        #expect(login.status == 0, "\(login.stderr)")
        #expect(try vault.unlocked(["download", "algebra-1"]).status == 0)
        #expect(try vault.answer("algebra-1", "q6", essay).status == 0)
        #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)
        let health = try Binaries.system("curl", ["-s", "-D", "-", "-o", "/dev/null", "-H", "X-Request-Id: proxy-42.a", server.url + APIPath.health])
        #expect(health.stdout.lowercased().contains("x-request-id: proxy-42.a"), "\(health.stdout)")
        let generated = try Binaries.system("curl", ["-s", "-D", "-", "-o", "/dev/null", server.url + APIPath.health])
        #expect(generated.stdout.lowercased().contains("x-request-id: "), "a request id of its own")

        let log = server.stop()
        let lines = log.split(separator: "\n").map(String.init)
        #expect(lines.count > 10)
        var requests: [[String: Any]] = []
        for line in lines {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(line)")
            if let object, object["path"] != nil { requests.append(object) }
        }
        #expect(requests.count >= 6 && requests.allSatisfy { ($0["request_id"] as? String)?.isEmpty == false }, "\(requests)")
        #expect(requests.contains { $0["request_id"] as? String == "proxy-42.a" && $0["path"] as? String == APIPath.health })
        #expect(requests.contains { $0["path"] as? String == APIPath.submissions && $0["status"] as? String == "201" })
        for canary in [password, "CANARY-ESSAY", "vt_", "Bearer"] { #expect(!log.contains(canary), "\(canary) reached the log") }
    }
}

import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Fault drills against a real PostgreSQL cluster of the test's own and the real `vault-server`: with the cluster
/// stopped a request is answered within 3 s with 503 and Retry-After (never held open); once the cluster is back the
/// same process serves again within 10 s, with no restart; SIGTERM still ends it cleanly.
struct DatabaseFaultTests {
    static func request(_ url: String, token: String) throws -> (status: Int, retryAfter: String?, seconds: Double) {
        let start = ContinuousClock.now
        let result = try Binaries.system(
            "curl",
            ["-s", "-D", "-", "-o", "/dev/null", "--max-time", "30", "-H", "Authorization: Bearer \(token)", url + "/v1/assessments"]
        )
        let took = ContinuousClock.now - start
        let lines = result.stdout.components(separatedBy: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } } ?? 0
        let retryAfter = lines.first { $0.lowercased().hasPrefix("retry-after:") }.map {
            String($0.dropFirst("retry-after:".count)).trimmingCharacters(in: .whitespaces)
        }
        return (status, retryAfter, Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18)
    }

    @Test("the cluster stopped: 503 with Retry-After within 3 s; started again: served within 10 s without a restart")
    func clusterStoppedAndStarted() async throws {
        if PostgresCluster.unavailableReason != nil, !PostgresCluster.required { return }
        let cluster = try await PostgresCluster.dedicated()
        defer { try? cluster.stop() }
        let server = try ServerProcess(database: try await cluster.createDatabase())
        let login = try Binaries.system(
            "curl",
            [
                "-s", "-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"user":"demo","password":"demo-password"}"#,
                server.url + "/v1/auth/token",
            ]
        )
        let token = try #require((try JSONSerialization.jsonObject(with: Data(login.stdout.utf8)) as? [String: Any])?["token"] as? String)
        #expect(try Self.request(server.url, token: token).status == 200)

        func probe(_ path: String) throws -> (status: String, body: String) {
            let reply = try Binaries.system("curl", ["-s", "--max-time", "30", "-w", "\n%{http_code}", server.url + path])
            var lines = reply.stdout.components(separatedBy: "\n")
            let status = lines.removeLast()
            return (status, lines.joined(separator: "\n"))
        }
        #expect(try probe("/v1/ready").status == "200")
        let healthy = try probe("/v1/health")

        try cluster.stop()
        for _ in 0..<2 {
            let down = try Self.request(server.url, token: token)
            #expect(down.status == 503, "answered \(down.status)")
            #expect(down.retryAfter != nil, "with Retry-After")
            #expect(down.seconds < 3, "answered after \(down.seconds) s")
        }
        // Readiness says the store is away; liveness still answers, and says of the settings what it said before.
        #expect(try probe("/v1/ready").status == "503")
        let alive = try probe("/v1/health")
        #expect(alive.status == "200" && alive.body == healthy.body, "\(alive) was \(healthy)")

        try cluster.start()
        let back = ContinuousClock.now
        var served = false
        while !served, ContinuousClock.now - back < .seconds(10) {
            served = try Self.request(server.url, token: token).status == 200
            if !served { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(served, "not served within 10 s of the database's return")
        #expect(try probe("/v1/ready").status == "200")
        // What an admin's monitoring saw (issue 59): the store's failures by kind, and the 503s by their code.
        let metrics = try Binaries.system("curl", ["-s", server.url + "/metrics"]).stdout
        let lines = metrics.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.contains { $0.hasPrefix(#"vault_database_errors_total{kind="unavailable"}"#) }, "\(lines.filter { $0.hasPrefix("vault_") })")
        #expect(lines.contains { $0.hasPrefix(#"vault_retry_later_total{"#) && $0.contains(#"status="503""#) })
        // The requests as the client got them (issue 73): the 503s as 503, none as a 500, their durations recorded too,
        // and no error series for an answer that was not a server error.
        let requests = lines.filter { $0.hasPrefix("hb_requests{") }
        #expect(requests.contains { $0.contains(#"http_response_status_code="503""#) }, "\(requests)")
        #expect(!lines.contains { $0.contains(#"status_code="500""#) || $0.contains(#"error_type="500""#) }, "\(lines.filter { $0.contains("500") })")
        #expect(lines.contains { $0.hasPrefix("http_server_request_duration") && $0.contains(#"http_response_status_code="503""#) })
        #expect(lines.contains { $0.hasPrefix("hb_request_errors{") && $0.contains(#"error_type="503""#) })
        #expect(!lines.contains { $0.hasPrefix("hb_request_errors{") && $0.contains(#"error_type="2"#) })

        let process = try #require(server.process)
        let start = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        // Ended: the kernel's word (a zombie not yet reaped, or gone), not only Foundation's, which on a loaded
        // machine notices a child's end late.
        func ended() -> Bool {
            guard process.isRunning else { return true }
            guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8) else { return true }
            return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
        }
        while !ended(), ContinuousClock.now - start < .seconds(30) { try await Task.sleep(for: .milliseconds(100)) }
        // What is asserted is that it ends (no hang after the database came back): the kernel's alarm ends it 8 s after
        // the signal by its own clock. How soon the test sees that is the machine's load: alone it is 1-2 s, under the
        // full suite on 2 cores it was 12.9 s twice (the process not scheduled), so the bound here is a hang's, 30 s.
        #expect(ended(), "still running \(ContinuousClock.now - start) after SIGTERM")
        print("DatabaseFaultTests: the server ended \(ContinuousClock.now - start) after SIGTERM")
    }
}

import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Three real `vault-server` processes on one PostgreSQL database. Nothing serialises requests across them, so
/// exactly-once and supersede hold only if the database's constraints and transactions make them hold.
@Suite(.enabled(if: PostgresCluster.runsHere, "PostgreSQL is not installed"))
struct MultiProcessTests {
    @Test(
        "three server processes on one PostgreSQL: the same batches and submissions sent to all three at once are stored once; a later answer wins across processes; one receipt per submission"
    )
    func threeProcesses() async throws {
        let cluster = try await PostgresCluster.shared()
        let url = try await cluster.createDatabase(prefix: "multi")
        let database = String(url.split(separator: "/").last!)
        let root = TemporaryDirectory("vault-multi")
        let iterations = ["--password-iterations", "1000"]

        for (name, role) in [("student", "student"), ("teacher", "teacher")] {
            let added = try await Binaries.offPool {
                try Binaries.run("vault-server", ["user", "add", name, "--role", role, "--database", url] + iterations, stdin: "\(name)-pw\n")
            }
            #expect(added.status == 0, "\(added.stderr)")
        }
        let document = root.file("quiz.json")
        try CanonicalJSON.encode(Fixtures.quiz()).write(to: URL(fileURLWithPath: document))
        let published = try await Binaries.offPool { try Binaries.run("vault-server", ["publish", document, "--database", url]) }
        #expect(published.status == 0, "\(published.stderr)")

        // Three processes, each with its own connection pool.
        let servers = try (0..<3).map { index in
            try Binaries.start(
                "vault-server",
                ["serve", "--port", "0", "--port-file", root.file("port\(index)"), "--database", url] + iterations
            )
        }
        defer { for server in servers where server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        var ports: [Int] = []
        for index in 0..<3 {
            var port = 0
            for _ in 0..<200 where port == 0 {
                try await Task.sleep(for: .milliseconds(50))
                port =
                    Int(
                        (try? String(contentsOfFile: root.file("port\(index)"), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                            ?? ""
                    ) ?? 0
            }
            try #require(port > 0, "server \(index) did not start")
            ports.append(port)
        }

        // A token issued by one process is honoured by the others: tokens live in the database.
        let login = try await Curl.all([
            Curl.Request(port: ports[0], method: "POST", path: APIPath.token, body: #"{"user":"student","password":"student-pw"}"#)
        ])
        let token = try JSONDecoder().decode(TokenResponse.self, from: login[0].body).token
        let fetched = try await Curl.all([Curl.Request(port: ports[1], method: "GET", path: APIPath.assessment("quiz-1"), token: token)])
        let served = try JSONDecoder().decode(Assessment.self, from: fetched[0].body)

        let attempts = (0..<20).map { "attempt-\($0)" }
        let first = attempts.map { Fixtures.item(served, question: "q1", answer: .string("b"), attempt: $0, at: "2026-11-20T10:00:00.000Z") }
        let early = attempts.map { Fixtures.item(served, question: "q3", answer: .bool(false), attempt: $0, at: "2026-11-20T10:01:00.000Z") }
        let late = attempts.map { Fixtures.item(served, question: "q3", answer: .bool(true), attempt: $0, at: "2026-11-20T10:05:00.000Z") }
        func batch(_ items: [ResponseItem], to port: Int) throws -> Curl.Request {
            Curl.Request(
                port: port,
                method: "POST",
                path: APIPath.batch,
                token: token,
                body: String(decoding: try CanonicalJSON.encode(BatchRequest(responses: items)), as: UTF8.self)
            )
        }

        // The same batch to all three at once: every item accepted by exactly one process, a duplicate for the others.
        let same = try await Curl.all(try ports.map { try batch(first, to: $0) })
        #expect(same.map(\.status) == [200, 200, 200], "\(same.map { String(decoding: $0.body, as: UTF8.self) })")
        let sameResults = try same.map { try JSONDecoder().decode(BatchResponse.self, from: $0.body).results }
        for item in first {
            let statuses = sameResults.compactMap { $0.first { $0.id == item.id }?.status }
            #expect(statuses.count == 3)
            #expect(statuses.filter { $0 == .accepted }.count == 1, "\(item.id): \(statuses)")
            #expect(statuses.filter { $0 == .duplicate }.count == 2, "\(item.id): \(statuses)")
        }

        // The later answer to one process and the earlier one to another, at once (and each again to the third).
        let crossed = try await Curl.all([
            try batch(late, to: ports[0]), try batch(early, to: ports[1]), try batch(early, to: ports[2]), try batch(late, to: ports[2]),
        ])
        #expect(crossed.map(\.status) == [200, 200, 200, 200], "\(crossed.map { String(decoding: $0.body, as: UTF8.self) })")

        // Submissions of five attempts, each sent to all three processes at once: one 201, two 200, one receipt.
        let submitted = Array(attempts.prefix(5))
        var requests: [Curl.Request] = []
        for (index, attempt) in submitted.enumerated() {
            let submission = SubmissionRequest(
                attemptId: attempt,
                assessmentId: "quiz-1",
                assessmentVersion: served.version ?? 1,
                submittedAt: "2026-11-20T10:10:00.000Z",
                responseIds: [first[index].id, early[index].id, late[index].id]
            ).listing([first[index], early[index], late[index]])
            let body = String(decoding: try CanonicalJSON.encode(submission), as: UTF8.self)
            requests += ports.map { Curl.Request(port: $0, method: "POST", path: APIPath.submissions, token: token, body: body) }
        }
        let receipts = try await Curl.all(requests)
        // One identity for the deployment: every process serves the same key (made by whichever asked first).
        let keys = try await Curl.all(ports.map { Curl.Request(port: $0, method: "GET", path: APIPath.serverKey) })
        let servedKeys = try keys.map { try JSONDecoder().decode(ServerKeyResponse.self, from: $0.body) }
        #expect(Set(servedKeys.map(\.fingerprint)).count == 1)
        let pinned = try ServerPublicKey(servedKeys[0])
        for (index, attempt) in submitted.enumerated() {
            let replies = receipts[(index * 3)..<(index * 3 + 3)]
            #expect(replies.map(\.status).sorted() == [200, 200, 201], "\(attempt): \(replies.map { String(decoding: $0.body, as: UTF8.self) })")
            let decoded = try replies.map { try JSONDecoder().decode(SubmissionReceipt.self, from: $0.body) }
            #expect(Set(decoded.map(\.receiptId)).count == 1, "\(attempt) got receipts \(decoded.map(\.receiptId))")
            // Signed once and stored: the same bytes from every process, verifying with the key pinned from process 0.
            #expect(Set(decoded.map(\.signed)).count == 1)
            for receipt in decoded { #expect(try pinned.verify(try #require(receipt.signed)).attemptId == attempt) }
        }

        // What the database holds, read with psql, not through our code.
        #expect(try cluster.psql(database, "SELECT count(*), count(DISTINCT id) FROM responses") == "60|60\n")
        let current = try cluster.psql(database, "SELECT id FROM responses WHERE question_id = 'q3' AND NOT superseded ORDER BY id")
        #expect(current == late.map(\.id).sorted().map { $0 + "\n" }.joined())
        #expect(try cluster.psql(database, "SELECT count(*) FROM responses WHERE question_id = 'q3' AND superseded") == "20\n")
        #expect(try cluster.psql(database, "SELECT count(*), count(DISTINCT receipt_id) FROM submissions") == "5|5\n")

        for server in servers { kill(server.processIdentifier, SIGTERM) }
        for server in servers {
            let result = try await Binaries.offPool { try Binaries.finish(server, timeout: .seconds(20)) }
            #expect(result.status == 0, "\(result.stderr)")
        }
    }
}

/// curl as an independent HTTP client; `all` runs every request at the same time (one process each).
enum Curl {
    struct Request: Sendable {
        var port: Int
        var method: String
        var path: String
        var token: String?
        var body: String?
    }

    struct Reply: Sendable {
        let status: Int
        let body: Data
    }

    static func all(_ requests: [Request]) async throws -> [Reply] {
        try await Binaries.offPool {
            let processes = try requests.map { request in
                var arguments = ["-s", "-w", "\n%{http_code}", "-X", request.method, "-H", "Content-Type: application/json"]
                if let token = request.token { arguments += ["-H", "Authorization: Bearer \(token)"] }
                if let body = request.body { arguments += ["--data-binary", body] }
                return try Binaries.start("/usr/bin/curl", arguments + ["http://127.0.0.1:\(request.port)\(request.path)"])
            }
            return try processes.map { process in
                try? (process.standardInput as? Pipe)?.fileHandleForWriting.close()
                let result = try Binaries.finish(process, timeout: .seconds(60))
                var lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                let status = Int(lines.popLast() ?? "") ?? 0
                return Reply(status: status, body: Data(lines.joined(separator: "\n").utf8))
            }
        }
    }
}

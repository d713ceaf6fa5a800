import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO
import VaultAPI
import VaultCore
import VaultModel
import VaultRules
import VaultServer
import VaultServerPostgres

/// The teacher's desk at a district's size: `desk-seed` stores 2,000 students, each with a handed-in attempt of 50
/// answers (100,000 answers) through the store's own batch and submission paths; `desk-measure` times the roster page
/// over loopback against the raw queries that read the same rows, and the server's memory while it streams the CSV.
enum DeskBench {
    static let assessmentID = "desk-quiz"
    static let questions = 50
    static let teacher = (name: "desk-teacher", password: "desk-teacher-password")

    static var assessment: Assessment {
        var questions = (1..<Self.questions).map {
            Question(id: "q\($0)", type: .shortText, prompt: "Question \($0)?", maxLength: 200, acceptedAnswers: ["answer \($0)"])
        }
        questions.append(Question(id: "q\(Self.questions)", type: .essay, prompt: "Explain.", maxLength: 4000))
        return Assessment(id: assessmentID, title: "Desk benchmark", questions: questions)
    }

    static func storage() async throws -> any ServerStorage {
        if let url = option("database") { return try await PostgresServerStorage(location: PostgresLocation(url: url)) }
        return try SQLiteServerStorage(directory: option("data", "./desk-data")!)
    }

    static func seed() async throws {
        let students = Int(option("students", "2000")!)!
        let storage = try await storage()
        try await storage.createUser(
            PasswordHasher.makeRecord(name: teacher.name, role: .teacher, password: SecretBytes(Array(teacher.password.utf8)), iterations: 1_000),
            now: Date()
        )
        // The teacher owns it: the desk shows a teacher only what they own or share.
        _ = try await storage.publish(assessment, now: Date(), by: Publisher(name: teacher.name, role: .teacher))
        guard let served = try await storage.served(id: assessmentID).map({ try JSONDecoder().decode(Assessment.self, from: $0.bytes) }) else {
            throw LoadError("the desk assessment was not stored")
        }
        // The teacher's other assessments (`--assessments N` in all): the Assessments page lists every one with its
        // counts. Small ones, as a term's quizzes are.
        let assessments = Int(option("assessments", "1")!)!
        for index in 1..<max(1, assessments) {
            let quiz = Assessment(
                id: "desk-extra-\(index)",
                title: "Quiz \(index)",
                questions: (1...5).map { Question(id: "q\($0)", type: .shortText, prompt: "Question \($0)?", maxLength: 200) }
            )
            _ = try await storage.publish(quiz, now: Date(), by: Publisher(name: teacher.name, role: .teacher))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<students {
                if index >= 8 { try await group.next() }
                group.addTask { try await seedStudent(index, served: served, storage: storage) }
            }
            try await group.waitForAll()
        }
        print("seeded \(students) students with \(students * questions) answers on \(assessmentID), \(max(1, assessments)) assessments")
    }

    static func seedStudent(_ index: Int, served: Assessment, storage: any ServerStorage) async throws {
        let user = "student-\(index)"
        var record = try PasswordHasher.makeRecord(name: user, role: .student, password: SecretBytes(Array("pw".utf8)), iterations: 1_000)
        record.group = "g\(index % 20)"
        try await storage.createUser(record, now: Date())
        try await storage.recordDownload(assessmentID: assessmentID, version: 1, user: user, now: Date(), classroom: nil)
        let attempt = "attempt-\(index)"
        let items = served.questions.enumerated().map { number, question in
            let essay: Bool = if case .essay = question.body { true } else { false }
            return ResponseItem(
                id: "r-\(index)-\(number)",
                attemptId: attempt,
                assessmentId: assessmentID,
                assessmentVersion: served.version ?? 1,
                questionId: question.id,
                questionHash: question.hash ?? "",
                answer: .string(essay ? String(repeating: "An essay of a usual length. ", count: 20) : "answer \(number % 3)"),
                timeSpentMs: 20_000,
                answeredAt: "2026-11-20T10:00:00.000Z"
            )
        }
        _ = try await storage.recordBatch(items, user: user, now: Date())
        let request = SubmissionRequest(
            attemptId: attempt,
            assessmentId: assessmentID,
            assessmentVersion: served.version ?? 1,
            submittedAt: "2026-11-20T10:30:00.000Z",
            responseIds: items.map(\.id),
            startedAt: "2026-11-20T09:30:00.000Z",
            timeUsedMs: 3_600_000,
            answers: try items.map {
                SubmittedAnswer(
                    responseId: $0.id,
                    questionId: $0.questionId,
                    answerSha256: answerDigest(canonicalAnswer: try CanonicalJSON.encode($0.answer))
                )
            }
        )
        guard case .created = try await storage.submit(request, user: user, now: Date()) else { throw LoadError("a seeded submission was refused") }
    }

    /// One JSON line: the page's and the raw queries' p50 and p99 in ms, and the server's memory around an export.
    static func measure() async throws {
        let rounds = Int(option("rounds", "30")!)!
        let base = "http://127.0.0.1:\(option("port")!)"
        // Redirects are the desk's answers here (sign-in sends to /desk), read as they are, not followed.
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await measure(client, base: base, rounds: rounds)
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    static func measure(_ client: HTTPClient, base: String, rounds: Int) async throws {
        let cookie = try await signIn(client, base: base)

        // The export first, on a server that has done nothing else yet: its peak against its idle size.
        var export: [String: Int] = [:]
        if let pid = option("pid") {
            export["idle_rss_kib"] = memory(pid: pid, field: "VmRSS")
            var request = HTTPClientRequest(url: base + "/desk/a/\(assessmentID)/export?format=csv")
            request.headers.add(name: "Cookie", value: cookie)
            let response = try await client.execute(request, timeout: .seconds(120))
            var size = 0
            for try await chunk in response.body { size += chunk.readableBytes }
            export["csv_bytes"] = size
            export["peak_rss_kib"] = memory(pid: pid, field: "VmHWM")
        }
        var page: [Double] = []
        var bytes = 0
        for _ in 0..<rounds {
            var request = HTTPClientRequest(url: base + "/desk/a/\(assessmentID)")
            request.headers.add(name: "Cookie", value: cookie)
            let start = ContinuousClock.now
            let response = try await client.execute(request, timeout: .seconds(60))
            bytes = try await response.body.collect(upTo: 64 << 20).readableBytes
            guard response.status == .ok else { throw LoadError("the roster page answered \(response.status)") }
            page.append(seconds(ContinuousClock.now - start))
        }
        let raw = try await rawRounds(rounds)
        // The Assessments page: every assessment of the teacher with its counts.
        var list: [Double] = []
        for _ in 0..<rounds {
            var request = HTTPClientRequest(url: base + "/desk")
            request.headers.add(name: "Cookie", value: cookie)
            let start = ContinuousClock.now
            let response = try await client.execute(request, timeout: .seconds(60))
            _ = try await response.body.collect(upTo: 64 << 20)
            guard response.status == .ok else { throw LoadError("the Assessments page answered \(response.status)") }
            list.append(seconds(ContinuousClock.now - start))
        }

        let line: [String: Any] = [
            "page_p50_ms": percentile(page, 0.5), "page_p99_ms": percentile(page, 0.99), "page_bytes": bytes,
            "raw_p50_ms": percentile(raw, 0.5), "raw_p99_ms": percentile(raw, 0.99), "export": export,
            "list_p50_ms": percentile(list, 0.5), "list_p99_ms": percentile(list, 0.99),
        ]
        print(String(decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]), as: UTF8.self))
    }

    /// The desk's sign-in as a browser does it: the form's nonce cookie, then the post.
    static func signIn(_ client: HTTPClient, base: String) async throws -> String {
        let form = try await client.execute(HTTPClientRequest(url: base + "/desk/login"), timeout: .seconds(30))
        let html = String(buffer: try await form.body.collect(upTo: 1 << 20))
        guard let nonceCookie = form.headers["Set-Cookie"].first?.split(separator: ";").first,
            let range = html.range(of: "name=\"nonce\" value=\"")
        else { throw LoadError("the sign-in page has no nonce") }
        let nonce = html[range.upperBound...].prefix { $0 != "\"" }
        var post = HTTPClientRequest(url: base + "/desk/login")
        post.method = .POST
        post.headers.add(name: "Cookie", value: String(nonceCookie))
        post.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        post.body = .bytes(ByteBuffer(string: "nonce=\(nonce)&user=\(teacher.name)&password=\(teacher.password)"))
        let response = try await client.execute(post, timeout: .seconds(30))
        guard let session = response.headers["Set-Cookie"].first(where: { $0.hasPrefix("vault_desk=") })?.split(separator: ";").first else {
            throw LoadError("the desk sign-in failed (\(response.status))")
        }
        return String(session)
    }

    /// The statements the roster page reads, each row read to the end, with nothing built from them: the class
    /// without its answers (the scores are kept beside the hand-ins), then the answers of the 200 rows a page shows
    /// only where no score is kept (none here, so that statement is left out).
    static let rawStatements = [
        "SELECT a.current_version, a.closed_at, a.released_at, v.source FROM assessments a JOIN assessment_versions v ON v.id = a.id AND v.version = a.current_version WHERE a.id = 'desk-quiz'",
        "SELECT name, group_name FROM users WHERE role = 'student' ORDER BY name",
        "SELECT user_name, version, last_at FROM downloads WHERE assessment_id = 'desk-quiz'",
        "SELECT user_name, extra_minutes FROM accommodations WHERE assessment_id IN ('desk-quiz', '*')",
        """
        SELECT r.user_name, r.attempt_id, COUNT(*), MAX(r.received_at), MAX(t.started_at) FROM attempts t
        JOIN responses r ON r.attempt_id = t.id AND NOT r.superseded WHERE t.assessment_id = 'desk-quiz'
        AND NOT EXISTS (SELECT 1 FROM submissions s WHERE s.attempt_id = t.id) GROUP BY r.user_name, r.attempt_id
        """,
        "SELECT user_name, attempt_id, reason, at FROM refused_submissions WHERE assessment_id = 'desk-quiz'",
        "SELECT d.attempt_id, d.last_seen FROM attempt_devices d JOIN attempts t ON t.id = d.attempt_id WHERE t.assessment_id = 'desk-quiz'",
        "SELECT s.*, a.released_at FROM submissions s JOIN assessments a ON a.id = s.assessment_id WHERE s.assessment_id = 'desk-quiz' ORDER BY s.user_name, s.attempt_id",
        "SELECT v.id, v.version, v.source FROM assessment_versions v WHERE v.id = 'desk-quiz'",
        "SELECT g.attempt_id, g.question_id, g.points FROM submissions s JOIN grades g ON g.attempt_id = s.attempt_id WHERE s.assessment_id = 'desk-quiz'",
    ]

    static func rawRounds(_ rounds: Int) async throws -> [Double] {
        var timings: [Double] = []
        if let url = option("database") {
            let location = try PostgresLocation(url: url)
            let client = PostgresClient(
                configuration: .init(
                    host: location.host,
                    port: location.port,
                    username: location.user,
                    password: nil,
                    database: location.database,
                    tls: .disable
                )
            )
            let runner = Task { await client.run() }
            defer { runner.cancel() }
            for _ in 0..<rounds {
                let start = ContinuousClock.now
                try await client.withConnection { connection in
                    try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ", logger: Logger(label: "raw"))
                    for statement in rawStatements {
                        var count = 0
                        for try await row in try await connection.query(PostgresQuery(unsafeSQL: statement), logger: Logger(label: "raw")) {
                            for cell in row { count += cell.bytes?.readableBytes ?? 0 }
                        }
                        _ = count
                    }
                    try await connection.query("COMMIT", logger: Logger(label: "raw"))
                }
                timings.append(seconds(ContinuousClock.now - start))
            }
        } else {
            let database = try Database(path: option("data", "./desk-data")! + "/server.db", encryption: .plaintext)
            for _ in 0..<rounds {
                let start = ContinuousClock.now
                try database.inTransaction {
                    for statement in rawStatements {
                        _ = try database.rows(statement).count
                    }
                }
                timings.append(seconds(ContinuousClock.now - start))
            }
        }
        return timings
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double { (Percentile.of(sorted: values.sorted(), p) * 1000 * 100).rounded() / 100 }

    static func memory(pid: String, field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

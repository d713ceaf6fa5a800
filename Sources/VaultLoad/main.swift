import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import Synchronization
import VaultAPI
import VaultCore
import VaultModel
import VaultServer
import VaultServerPostgres

// `VaultLoad` is scripts/load's engine (run that script, not this):
//   seed (--data DIR | --database URL) [--users N]      users load-0…, the 100-question load-quiz
//   drive --port P [--users N] [--concurrency C] [--seconds S]
//                                                        C students at once, each batch a new attempt of 100 answers
//   burst --ports P1,P2 [--students N]                 N students hand in at once (batch + submission) across the ports
//   downloads --port P [--users N] [--concurrency C] [--seconds S] [--pooled PERCENT]
//                                                        C students at once downloading; PERCENT of the users get
//                                                        load-pool (sections, a selection, shuffling: their own draw)
//   raw-sqlite [--seconds S]                             the same rows inserted through our SQLite wrapper
//   desk-seed (--data DIR | --database URL) [--students N]
//                                                        N students, each with a handed-in attempt of 50 answers
//   desk-measure --port P [--pid PID] (--data DIR | --database URL) [--rounds R]
//                                                        the roster page against the raw queries; memory of an export
// Every figure comes from the product's own code: the real server over loopback, the real store.

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, _ fallback: String? = nil) -> String? {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return fallback }
    return arguments[index + 1]
}
let users = Int(option("users", "1000")!)!
let questionsPerBatch = 100
let password = "load-password"

enum LoadFixture {
    static let assessmentID = "load-quiz"

    static var assessment: Assessment {
        Assessment(
            id: assessmentID,
            title: "Load",
            questions: (1...questionsPerBatch).map { Question(id: "q\($0)", type: .shortText, prompt: "Question \($0)?", maxLength: 200) }
        )
    }

    /// The same size with pools: 70 questions of four choices in a section giving 30 of them, shuffled, and 30 in a
    /// shuffled section; choices shuffled.
    static var pooled: Assessment {
        var pooled = Assessment(
            id: "load-pool",
            title: "Load with pools",
            questions: (1...questionsPerBatch).map {
                Question(
                    id: "q\($0)",
                    type: .singleChoice,
                    prompt: "Question \($0)?",
                    choices: ["a", "b", "c", "d"].map { Choice(id: $0, text: "Choice \($0)") },
                    answerKey: [.string("a")]
                )
            }
        )
        pooled.shuffleChoices = true
        pooled.sections = [
            Section(id: "pool", select: 30, shuffle: true, questions: (1...70).map { "q\($0)" }),
            Section(id: "rest", shuffle: true, questions: (71...questionsPerBatch).map { "q\($0)" }),
        ]
        return pooled
    }

    /// The plain document of the same 100 choice questions, for the download comparison.
    static var plainChoices: Assessment {
        var plain = pooled
        plain.id = "load-plain"
        plain.sections = nil
        plain.shuffleChoices = nil
        return plain
    }
}

func seed() async throws {
    let storage: any ServerStorage
    if let url = option("database") {
        storage = try await PostgresServerStorage(location: PostgresLocation(url: url))
    } else {
        storage = try SQLiteServerStorage(directory: option("data", "./load-data")!)
    }
    for document in [LoadFixture.assessment, LoadFixture.pooled, LoadFixture.plainChoices] { _ = try await storage.publish(document, now: Date()) }
    for index in 0..<users {
        try await storage.createUser(
            PasswordHasher.makeRecord(name: "load-\(index)", role: .student, password: SecretBytes(Array(password.utf8)), iterations: 1_000),
            now: Date()
        )
    }
    print("seeded \(users) students and \(LoadFixture.assessmentID)")
}

/// Latencies of every batch, and what the server said about their items.
final class Tally: Sendable {
    private struct State {
        var latencies: [Double] = []
        var accepted = 0
        var failedBatches = 0
        var throttled = 0
    }
    private let state = Mutex(State())

    func record(seconds: Double, accepted: Int) {
        state.withLock {
            $0.latencies.append(seconds)
            $0.accepted += accepted
        }
    }
    func failed() { state.withLock { $0.failedBatches += 1 } }
    func throttle() { state.withLock { $0.throttled += 1 } }
    var snapshot: (latencies: [Double], accepted: Int, failed: Int, throttled: Int) {
        state.withLock { ($0.latencies, $0.accepted, $0.failedBatches, $0.throttled) }
    }
}

func drive() async throws {
    let port = Int(option("port")!)!
    let concurrency = Int(option("concurrency", "16")!)!
    let seconds = Double(option("seconds", "15")!)!
    let base = "http://127.0.0.1:\(port)"
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

    let api = LoadClient(client: client, base: base)
    @Sendable func send(
        _ method: HTTPMethod,
        _ path: String,
        token: String? = nil,
        body: Data? = nil
    ) async throws -> (HTTPResponseStatus, ByteBuffer) {
        try await api.send(method, path, token: token, body: body)
    }

    let shared = Shared(users: users)
    try await signInEveryone(api, into: shared, concurrency: concurrency)
    let served = try await api.served(token: shared.tokens.withLock { $0[0] })

    // One batch body, encoded once by our wire types; each batch swaps in a fresh attempt id (item ids follow it).
    let marker = "ATTEMPTMARKER"
    let template = String(
        decoding: try CanonicalJSON.encode(
            BatchRequest(
                responses: served.questions.map { question in
                    ResponseItem(
                        id: "\(marker)-\(question.id)",
                        attemptId: marker,
                        assessmentId: served.id,
                        assessmentVersion: served.version ?? 1,
                        questionId: question.id,
                        questionHash: question.hash ?? "",
                        answer: .string("an answer of a usual length for a short text question"),
                        timeSpentMs: 20_000,
                        answeredAt: "2026-11-20T10:00:00.000Z"
                    )
                }
            )
        ),
        as: UTF8.self
    )
    // The template cut at its markers once, so a batch body is the pieces joined by its attempt id (a search and
    // replace over 20 KB per batch cost the machine more than a tenth of its CPU, which the server then lacked).
    let pieces = TemplatePieces(template: template, marker: marker)
    let accepted = Array(#""status":"accepted""#.utf8)
    let tally = Tally()
    let run = UUID().uuidString.prefix(8)
    let start = ContinuousClock.now
    let deadline = start + .milliseconds(Int(saturating: seconds * 1000))
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                while ContinuousClock.now < deadline {
                    let number = shared.sequence.add(1, ordering: .relaxed).oldValue
                    let user = number % users
                    let body = pieces.joined(with: Array("load-\(run)-\(number)".utf8))
                    let token = shared.tokens.withLock { $0[user] }
                    let began = ContinuousClock.now
                    let (status, reply) = try await send(.POST, APIPath.batch, token: token, body: body)
                    let elapsed = ContinuousClock.now - began
                    switch status {
                    case .ok:
                        let bytes = Array(buffer: reply)
                        var count = 0
                        var index = bytes.startIndex
                        while let found = bytes[index...].firstRange(of: accepted) {
                            count += 1
                            index = found.upperBound
                        }
                        tally.record(seconds: Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds), accepted: count)
                    case .tooManyRequests: tally.throttle()
                    default: tally.failed()
                    }
                }
            }
        }
        try await group.waitForAll()
    }
    let wall = ContinuousClock.now - start
    try await client.shutdown()
    let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
    let result = tally.snapshot
    let sorted = result.latencies.sorted()
    func percentile(_ p: Double) -> Double { Percentile.of(sorted: sorted, p) * 1000 }
    let line: [String: Any] = [
        "answers_per_second": Int(saturating: Double(result.accepted) / wallSeconds),
        "batches": sorted.count,
        "answers_accepted": result.accepted,
        "answers_expected": sorted.count * questionsPerBatch,
        "p50_ms": (percentile(0.50) * 10).rounded() / 10,
        "p99_ms": (percentile(0.99) * 10).rounded() / 10,
        "failed_batches": result.failed,
        "throttled_batches": result.throttled,
        "concurrency": concurrency,
        "users": users,
        "seconds": (wallSeconds * 10).rounded() / 10,
    ]
    print(String(decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]), as: UTF8.self))
}

/// The engine's own rate for the same rows: the server's INSERT, through our wrapper, 100 rows per transaction, with
/// the server's settings, in one process (SQLite has one writer); each transaction records its attempt as the server does.
func rawSQLite() throws {
    let seconds = Double(option("seconds", "10")!)!
    let directory = NSTemporaryDirectory() + "vault-load-raw-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    _ = try SQLiteServerStorage(directory: directory)  // the server's schema, indexes included
    var configuration = DatabaseConfiguration()
    configuration.synchronous = "NORMAL"
    let database = try Database(path: directory + "/server.db", encryption: .plaintext, configuration: configuration)
    let insert = """
        INSERT INTO responses (id, user_name, attempt_id, assessment_id, assessment_version, question_id, answer, answered_at,
            answered_at_ms, time_spent_ms, forced, superseded, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    let answer = #""an answer of a usual length for a short text question""#
    let start = ContinuousClock.now
    let deadline = start + .milliseconds(Int(saturating: seconds * 1000))
    var rows = 0
    while ContinuousClock.now < deadline {
        try database.inTransaction {
            let attempt = "raw-attempt-\(rows / questionsPerBatch)"
            try database.execute(
                "INSERT OR IGNORE INTO attempts (id, user_name, assessment_id) VALUES (?, ?, ?)",
                [attempt, "load-0", LoadFixture.assessmentID]
            )
            for question in 1...questionsPerBatch {
                try database.execute(
                    insert,
                    [
                        "raw-\(rows)", "load-0", attempt, LoadFixture.assessmentID, 1,
                        "q\(question)", answer, "2026-11-20T10:00:00.000Z", 1_763_632_800_000, 20_000, false, false, Date().timeIntervalSince1970,
                    ]
                )
                rows += 1
            }
        }
    }
    let wall = ContinuousClock.now - start
    let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
    print(#"{"raw_sqlite_rows_per_second":\#(Int(saturating: Double(rows) / wallSeconds)),"rows":\#(rows)}"#)
}

/// A body template split at every occurrence of its marker.
struct TemplatePieces: Sendable {
    let pieces: [[UInt8]]

    init(template: String, marker: String) {
        pieces = template.components(separatedBy: marker).map { Array($0.utf8) }
    }

    func joined(with replacement: [UInt8]) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pieces.reduce(0) { $0 + $1.count } + replacement.count * pieces.count)
        for (index, piece) in pieces.enumerated() {
            if index > 0 { bytes += replacement }
            bytes += piece
        }
        return Data(bytes)
    }
}

/// What the students' tasks share: their tokens, and the number of the next batch.
final class Shared: Sendable {
    let tokens: Mutex<[String]>
    let sequence = Atomic<Int>(0)
    init(users: Int) { tokens = Mutex([String](repeating: "", count: users)) }
}

/// The end-of-exam burst: `students` sign in (not timed), then all at once each sends a batch of answers of a new
/// attempt and hands it in, as `vault sync` does, spread over the given server ports. A 429 is retried after its
/// Retry-After and a 5xx after a second (what a vault does); the figures are receipts, 429s, 5xx, and the time from
/// the burst's start to each student's receipt.
func burst() async throws {
    let ports = option("ports", option("port"))!.split(separator: ",").compactMap { Int($0) }
    let students = Int(option("students", "200")!)!
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: students)
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    let apis = ports.map { LoadClient(client: client, base: "http://127.0.0.1:\($0)") }
    var tokens: [String] = []
    for index in 0..<students { tokens.append(try await apis[index % apis.count].signIn(student: index)) }
    let served = try await apis[0].served(token: tokens[0])
    let run = UUID().uuidString.prefix(8)
    let tally = BurstTally()
    let signedIn = tokens
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<students {
            let api = apis[index % apis.count]
            let token = signedIn[index]
            group.addTask {
                let attempt = "burst-\(run)-\(index)"
                let items = served.questions.prefix(10).map { question in
                    ResponseItem(
                        id: "\(attempt)-\(question.id)",
                        attemptId: attempt,
                        assessmentId: served.id,
                        assessmentVersion: served.version ?? 1,
                        questionId: question.id,
                        questionHash: question.hash ?? "",
                        answer: .string("an answer"),
                        timeSpentMs: 20_000,
                        answeredAt: "2026-11-20T10:00:00.000Z"
                    )
                }
                let submission = SubmissionRequest(
                    attemptId: attempt,
                    assessmentId: served.id,
                    assessmentVersion: served.version ?? 1,
                    submittedAt: "2026-11-20T10:05:00.000Z",
                    responseIds: items.map(\.id),
                    answers: try items.map {
                        SubmittedAnswer(
                            responseId: $0.id,
                            questionId: $0.questionId,
                            answerSha256: answerDigest(canonicalAnswer: try CanonicalJSON.encode($0.answer))
                        )
                    }
                )
                for (path, body) in [
                    (APIPath.batch, try CanonicalJSON.encode(BatchRequest(responses: items))),
                    (APIPath.submissions, try CanonicalJSON.encode(submission)),
                ] {
                    while true {
                        let (status, reply) = try await api.send(.POST, path, token: token, body: body)
                        if status.code < 300 { break }
                        if status == .tooManyRequests {
                            tally.state.withLock { $0.throttled += 1 }
                        } else if status == .serviceUnavailable {
                            tally.state.withLock { $0.unavailable += 1 }
                        } else {
                            tally.state.withLock { $0.serverErrors += 1 }
                            guard status.code >= 500 else { throw LoadError("\(path) answered \(status): \(String(buffer: reply))") }
                        }
                        try await Task.sleep(for: .seconds(1))
                    }
                }
                let took = ContinuousClock.now - start
                tally.state.withLock {
                    $0.receipts += 1
                    $0.latencies.append(Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18)
                }
            }
        }
        try await group.waitForAll()
    }
    try await client.shutdown()
    let result = tally.state.withLock { $0 }
    let sorted = result.latencies.sorted()
    let line: [String: Any] = [
        "students": students, "processes": ports.count, "receipts": result.receipts, "throttled_429": result.throttled,
        "unavailable_503": result.unavailable,
        "server_errors_5xx": result.serverErrors, "p50_ms": Int(saturating: Percentile.of(sorted: sorted, 0.5) * 1000),
        "p99_ms": Int(saturating: Percentile.of(sorted: sorted, 0.99) * 1000), "slowest_ms": Int(saturating: (sorted.last ?? 0) * 1000),
    ]
    print(String(decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]), as: UTF8.self))
}

/// What the burst's students saw.
final class BurstTally: Sendable {
    let state = Mutex((receipts: 0, throttled: 0, unavailable: 0, serverErrors: 0, latencies: [Double]()))
}

struct LoadClient: Sendable {
    let client: HTTPClient
    let base: String

    /// A seeded student's token (`load-N`).
    func signIn(student index: Int) async throws -> String {
        let body = try JSONEncoder().encode(TokenRequest(user: "load-\(index)", password: password))
        let (status, reply) = try await send(.POST, APIPath.token, token: nil, body: body)
        guard status == .ok else { throw LoadError("load-\(index) could not sign in (\(status)); run seed (with enough --users) first") }
        return try JSONDecoder().decode(TokenResponse.self, from: Data(buffer: reply)).token
    }

    /// The load assessment as a student downloads it.
    func served(token: String) async throws -> Assessment {
        let (status, document) = try await send(.GET, APIPath.assessment(LoadFixture.assessmentID), token: token, body: nil)
        guard status == .ok else { throw LoadError("the load assessment is not served (\(status)); run seed first") }
        return try JSONDecoder().decode(Assessment.self, from: Data(buffer: document))
    }

    func send(_ method: HTTPMethod, _ path: String, token: String?, body: Data?) async throws -> (HTTPResponseStatus, ByteBuffer) {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(60))
        return (response.status, try await response.body.collect(upTo: 16 << 20))
    }
}

struct LoadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

do {
    switch arguments.first {
    case "seed": try await seed()
    case "drive": try await drive()
    case "burst": try await burst()
    case "downloads": try await downloads()
    case "raw-sqlite": try rawSQLite()
    case "desk-seed": try await DeskBench.seed()
    case "desk-measure": try await DeskBench.measure()
    default:
        FileHandle.standardError.write(
            Data("usage: VaultLoad seed|drive|burst|raw-sqlite|desk-seed|desk-measure [options] (run scripts/load or scripts/bench)\n".utf8)
        )
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("VaultLoad: \(error)\n".utf8))
    exit(1)
}

/// Downloads by C students at once for S seconds: `--pooled` percent of the users download load-pool (their own
/// draw: made at the first download, read after), the others load-plain (the same questions, served as stored).
func downloads() async throws {
    let port = Int(option("port")!)!
    let concurrency = Int(option("concurrency", "16")!)!
    let seconds = Double(option("seconds", "15")!)!
    let pooledPercent = Int(option("pooled", "30")!)!
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    let api = LoadClient(client: client, base: "http://127.0.0.1:\(port)")
    let shared = Shared(users: users)
    try await signInEveryone(api, into: shared, concurrency: concurrency)
    let tally = Tally()
    let start = ContinuousClock.now
    let deadline = start + .milliseconds(Int(saturating: seconds * 1000))
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                while ContinuousClock.now < deadline {
                    let user = shared.sequence.add(1, ordering: .relaxed).oldValue % users
                    let id = user % 100 < pooledPercent ? "load-pool" : "load-plain"
                    let token = shared.tokens.withLock { $0[user] }
                    let began = ContinuousClock.now
                    let (status, _) = try await api.send(.GET, APIPath.assessment(id), token: token, body: nil)
                    let elapsed = ContinuousClock.now - began
                    if status == .ok {
                        tally.record(seconds: Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds), accepted: 1)
                    } else {
                        tally.failed()
                    }
                }
            }
        }
        try await group.waitForAll()
    }
    let wall = ContinuousClock.now - start
    try await client.shutdown()
    let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
    let result = tally.snapshot
    let sorted = result.latencies.sorted()
    func percentile(_ p: Double) -> Double { (Percentile.of(sorted: sorted, p) * 10_000).rounded() / 10 }
    let line: [String: Any] = [
        "downloads_per_second": Int(saturating: Double(result.accepted) / wallSeconds), "downloads": result.accepted,
        "failed": result.failed, "p50_ms": percentile(0.5), "p99_ms": percentile(0.99), "pooled_percent": pooledPercent,
        "concurrency": concurrency, "users": users,
    ]
    print(String(decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]), as: UTF8.self))
}

/// Every student signs in first (not timed), `concurrency` at a time; their tokens go into `shared`.
func signInEveryone(_ api: LoadClient, into shared: Shared, concurrency: Int) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for lane in 0..<concurrency {
            group.addTask {
                for index in stride(from: lane, to: users, by: concurrency) {
                    let token = try await api.signIn(student: index)
                    shared.tokens.withLock { $0[index] = token }
                }
            }
        }
        try await group.waitForAll()
    }
}

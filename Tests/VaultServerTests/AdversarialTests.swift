import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import VaultAPI
import VaultCore
import VaultRules
import VaultServer
import VaultTestSupport

#if canImport(Glibc)
import Glibc
import CoreFoundation
import VaultModel
#endif

/// Every attack of the hostile review (issue "Trust") against the server, each named after the attack.
struct ServerAdversarialTests {
    @Test("a student cannot submit another student's attempt, not even with no responses; the owner's submission still works", arguments: Backend.all)
    func submissionHijack(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let owner = try await api.token("student")
            let thief = try await api.token("student2")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let served = try await api.served("quiz-1", token: owner)
            let item = Fixtures.item(served, question: "q3", answer: .bool(true), attempt: "victim-attempt")
            #expect(try await api.batch([item], token: owner).map(\.status) == [.accepted])

            var hijack = SubmissionRequest(
                attemptId: "victim-attempt",
                assessmentId: "quiz-1",
                assessmentVersion: 1,
                submittedAt: "2026-11-20T10:10:00.000Z",
                responseIds: []
            )
            let refused = try await api.send(.post, APIPath.submissions, token: thief, json: hijack)
            #expect(refused.status == .forbidden)
            hijack.responseIds = [item.id]
            #expect(try await api.send(.post, APIPath.submissions, token: thief, json: hijack).status == .forbidden)
            // An attempt nobody uploaded to cannot be submitted empty either (nothing to prove it is the caller's).
            var empty = hijack
            empty.attemptId = "never-seen"
            empty.responseIds = []
            #expect(try await api.send(.post, APIPath.submissions, token: thief, json: empty).status == .unprocessableContent)

            var mine = hijack.listing([item])
            mine.responseIds = [item.id]
            #expect(try await api.send(.post, APIPath.submissions, token: owner, json: mine).status == .created)
            let received = try await api.send(.get, APIPath.responses("quiz-1"), token: teacher).decode(ReceivedResponses.self)
            #expect(received.submissions.map(\.user) == ["student"])
        }
    }

    @Test("login timing: an unknown name runs a full derivation like a known one, so names cannot be enumerated", arguments: Backend.all)
    func userEnumerationByTiming(backend: Backend) async throws {
        var harness = try await ServerHarness(backend)
        harness.configuration.passwordIterations = 200_000
        harness.configuration.freeLoginFailures = 100
        harness.configuration.freeLoginFailuresPerAddress = 100
        let hashing = try PasswordHashingPool(threads: 2, iterations: 200_000)
        harness.hashing = hashing
        try await harness.storage.updatePassword(
            PasswordHasher.makeRecord(name: "student", role: .student, password: TestVault.secret("student-pw"), iterations: 200_000)
        )
        try await harness.test { api in
            func attempt(_ user: String) async throws -> (derivations: Int, time: Duration) {
                let before = hashing.derivationsRun
                let started = ContinuousClock.now
                let reply = try await api.send(.post, APIPath.token, json: TokenRequest(user: user, password: "wrong"))
                #expect(reply.status == .unauthorized)
                return (hashing.derivationsRun - before, ContinuousClock.now - started)
            }
            var known: [Duration] = []
            var unknown: [Duration] = []
            for _ in 0..<5 {
                let mine = try await attempt("student")
                let nobody = try await attempt("nobody-\(UInt32.random(in: 0...UInt32.max))")
                // The property that makes the times equal: the same derivation, at the same cost, on both paths.
                #expect(mine.derivations == 1)
                #expect(nobody.derivations == 1)
                known.append(mine.time)
                unknown.append(nobody.time)
            }
            print("login with a wrong password (200,000 rounds), median of 5: known user \(known.sorted()[2]), unknown user \(unknown.sorted()[2])")
        }
    }

    @Test(
        "failed logins are throttled per name with 429 and a growing Retry-After; old failures are forgotten; a success clears the name",
        arguments: Backend.all
    )
    func passwordGuessing(backend: Backend) async throws {
        var harness = try await ServerHarness(backend)
        harness.configuration.freeLoginFailures = 3
        let clock = harness.clock
        try await harness.test { api in
            func login(_ password: String) async throws -> APIClient.Reply {
                try await api.send(.post, APIPath.token, json: TokenRequest(user: "student", password: password))
            }
            for _ in 0..<3 { #expect(try await login("guess").status == .unauthorized) }
            // The fourth failure blocks for 1 s; while blocked even the right password waits.
            #expect(try await login("guess").status == .unauthorized)
            let blocked = try await login("student-pw")
            #expect(blocked.status == .tooManyRequests)
            #expect(blocked.headers[.retryAfter] == "1")
            #expect(blocked.errorCode == "too_many_attempts")
            clock.advance(by: .milliseconds(1_100))
            // The next failure doubles the wait.
            #expect(try await login("guess").status == .unauthorized)
            let longer = try await login("student-pw")
            #expect(longer.status == .tooManyRequests)
            #expect(longer.headers[.retryAfter] == "2")
            clock.advance(by: .milliseconds(2_100))
            #expect(try await login("student-pw").status == .ok)
            // After a success the name starts again from its free failures.
            for _ in 0..<3 { #expect(try await login("guess").status == .unauthorized) }
            #expect(try await login("student-pw").status == .ok)
            // Failures older than the window (15 minutes) are forgotten.
            for _ in 0..<3 { #expect(try await login("guess").status == .unauthorized) }
            clock.advance(by: .seconds(16 * 60))
            #expect(try await login("guess").status == .unauthorized)
            #expect(try await login("student-pw").status == .ok)
        }
    }

    @Test("a burst of parallel guesses is counted as it starts: past the free failures the rest get 429 without a derivation", arguments: Backend.all)
    func parallelGuessBurst(backend: Backend) async throws {
        var harness = try await ServerHarness(backend)
        harness.configuration.freeLoginFailures = 3
        let hashing = try PasswordHashingPool(threads: 2, iterations: 1_000)
        harness.hashing = hashing
        try await harness.test { api in
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await api.send(.post, APIPath.token, json: TokenRequest(user: "student", password: "guess")).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .unauthorized }.count == 4, "\(statuses)")
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 16)
            #expect(hashing.derivationsRun == 4)
        }
    }

    @Test("one address: many students' typos stay below the address's limit; a flood from it is throttled", arguments: Backend.all)
    func guessingAcrossNames(backend: Backend) async throws {
        var harness = try await ServerHarness(backend)
        harness.configuration.freeLoginFailures = 2
        harness.configuration.freeLoginFailuresPerAddress = 6
        try await harness.test { api in
            func login(_ user: String, _ password: String) async throws -> HTTPResponse.Status {
                try await api.send(.post, APIPath.token, json: TokenRequest(user: user, password: password)).status
            }
            // Six names, one typo each: no name is over its limit and the address is at its own.
            var typos: [HTTPResponse.Status] = []
            for index in 0..<6 { typos.append(try await login("kid-\(index)", "typo")) }
            #expect(typos.allSatisfy { $0 == .unauthorized }, "\(typos)")
            // The next failure from the same address, on a fresh name, blocks the address.
            let seventh = try await login("kid-7", "typo")
            #expect(seventh == .unauthorized)
            let student = try await login("student", "student-pw")
            #expect(student == .tooManyRequests)
        }
    }

    @Test("a login flood runs on the hashing pool: health keeps answering while 8 clients log in at 600,000 rounds", arguments: Backend.all)
    func loginFloodBlocksEventLoop(backend: Backend) async throws {
        var harness = try await ServerHarness(backend)
        harness.configuration.passwordIterations = 600_000
        harness.configuration.freeLoginFailures = 1_000_000
        harness.configuration.freeLoginFailuresPerAddress = 1_000_000
        try await harness.test(.live) { api in
            let port = try #require(api.client.port)
            // Each request on a connection of its own: the test client's single connection would queue them.
            let login = "{\"password\":\"x\",\"user\":\"flood\"}"
            let loginRequest =
                "POST /v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(login.utf8.count)\r\nConnection: close\r\n\r\n"
                + login
            let healthRequest = "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            // The floods run until the probes are done: a count of probes, not a deadline, so a loaded machine that
            // wakes the test late still probes while the floods run.
            let probing = StopFlag()
            let floods = (0..<8).map { _ in
                // Blocking sockets on threads of their own, so they cannot starve the test's cooperative threads.
                let thread = Thread { while !probing.isSet { _ = try? RawSocket.exchange(port: port, loginRequest) } }
                thread.start()
                return thread
            }
            var healthTimes: [Duration] = []
            try await Task.sleep(for: .milliseconds(200))
            for _ in 0..<20 {
                let started = ContinuousClock.now
                #expect(try await RawSocket.offPool { try RawSocket.exchange(port: port, healthRequest) }.hasPrefix("HTTP/1.1 200"))
                healthTimes.append(ContinuousClock.now - started)
                try await Task.sleep(for: .milliseconds(50))
            }
            probing.set()
            while floods.contains(where: { !$0.isFinished }) { try await Task.sleep(for: .milliseconds(50)) }
            healthTimes.sort()
            print(
                "health under a flood of 8 login loops at 600,000 rounds: p50 \(healthTimes[healthTimes.count / 2]), max \(healthTimes.last!) over \(healthTimes.count) probes"
            )
        }
    }

    @Test("older password hashes are raised to the current cost at the next successful login", arguments: Backend.all)
    func weakStoredHash(backend: Backend) async throws {
        var harness = try await ServerHarness(backend)
        harness.configuration.passwordIterations = 2_000
        let storage = harness.storage
        try await harness.test { api in
            #expect(try await storage.user(named: "student")?.iterations == 1_000)
            _ = try await api.token("student")
            #expect(try await storage.user(named: "student")?.iterations == 2_000)
            _ = try await api.token("student")
        }
    }

    @Test("logout revokes the token on the server; expired tokens are purged", arguments: Backend.all)
    func tokenReuseAfterLogout(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let token = try await api.token("student")
            #expect(try await api.send(.get, APIPath.assessments, token: token).status == .ok)
            #expect(try await api.send(.delete, APIPath.token, token: token).status == .noContent)
            #expect(try await api.send(.get, APIPath.assessments, token: token).status == .unauthorized)
            #expect(try await api.send(.delete, APIPath.token, token: token).status == .unauthorized)

            let stale = PasswordHasher.tokenHash("vt_stale")
            try await harness.storage.storeToken(hash: stale, user: "student", expiresAt: Date(timeIntervalSinceNow: -60))
            #expect(try await harness.storage.tokenOwner(hash: stale, now: .distantPast) != nil)
            _ = try await api.token("student")
            #expect(try await harness.storage.tokenOwner(hash: stale, now: .distantPast) == nil)
        }
    }

    @Test(
        "what the server trusts: received_at and a future answered_at flagged, not_after closes new attempts, no tolerance served, id probing answers like any invalid item",
        arguments: Backend.all
    )
    func trustedClientInput(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let served = try await api.served("quiz-1", token: student)
            #expect(served.questions.allSatisfy { $0.wire.tolerance == nil && $0.wire.answerKey == nil })

            let future = Timestamp.string(Date(timeIntervalSinceNow: 3_600))
            let ahead = Fixtures.item(served, question: "q3", answer: .bool(true), at: future)
            let normal = Fixtures.item(served, question: "q1", answer: .string("b"), at: Timestamp.string(Date()))
            #expect(try await api.batch([ahead, normal], token: student).map(\.status) == [.accepted, .accepted])
            let received = try await api.send(.get, APIPath.responses("quiz-1"), token: teacher).decode(ReceivedResponses.self)
            let byID = Dictionary(uniqueKeysWithValues: received.responses.map { ($0.id, $0) })
            #expect(byID[ahead.id]?.answeredInFuture == true)
            #expect(byID[normal.id]?.answeredInFuture == false)
            #expect(byID[ahead.id]?.receivedAt != nil && byID[ahead.id]?.user == "student")

            // Another user's response id: the same answer as an invalid item, so ids cannot be probed.
            var probe = Fixtures.item(served, question: "q3", answer: .bool(false), id: ahead.id, attempt: "other")
            let probed = try await api.batch([probe], token: try await api.token("student2"))
            probe.id = UUID().uuidString
            probe.questionHash = "forged"
            let invalid = try await api.batch([probe], token: try await api.token("student2"))
            #expect(probed[0].status == .rejected && invalid[0].status == .rejected)
            #expect(probed[0].message == ResponseRules.invalid(probe).message)

            var closed = Fixtures.quiz(id: "closed-1")
            closed.notAfter = "2020-01-01T00:00:00Z"
            try await api.publish(closed, teacher: teacher)
            let closedServed = try await api.served("closed-1", token: student)
            let late = try await api.batch([Fixtures.item(closedServed, question: "q3", answer: .bool(true), attempt: "late")], token: student)
            #expect(late[0].status == .rejected)
            #expect(late[0].message?.contains("closed") == true)
        }
    }

    @Test("a stalled connection (a partial request) is closed after the idle timeout; the server keeps answering", arguments: Backend.all)
    func slowloris(backend: Backend) async throws {
        var harness = try await ServerHarness(backend)
        harness.configuration.idleTimeout = .seconds(1)
        try await harness.test(.live) { api in
            let port = try #require(api.client.port)
            // Health on connections of its own: the test client's keep-alive connection would itself be closed
            // by a 1 s idle timeout while this test waits.
            let health = "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            let socket = try RawSocket(port: port)
            socket.send("POST /v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"user\"")
            let started = ContinuousClock.now
            #expect(try await RawSocket.offPool { try RawSocket.exchange(port: port, health) }.hasPrefix("HTTP/1.1 200"))
            let closed = try await RawSocket.offPool { socket.waitForClose(seconds: 10) }
            #expect(closed, "the stalled connection stayed open")
            print("stalled connection closed after \(ContinuousClock.now - started)")
            #expect(try await RawSocket.offPool { try RawSocket.exchange(port: port, health) }.hasPrefix("HTTP/1.1 200"))
        }
    }
}

/// A bare TCP connection for sending partial requests. Its calls block, so async tests run them through `offPool`:
/// a blocked cooperative thread would starve the server under test (its handlers run on the same pool).
final class RawSocket: @unchecked Sendable {
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw VaultError(.io, "connect failed") }
    }

    func send(_ text: String) { _ = text.withCString { write(descriptor, $0, strlen($0)) } }

    /// True when the peer closes within `seconds` (a read returns 0 or an error).
    func waitForClose(seconds: Int) -> Bool {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    /// Sends `request` on a new connection and returns everything the server wrote until it closed.
    static func exchange(port: Int, _ request: String) throws -> String {
        let socket = try RawSocket(port: port)
        socket.send(request)
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket.descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var reply = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(socket.descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            reply.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: reply, as: UTF8.self)
    }

    deinit { close(descriptor) }
}

/// Tells threads of their own to stop.
final class StopFlag: Sendable {
    private let stopped = Atomic<Bool>(false)
    var isSet: Bool { stopped.load(ordering: .relaxed) }
    func set() { stopped.store(true, ordering: .relaxed) }
}

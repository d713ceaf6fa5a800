import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultServer
import VaultSync

/// `login`'s requests over a link that loses them, in front of the real server: every request is tried again on the
/// sync schedule (the sign-in too: it only makes another token), within the command's deadline.
struct RequestRetryTests {
    @Test(
        "the server key is read again after a cut, a lost answer and a 503; the sign-in is sent again after a lost answer, a 503 and a 429; the deadline ends the tries"
    )
    func loginRequests() async throws {
        let server = try await LiveServer()
        try await server.storage.createUser(
            PasswordHasher.makeRecord(name: "ana", role: .student, password: SecretBytes(Array("ana-pw".utf8)), iterations: 1_000),
            now: Date()
        )
        try await server.run { port in
            let transport = AsyncHTTPTransport(baseURL: "http://127.0.0.1:\(port)", connectTimeout: .seconds(30), readTimeout: .seconds(60))
            do {
                try await Self.exercise(transport)
            } catch {
                await transport.shutdown()  // an HTTP client must be shut down on every path
                throw error
            }
            await transport.shutdown()
        }
    }

    static func exercise(_ transport: AsyncHTTPTransport) async throws {
        do {
            let faulty = FaultInjectingTransport(
                inner: transport,
                script: [.unreachable, .lostResponse, .reply(status: 503, headers: [:], body: "{}")]
            )
            let client = ServerClient(transport: faulty)
            let sleeps = RecordedSleeps()
            let retry = RequestRetry(sleep: { try await sleeps.sleep($0) })
            let key = try await retry.run { try await client.serverKey() }
            #expect(!key.fingerprint.isEmpty)
            // 1 s, 2 s, 4 s (each within its 20 % jitter): a server back after two seconds costs two seconds.
            let seconds = sleeps.waits.map(\.inSeconds)
            #expect(
                seconds.count == 3 && (0.8...1.2).contains(seconds[0]) && (1.6...2.4).contains(seconds[1]) && (3.2...4.8).contains(seconds[2]),
                "\(seconds)"
            )

            // The sign-in lost on the way back (the server made a token nobody received), then a 503: sent again, and
            // the third try signs in.
            faulty.script([.lostResponse, .reply(status: 503, headers: [:], body: "{}")])
            let again = try await retry.run { try await client.signIn(user: "ana", password: SecretBytes(Array("ana-pw".utf8))) }
            #expect(again.token.hasPrefix("vt_") && faulty.count("/auth/token") == 3)
            #expect(sleeps.waits.count == 5)
            // A 429 says the server did not read it: sent again after exactly its Retry-After.
            faulty.script([.reply(status: 429, headers: ["retry-after": "2"], body: "{}")])
            let token = try await retry.run { try await client.signIn(user: "ana", password: SecretBytes(Array("ana-pw".utf8))) }
            #expect(token.token.hasPrefix("vt_") && faulty.count("/auth/token") == 5)
            #expect(sleeps.waits.last == .seconds(2))
            // A Retry-After longer than a command waits inline: given up at once, with the server's answer.
            faulty.script([.reply(status: 429, headers: ["retry-after": "600"], body: "{}")])
            await #expect(throws: ServerError.self) {
                _ = try await retry.run { try await client.serverKey() }
            }
            #expect(sleeps.waits.count == 6)
            // Five tries at most: a server that never answers is given up on.
            faulty.script(Array(repeating: .unreachable, count: 6))
            await #expect(throws: ServerError.self) {
                _ = try await retry.run { try await client.serverKey() }
            }
            #expect(sleeps.waits.count == 10)
            // The deadline: with 24.5 s already gone, any wait (0.8 s at its shortest) would end past 25 s, so the first failure
            // is the last.
            let ticks = Ticks()
            let late = RequestRetry(sleep: { try await sleeps.sleep($0) }, now: { ticks.next() })
            faulty.script([.unreachable])
            await #expect(throws: ServerError.self) {
                _ = try await late.run { try await client.serverKey() }
            }
            #expect(sleeps.waits.count == 10)
        }
    }
}

/// A clock for the deadline: the first reading is now, every later one 24.5 s on (so any first wait, 0.8 s at its
/// shortest with jitter, would end past 25 s).
final class Ticks: @unchecked Sendable {
    private let lock = NSLock()
    private var readings = 0
    private let start = ContinuousClock.now

    func next() -> ContinuousClock.Instant {
        lock.lock()
        defer { lock.unlock() }
        readings += 1
        return readings == 1 ? start : start + .milliseconds(24_500)
    }
}

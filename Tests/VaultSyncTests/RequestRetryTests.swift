import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultServer
import VaultSync

/// `login`'s requests over a link that loses them, in front of the real server: read-only and idempotent requests are
/// tried again on the sync schedule; the password is sent again only when the server said it did not read it.
struct RequestRetryTests {
    @Test("the server key is read again after a cut, a lost answer and a 503; the password is never sent twice over a request that may have arrived")
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
            let key = try await retry.run(.idempotent) { try await client.serverKey() }
            #expect(!key.fingerprint.isEmpty)
            // 1 s, 2 s, 4 s (each within its 20 % jitter): a server back after two seconds costs two seconds.
            let seconds = sleeps.waits.map(\.inSeconds)
            #expect(
                seconds.count == 3 && (0.8...1.2).contains(seconds[0]) && (1.6...2.4).contains(seconds[1]) && (3.2...4.8).contains(seconds[2]),
                "\(seconds)"
            )

            // The password's request lost on the way back (it may have been read): not sent again.
            faulty.script([.lostResponse])
            await #expect(throws: ServerError.self) {
                _ = try await retry.run(.carriesPassword) { try await client.signIn(user: "ana", password: SecretBytes(Array("ana-pw".utf8))) }
            }
            #expect(faulty.count("/auth/token") == 1)
            // A 503 or a timeout before it: not sent again either.
            faulty.script([.reply(status: 503, headers: [:], body: "{}")])
            await #expect(throws: ServerError.self) {
                _ = try await retry.run(.carriesPassword) { try await client.signIn(user: "ana", password: SecretBytes(Array("ana-pw".utf8))) }
            }
            #expect(faulty.count("/auth/token") == 2)
            // A 429 says the server did not read it: sent again after exactly its Retry-After.
            faulty.script([.reply(status: 429, headers: ["retry-after": "2"], body: "{}")])
            let token = try await retry.run(.carriesPassword) { try await client.signIn(user: "ana", password: SecretBytes(Array("ana-pw".utf8))) }
            #expect(token.token.hasPrefix("vt_") && faulty.count("/auth/token") == 4)
            #expect(sleeps.waits.last == .seconds(2))
            // A Retry-After longer than a command waits inline: given up at once, with the server's answer.
            faulty.script([.reply(status: 429, headers: ["retry-after": "600"], body: "{}")])
            await #expect(throws: ServerError.self) {
                _ = try await retry.run(.idempotent) { try await client.serverKey() }
            }
            #expect(sleeps.waits.count == 4)
            // Five tries at most: a server that never answers is given up on.
            faulty.script(Array(repeating: .unreachable, count: 6))
            await #expect(throws: ServerError.self) {
                _ = try await retry.run(.idempotent) { try await client.serverKey() }
            }
            #expect(sleeps.waits.count == 8)
        }
    }
}

import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultServer
import VaultSync

/// The sign-in body is written byte by byte from the password's wiped buffer: every character a password may hold
/// must reach the server as the same password.
struct SignInTests {
    @Test("passwords with quotes, backslashes, control characters and other scripts sign in over real HTTP")
    func escaping() async throws {
        let server = try await LiveServer()
        let passwords = ["quote\"d", "back\\slash\\", "tab\there\u{1}", "پسورد 密码 🙂", "\\\"\\u0041"]
        for (index, password) in passwords.enumerated() {
            try await server.storage.createUser(
                PasswordHasher.makeRecord(name: "user\(index)", role: .student, password: SecretBytes(Array(password.utf8)), iterations: 1_000),
                now: Date()
            )
        }
        try await server.run { port in
            let transport = AsyncHTTPTransport(baseURL: "http://127.0.0.1:\(port)", connectTimeout: .seconds(30), readTimeout: .seconds(60))
            let client = ServerClient(transport: transport)
            do {
                for (index, password) in passwords.enumerated() {
                    let token = try await client.signIn(user: "user\(index)", password: SecretBytes(Array(password.utf8)))
                    #expect(token.token.hasPrefix("vt_"), "\(password)")
                }
            } catch {
                await transport.shutdown()  // an HTTP client must be shut down on every path
                throw error
            }
            // A near miss is refused, so the check above could fail.
            await #expect(throws: ServerError.self) {
                _ = try await client.signIn(user: "user0", password: SecretBytes(Array("quote'd".utf8)))
            }
            await transport.shutdown()
        }
    }
}

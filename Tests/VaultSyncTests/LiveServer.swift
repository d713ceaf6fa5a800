import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import VaultAPI
import VaultCore
import VaultServer
import VaultSync
import VaultTestSupport

/// The real server on 127.0.0.1 with an ephemeral port, plus a vault and a signed-in client over real HTTP.
struct LiveServer {
    let directory = TemporaryDirectory("vault-sync")
    let storage: SQLiteServerStorage

    init() async throws {
        storage = try SQLiteServerStorage(directory: directory.file("server"))
        for (name, role) in [("student", Role.student), ("teacher", Role.teacher)] {
            try await storage.createUser(
                PasswordHasher.makeRecord(name: name, role: role, password: SecretBytes(Array("\(name)-pw".utf8)), iterations: 1_000),
                now: Date()
            )
        }
    }

    func publish(_ assessment: Assessment) async throws -> Int {
        try await storage.publish(assessment, now: Date()).version
    }

    /// Runs `body` with the server listening; the transport is shut down afterwards.
    func run<T: Sendable>(_ body: @Sendable (_ port: Int) async throws -> T) async throws -> T {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.passwordIterations = 1_000
        var logger = Logger(label: "live")
        logger.logLevel = .critical
        let app = try buildApplication(storage: storage, configuration: configuration, logger: logger)
        return try await app.test(.live) { client in
            try await body(client.port!)
        }
    }

    static func client(port: Int, user: String = "student") async throws -> (ServerClient, AsyncHTTPTransport) {
        // Generous timeouts: the suite runs a hundred tests at once on two cores (the sync engine's own handling of
        // timeouts is tested with fault-injecting transports).
        let transport = AsyncHTTPTransport(baseURL: "http://127.0.0.1:\(port)", connectTimeout: .seconds(30), readTimeout: .seconds(60))
        var client = ServerClient(transport: transport)
        do {
            client.token = try await client.signIn(user: user, password: SecretBytes(Array("\(user)-pw".utf8))).token
        } catch {
            // A client dropped unshut traps, hiding the failure itself.
            await transport.shutdown()
            throw error
        }
        return (client, transport)
    }
}

enum SampleDocuments {
    static func quiz(_ id: String = "quiz", prompt: String = "What is 2 + 3?") -> Assessment {
        Assessment(
            id: id,
            title: "Quiz \(id)",
            teacherContact: "t@school.example",
            questions: [
                Question(
                    id: "q1",
                    type: .singleChoice,
                    prompt: prompt,
                    choices: [Choice(id: "a", text: "4"), Choice(id: "b", text: "5")],
                    answerKey: [.string("b")]
                ),
                Question(id: "q2", type: .trueFalse, prompt: "The sky is blue.", answerKey: [.bool(true)]),
                Question(id: "q3", type: .essay, prompt: "Tell me about your day.", maxLength: 5000),
            ]
        )
    }
}

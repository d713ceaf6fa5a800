import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultTestSupport

/// Shared fixtures of the CLI suites.
enum CLIFixtures {
    /// What the server received for an assessment (the teacher's view), through `vault-server responses --json`.
    static func received(_ server: ServerProcess, _ id: String = "algebra-1") throws -> ReceivedResponses {
        try JSONDecoder().decode(ReceivedResponses.self, from: Data(try server.admin(["responses", id, "--json"]).stdout.utf8))
    }

    /// A vault signed in to a fresh demo server, with `ids` downloaded (none when empty).
    static func downloaded(_ ids: [String] = ["--all"]) throws -> (CLIVault, ServerProcess) {
        let server = try ServerProcess()
        let vault = CLIVault()
        try vault.initialize()
        try vault.run(
            ["login", "--server", server.url, "--user", "demo", "--vault", vault.path, "--password-stdin", "--server-password-stdin"],
            stdin: "pw-1\ndemo-password\n"
        )
        if !ids.isEmpty { #expect(try vault.unlocked(["download"] + ids).status == 0) }
        return (vault, server)
    }

    /// A signed-in vault with algebra-1 downloaded and `answers` recorded through `vault answer`.
    static func prepared(
        answers: [(String, String)] = [("q1", "b"), ("q3", "true"), ("q4", "3.14")],
        submit: Bool = true
    ) throws -> (CLIVault, ServerProcess) {
        let (vault, server) = try downloaded(["algebra-1"])
        for (question, value) in answers { #expect(try vault.answer("algebra-1", question, value).status == 0) }
        if submit { #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0) }
        return (vault, server)
    }
}

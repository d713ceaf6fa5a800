import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Shared fixtures of the CLI suites.
enum CLIFixtures {
    /// A signed-in vault with algebra-1 downloaded and `answers` recorded through `vault answer`.
    static func prepared(
        answers: [(String, String)] = [("q1", "b"), ("q3", "true"), ("q4", "3.14")],
        submit: Bool = true
    ) throws -> (CLIVault, ServerProcess) {
        let server = try ServerProcess()
        let vault = CLIVault()
        try vault.initialize()
        try vault.run(
            ["login", "--server", server.url, "--user", "demo", "--vault", vault.path, "--password-stdin", "--server-password-stdin"],
            stdin: "pw-1\ndemo-password\n"
        )
        #expect(try vault.unlocked(["download", "algebra-1"]).status == 0)
        for (question, value) in answers { #expect(try vault.answer("algebra-1", question, value).status == 0) }
        if submit { #expect(try vault.unlocked(["submit", "algebra-1"]).status == 0) }
        return (vault, server)
    }
}

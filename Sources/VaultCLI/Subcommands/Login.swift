import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultSync

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign in to a server; the address and token are kept inside the encrypted vault.",
        discussion: "The server password comes from --server-password-stdin, $VAULT_SERVER_PASSWORD_FILE, or a prompt."
    )

    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Option(help: "The server, e.g. http://127.0.0.1:8080 (default: the one used last).") var server: String?
    @Option(help: "Your user name on the server (default: the one used last).") var user: String?
    @Flag(help: "Read the server password from a line of stdin (after the vault password when both are there).")
    var serverPasswordStdin = false

    func run() async throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let previous = try vault.account()
        guard let server = server ?? previous?.serverURL, let user = user ?? previous?.user else {
            throw ValidationError("Give --server URL and --user NAME the first time.")
        }
        let password = try PasswordReader.read(
            fromStdin: serverPasswordStdin,
            fileVariable: "VAULT_SERVER_PASSWORD_FILE",
            environment: ProcessInfo.processInfo.environment,
            prompt: "Server password for \(user): ",
            confirm: false,
            flag: "--server-password-stdin"
        )
        let token = try await NetworkSession.with(vault: vault, serverURL: server) { session in
            try await session.client.signIn(user: user, password: password)
        }
        try vault.saveAccount(
            Account(
                serverURL: server,
                user: user,
                token: token.token,
                tokenExpiresAt: Timestamp.date(token.expiresAt),
                role: token.role.rawValue
            )
        )
        context.console.line("Signed in to \(server) as \(user).")
        context.console.emit(["server": server, "user": user, "expires_at": token.expiresAt])
    }
}

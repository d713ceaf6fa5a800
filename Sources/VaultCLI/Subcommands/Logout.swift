import ArgumentParser
import Foundation
import VaultCore
import VaultLanguage
import VaultSync

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign out: revoke the token on the server when it can be reached, and forget it here (answers not yet uploaded stay)."
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources

    func run() async throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        var revoked = false
        if try vault.account()?.token != nil {
            // Best effort: offline, the token is still forgotten here and expires on the server by itself.
            revoked = (try? await NetworkSession.with(vault: vault) { session in try await session.client.signOut() }) != nil
        }
        try vault.forgetToken()
        context.console.line(
            revoked
                ? tr("Signed out; the server no longer accepts this sign-in. Your saved work stays in the vault; `vault login` signs in again.")
                : tr(
                    "Signed out here. The server could not be reached, so its copy of the sign-in expires by itself. Your saved work stays in the vault."
                )
        )
        context.console.emit(["signed_out": true, "revoked_on_server": revoked])
    }
}

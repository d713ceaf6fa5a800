import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Forget the session key `vault unlock` kept: the next command asks for the password.")
    @OptionGroup var globals: GlobalOptions

    func run() throws {
        let context = CommandContext(globals)
        // The vault id is in the key file, in plain text: locking needs no password.
        let vaultID = try Vault.vaultID(paths: context.paths)
        let removed = SessionKeyring.remove(vaultID: vaultID)
        context.console.line(removed ? tr("Locked: the next command asks for the password.") : tr("The vault was not unlocked."))
        context.console.emit(["locked": true, "was_unlocked": removed])
    }
}

import ArgumentParser
import VaultCore
import VaultLanguage

struct Passwd: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change the vault password (re-wraps the data key; nothing is re-encrypted).",
        discussion: "With both --password-stdin and --new-password-stdin, stdin holds the current password, then the new one."
    )

    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources

    @OptionGroup var kdf: KDFOptions

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials, allowSession: false)
        let newPassword = try PasswordReader.new(credentials)
        let current = vault.keyFile.slots.first { $0.id == vault.unlockedSlot }
        try vault.changePassword(to: newPassword, iterations: kdf.iterations(keeping: current?.kdf.iterations))
        context.console.line(tr("The password was changed."))
        context.console.emit(["changed": true])
    }
}

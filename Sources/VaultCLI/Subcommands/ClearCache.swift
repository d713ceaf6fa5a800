import ArgumentParser
import VaultCore

struct ClearCache: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear-cache",
        abstract: "Remove every cached assessment that holds no unsaved or unsent work."
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        try EvictionOutput.print(try vault.evict(ids: [], expired: false, synced: false, all: true), console: context.console)
    }
}

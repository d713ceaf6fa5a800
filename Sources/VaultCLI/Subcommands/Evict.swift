import ArgumentParser
import VaultCore
import VaultLanguage

struct Evict: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove cached assessments; never one with an open attempt or answers not uploaded."
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Flag(help: "Every expired assessment.") var expired = false
    @Flag(help: "Every assessment whose attempt is uploaded.") var synced = false
    @Argument(help: "Assessment ids.") var ids: [String] = []

    func validate() throws {
        guard expired || synced || !ids.isEmpty else { throw ValidationError(tr("Name assessment ids, or use --expired or --synced.")) }
    }

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        try EvictionOutput.print(try vault.evict(ids: ids, expired: expired, synced: synced), console: context.console)
    }
}

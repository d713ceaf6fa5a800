import ArgumentParser
import VaultCore
import VaultLanguage

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the key file, every database page and every stored assessment."
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let report = vault.verify()
        if report.ok {
            context.console.line(tr("The vault is intact: key file, database pages and stored assessments all check out."))
        } else {
            context.console.line(tr("The vault has problems:"))
            for problem in report.problems { context.console.line(Language.marked("  - " + problem)) }
        }
        context.console.emit(report)
        if !report.ok { throw CommandExit(code: VaultExit.badData) }
    }
}

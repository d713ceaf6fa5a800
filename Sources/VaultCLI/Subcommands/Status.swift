import ArgumentParser
import VaultCore

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Connectivity as last seen, answers waiting to upload, dead letters, conflicts, last sync.")
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var passwords: PasswordOptions

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(passwords)
        let report = try vault.status()
        let console = context.console
        console.line("Connection (last seen): \(report.connectivity)")
        console.line("Answers waiting to upload: \(report.pendingAnswers)")
        console.line("Submissions waiting to upload: \(report.pendingSubmissions)")
        console.line("Dead letters: \(report.deadLetters)")
        console.line("Conflicts to decide: \(report.conflicts)")
        console.line("Last sync: \(report.lastSyncAt ?? "never")")
        console.emit(report)
        if report.deadLetters > 0 || report.conflicts > 0 { throw CommandExit(code: VaultExit.attention) }
    }
}

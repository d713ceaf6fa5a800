import ArgumentParser
import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

struct Take: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Complete an assessment in the terminal; every answer is saved as you go.",
        discussion:
            "Type an answer and press Enter. Enter alone or > goes on, < goes back, #N jumps, ! flags, :r reviews, :s submits, :q leaves (everything is kept), ? shows help. Without a terminal the same lines are read from stdin."
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @OptionGroup var startCode: StartCodeSource
    @Argument(help: "The assessment id.") var id: String
    @Flag(help: "Plain output for scripts: no screen clearing, no live countdown.") var nonInteractive = false

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        try startCode.unsealIfSealed(vault, id: id, console: context.console)
        let interactive = !nonInteractive && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        let screen = try TakeScreen(vault: vault, assessmentID: id, console: context.console, interactive: interactive, clock: ContinuousClock())
        try screen.run()
    }
}

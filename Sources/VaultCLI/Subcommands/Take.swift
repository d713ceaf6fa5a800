import ArgumentParser
import Foundation
import VaultCore
import VaultLanguage
import VaultTake
import VaultTerminal

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

struct Take: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: tr("Complete an assessment in the terminal; every answer is saved as you go."),
        // Written out so it fits 80 columns (the generated one lists every global option on one line).
        usage: "vault take <id> [--accessible] [--yes] [options]",
        discussion: tr(
            "Type an answer and press Enter. Enter alone or > goes on, < goes back, #N jumps, ! flags, :r reviews, :e continues an essay, :s submits, :q leaves (everything is kept), ? shows help. Essays are saved line by line. A timed test asks before its clock starts (--yes for scripts). Without a terminal the same lines are read from stdin."
        )
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @OptionGroup var startCode: StartCodeSource
    @OptionGroup var pictureOptions: PictureOptions
    @Argument(help: ArgumentHelp(tr("The assessment id."))) var id: String
    @Flag(help: ArgumentHelp(tr("Plain output for scripts: no screen clearing, no live countdown."))) var nonInteractive = false
    @Flag(
        help: ArgumentHelp(tr("Screen-reader mode: sentences appended, nothing redrawn (also ACCESSIBLE=1 or `vault config set take.accessible 1`)."))
    )
    var accessible = false
    @Flag(help: ArgumentHelp(tr("Start a timed test's clock without asking."))) var yes = false

    func run() async throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        try startCode.unsealIfSealed(vault, id: id, console: context.console)
        let environment = ProcessInfo.processInfo.environment
        let setting = try vault.settings().value("take.accessible")
        let speaks = accessible || !["", "0"].contains(environment["ACCESSIBLE"] ?? "") || setting == 1
        let interactive = !nonInteractive && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        let attempt = try vault.openAttempt(on: id)
        let started = vault.timeStatus(of: attempt).startedAt != nil
        let session = TakeSession(attempt: attempt, needsStartConfirmation: attempt.timeLimit != nil && !started && !yes)
        let pictures = try pictureOptions.mode(vault: vault, console: context.console, speaks: speaks || !interactive)
        let renderer: any TakeRenderer =
            speaks
            ? AccessibleTakeRenderer()
            : VisualTakeRenderer(
                console: context.console,
                interactive: interactive,
                pictures: pictures,
                pictureColors: PictureColors.from(environment: environment, color: context.console.color)
            )
        // On a terminal the screen reads keys itself (the unfinished line is kept); the screen-reader mode only ever
        // appends what is typed. A pipe gives whole lines.
        var driver = TakeDriver(
            vault: vault,
            session: session,
            renderer: renderer,
            clock: ContinuousClock(),
            readsKeys: interactive,
            appendOnly: speaks
        )
        let status = try await driver.run()
        if status != 0 { throw CommandExit(code: status) }
    }
}

import ArgumentParser
import VaultAPI
import VaultCore
import VaultTake

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Connectivity as last seen, answers waiting to upload, dead letters, conflicts, last sync."
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Flag(help: "Check the server now instead of reporting the last state seen.") var probe = false

    func run() async throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        if probe {
            // The only network use of `status`, and only when asked for.
            _ = try? await NetworkSession.with(vault: vault) { _ in true }
        }
        let report = try vault.status()
        let console = context.console
        console.line("Connection (last seen): \(report.connectivity)")
        console.line("Answers waiting to upload: \(report.pendingAnswers)")
        console.line("Submissions waiting to upload: \(report.pendingSubmissions)")
        console.line("Dead letters: \(report.deadLetters)")
        console.line("Conflicts to decide: \(report.conflicts)")
        console.line("Last sync: \(report.lastSyncAt.map { ReadableDate.relative($0) } ?? "never")")
        for (id, left) in try vault.timeLeftOfOpenAttempts().sorted(by: { $0.key < $1.key }) {
            console.line("\(id): in progress, \(TakeTimeText.short(left)) left (the clock runs whether the test is open or not).")
        }
        for item in try vault.cachedAssessments() where item.attemptState == .notStarted {
            console.line("\(item.id): not started; its clock starts when you answer yes to `vault take \(item.id)`.")
        }
        if let until = report.unlockedUntil.flatMap(Timestamp.date) {
            let place = report.sessionKeyring == SessionKeyring.Keyring.loginSession.rawValue ? "login session" : "user keyring"
            console.line("Unlocked until \(ReadableDate.clock(until)) (key in your \(place)); `vault lock` locks it now.")
        } else {
            console.line("Locked: commands ask for the password (`vault unlock` keeps it open for a while).")
        }
        console.emit(report)
        if report.deadLetters > 0 || report.conflicts > 0 { throw CommandExit(code: VaultExit.attention) }
    }
}

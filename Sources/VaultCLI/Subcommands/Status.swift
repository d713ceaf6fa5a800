import ArgumentParser
import VaultAPI
import VaultCore
import VaultLanguage
import VaultSync

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
        console.line(tr("Connection (last seen): {state}", ["state": Self.connectivity(report.connectivity)]))
        console.line(tr("Answers waiting to upload: {count}", ["count": report.pendingAnswers]))
        console.line(tr("Submissions waiting to upload: {count}", ["count": report.pendingSubmissions]))
        console.line(tr("Dead letters: {count}", ["count": report.deadLetters]))
        console.line(tr("Conflicts to decide: {count}", ["count": report.conflicts]))
        console.line(tr("Last sync: {when}", ["when": report.lastSyncAt.map { ReadableDate.relative($0) } ?? tr("never")]))
        for (id, left) in try vault.timeLeftOfOpenAttempts().sorted(by: { $0.key < $1.key }) {
            console.line(
                tr("{id}: in progress, {left} left (the clock runs whether the test is open or not).", ["id": id, "left": TakeTimeText.short(left)])
            )
        }
        for item in CachedAssessment.oneEach(try vault.cachedAssessments()) where item.attemptState == .notStarted {
            console.line(tr("{id}: not started; its clock starts when you answer yes to `vault take {id}`.", ["id": item.id]))
        }
        if let until = report.unlockedUntil.flatMap(Timestamp.date) {
            let until = ReadableDate.clock(until)
            console.line(
                report.sessionKeyring == SessionKeyring.Keyring.loginSession.rawValue
                    ? tr("Unlocked until {time} (key in your login session); `vault lock` locks it now.", ["time": until])
                    : tr("Unlocked until {time} (key in your user keyring); `vault lock` locks it now.", ["time": until])
            )
        } else {
            console.line(tr("Locked: commands ask for the password (`vault unlock` keeps it open for a while)."))
        }
        console.emit(report)
        if report.deadLetters > 0 || report.conflicts > 0 { throw CommandExit(code: VaultExit.attention) }
    }

    /// The last seen connection in words (`--json` keeps the state's name).
    static func connectivity(_ state: String) -> String {
        switch ConnectivityState(rawValue: state) {
        case .online: tr("online")
        case .offline: tr("offline")
        case .degraded: tr("reachable but not answering properly")
        case .unknown, nil: tr("not known yet")
        }
    }
}

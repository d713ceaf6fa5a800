import ArgumentParser
import VaultAPI
import VaultCore
import VaultLanguage
import VaultTerminal

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Downloaded assessments with their attempt state and answers waiting to upload.")
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let items = CachedAssessment.oneEach(try vault.cachedAssessments())
        // Too wide for the terminal: size goes first, then the version, then the expiry (the state stays), then the title is cut.
        var table = TextTable([tr("ID"), tr("TITLE"), tr("VER"), tr("SIZE"), tr("EXPIRES"), tr("ATTEMPT")], flexible: 1, droppable: [3, 2, 4])
        let timeLeft = try vault.timeLeftOfOpenAttempts()
        let narrow = DisplayWidth.terminalColumns < 110
        for item in items {
            let expiry = item.expired ? tr("expired") : ReadableDate.relative(item.expiresAt, short: narrow)
            let origin = item.source == .file ? [Self.fromFile(item)] : []
            let attempt =
                item.sealed
                ? Language.listed([tr("sealed")] + origin)
                : Language.listed(
                    [item.attemptState.words] + (timeLeft[item.id].map { [tr("{time} left", ["time": TakeTimeText.short($0)])] } ?? [])
                        + (item.pendingAnswers > 0 ? [tr("{count} to upload", ["count": item.pendingAnswers])] : []) + origin
                )
            table.add([item.id, item.title, Language.number(item.version), Console.bytes(item.sizeBytes), expiry, attempt])
        }
        if !items.isEmpty { context.console.table(table) }
        // When a sealed exam opens, on a line of its own: in the table it would squeeze the titles on a terminal.
        for item in items where item.sealed {
            context.console.line(StartCodeSource.sealedLine(id: item.id, opensAt: item.opensAt))
        }
        if items.isEmpty { context.console.line(tr("Nothing downloaded yet. While online, run `vault catalog` and `vault download ID`.")) }
        context.console.emit(["assessments": items])
    }

    /// "from a file, Fri 27 Nov": an assessment that came by package, not by download.
    static func fromFile(_ item: CachedAssessment) -> String {
        tr("from a file, {date}", ["date": Timestamp.date(item.downloadedAt).map(ReadableDate.day) ?? item.downloadedAt])
    }
}

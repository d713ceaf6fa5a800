import ArgumentParser
import VaultCore
import VaultLanguage
import VaultTerminal

struct Storage: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Space used by cached assessments against the limit, and what eviction could remove."
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let report = try vault.storage()
        let console = context.console
        let fraction = report.limitBytes > 0 ? Double(report.usedBytes) / Double(report.limitBytes) : 0
        console.line(
            tr("Cache: {used} of {limit}", ["used": Console.bytes(report.usedBytes), "limit": Console.bytes(report.limitBytes)]) + " "
                + Console.bar(fraction: fraction)
        )
        console.line(tr("Assessments: {count} of at most {limit}", ["count": report.assessments.count, "limit": report.maxAssessments]))
        console.line(tr("Vault files on disk: {size}", ["size": Console.bytes(report.fileBytes)]))
        console.line(tr("Answers not yet uploaded: {count} (never evicted, no size limit)", ["count": report.pendingAnswers]))
        var table = TextTable([tr("ID"), tr("VER"), tr("STORED"), tr("EXPIRES"), tr("EVICTION")], flexible: 4, droppable: [1, 3])
        for entry in report.assessments {
            let note = entry.evictable ? tr("can be evicted") : tr("kept (unsent work)")
            table.add([entry.id, Language.number(entry.version), Console.bytes(entry.storedBytes), ReadableDate.relative(entry.expiresAt), note])
        }
        if !report.assessments.isEmpty { console.table(table) }
        if let first = report.nextEvictions.first {
            console.line(
                tr(
                    "Eviction would remove next: {id} version {version} ({reason}).",
                    ["id": first.id, "version": first.version, "reason": first.reason]
                )
            )
        } else if !report.assessments.isEmpty {
            console.line(tr("Eviction would remove nothing: every assessment holds work in progress or not yet uploaded."))
        }
        console.emit(report)
    }
}

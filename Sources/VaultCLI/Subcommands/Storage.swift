import ArgumentParser
import VaultCore
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
        console.line("Cache: \(Console.bytes(report.usedBytes)) of \(Console.bytes(report.limitBytes)) \(Console.bar(fraction: fraction))")
        console.line("Assessments: \(report.assessments.count) of at most \(report.maxAssessments)")
        console.line("Vault files on disk: \(Console.bytes(report.fileBytes))")
        console.line("Answers not yet uploaded: \(report.pendingAnswers) (never evicted, no size limit)")
        var table = TextTable(["ID", "VER", "STORED", "EXPIRES", "EVICTION"], flexible: 0)
        for entry in report.assessments {
            let note = entry.evictable ? "can be evicted" : "kept (unsent work)"
            table.add([entry.id, "v\(entry.version)", Console.bytes(entry.storedBytes), ReadableDate.relative(entry.expiresAt), note])
        }
        if !report.assessments.isEmpty { for line in table.render() { console.line(line) } }
        if let first = report.nextEvictions.first {
            console.line("Eviction would remove next: \(first.id) v\(first.version) (\(first.reason)).")
        } else if !report.assessments.isEmpty {
            console.line("Eviction would remove nothing: every assessment holds work in progress or not yet uploaded.")
        }
        console.emit(report)
    }
}

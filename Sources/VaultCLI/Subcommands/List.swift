import ArgumentParser
import VaultCore

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Downloaded assessments with their attempt state and answers waiting to upload.")
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let items = try vault.cachedAssessments()
        for item in items {
            let expiry = item.expired ? context.console.yellow("expired") : "expires \(item.expiresAt)"
            let pending = item.pendingAnswers > 0 ? ", \(item.pendingAnswers) answers to upload" : ""
            context.console.line("\(item.id)  \(item.title)  v\(item.version)  \(Console.bytes(item.sizeBytes))  \(expiry)  attempt: \(item.attemptState)\(pending)")
        }
        if items.isEmpty { context.console.line("Nothing downloaded yet. While online, run `vault catalog` and `vault download ID`.") }
        context.console.emit(["assessments": items])
    }
}

struct Evict: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove cached assessments; never one with an open attempt or answers not uploaded.")
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Flag(help: "Every expired assessment.") var expired = false
    @Flag(help: "Every assessment whose attempt is uploaded.") var synced = false
    @Argument(help: "Assessment ids.") var ids: [String] = []

    func validate() throws {
        guard expired || synced || !ids.isEmpty else { throw ValidationError("Name assessment ids, or use --expired or --synced.") }
    }

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        try EvictionOutput.print(try vault.evict(ids: ids, expired: expired, synced: synced), console: context.console)
    }
}

struct ClearCache: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear-cache", abstract: "Remove every cached assessment that holds no unsaved or unsent work.")
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        try EvictionOutput.print(try vault.evict(ids: [], expired: false, synced: false, all: true), console: context.console)
    }
}

enum EvictionOutput {
    static func print(_ report: EvictionReport, console: Console) throws {
        if !report.evicted.isEmpty {
            console.line("Removed \(report.evicted.joined(separator: ", ")) (\(Console.bytes(report.freedBytes)) freed).")
        }
        for kept in report.kept { console.line("Kept \(kept.id): \(kept.reason).") }
        if report.evicted.isEmpty, report.kept.isEmpty { console.line("Nothing to remove.") }
        console.emit(report)
        if !report.kept.isEmpty { throw CommandExit(code: VaultExit.attention) }
    }
}

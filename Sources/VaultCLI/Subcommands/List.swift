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
            context.console.line(
                "\(item.id)  \(item.title)  v\(item.version)  \(Console.bytes(item.sizeBytes))  \(expiry)  attempt: \(item.attemptState)\(pending)"
            )
        }
        if items.isEmpty { context.console.line("Nothing downloaded yet. While online, run `vault catalog` and `vault download ID`.") }
        context.console.emit(["assessments": items])
    }
}

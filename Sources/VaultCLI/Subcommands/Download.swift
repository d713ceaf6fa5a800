import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultModel
import VaultSync

struct Download: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Fetch assessments for offline use.")
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Argument(help: "Assessment ids from `vault catalog`.") var ids: [String] = []
    @Option(help: "Download the next N offered assessments not yet here.") var next: Int?
    @Flag(help: "Download everything offered.") var all = false

    func validate() throws {
        let modes = [!ids.isEmpty, next != nil, all].filter { $0 }.count
        guard modes == 1 else { throw ValidationError(tr("Name assessment ids, or use --next N, or --all.")) }
        if let next, next < 1 || next > 500 { throw ValidationError(tr("--next takes a number from 1 to 500.")) }
        for id in ids where !AssessmentValidator.isValidID(id) {
            throw ValidationError(tr("{id} is not an assessment id (a-z, 0-9 and '-'). `vault catalog` lists them.", ["id": id]))
        }
    }

    struct Result: Encodable {
        let id: String
        let version: Int
        let status: String
        let evicted: [String]
        /// The attempt begun on another device that this one continues now.
        var continued: String?
    }

    func run() async throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let results = try await NetworkSession.with(vault: vault) { session in
            var wanted = ids
            if next != nil || all {
                let catalog = try await session.client.catalog()
                wanted = all ? catalog.map(\.id) : Downloader.next(next ?? 0, catalog: catalog, cached: try vault.cachedAssessments())
            }
            let downloader = Downloader(client: session.client, vault: vault)
            var results: [Result] = []
            for id in wanted {
                let bar = ProgressBar(label: tr("Downloading {id}", ["id": id]), console: context.console)
                let outcome = try await downloader.download(id) { done, total in bar.update(done, of: total) }
                bar.finish()
                switch outcome {
                case .stored(let id, let version, let evicted, _):
                    context.console.line(tr("{id} (version {version}) is available offline.", ["id": id, "version": version]))
                    if !evicted.isEmpty {
                        context.console.line("  " + tr("To make room, removed from the cache: {ids}.", ["ids": evicted.joined(separator: ", ")]))
                    }
                    results.append(Result(id: id, version: version, status: "downloaded", evicted: evicted, continued: nil))
                case .alreadyCurrent(let id, let version):
                    context.console.line(tr("{id} (version {version}) is already available offline and up to date.", ["id": id, "version": version]))
                    results.append(Result(id: id, version: version, status: "current", evicted: [], continued: nil))
                }
                // An attempt begun on another device is continued here, never started again.
                do {
                    if let continuation = try await downloader.continueAttempt(id) {
                        let title = (try? vault.loadAssessment(id: id, allowSealed: true).assessment.title) ?? id
                        if let sentence = Vault.continuationSentence(continuation, title: title) { context.console.line(sentence) }
                        if case .continued(let attemptID, _, _, _, _) = continuation { results[results.count - 1].continued = attemptID }
                    }
                } catch {
                    // The copy is stored; only the look for an attempt begun elsewhere failed (said, not fatal).
                    let why = VaultExit.vaultError(for: error)?.message ?? "the server's answer could not be read."
                    context.console.line(tr("Could not check whether you started {id} on another device: {why}", ["id": id, "why": why]))
                }
            }
            return results
        }
        if results.isEmpty { context.console.line(tr("Nothing new to download.")) }
        context.console.emit(["downloads": results])
    }
}

import ArgumentParser
import Foundation
import VaultCore
import VaultSync

#if canImport(Glibc)
import Glibc
#endif

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Upload saved answers and submissions in batches, exactly once, then refresh what changed.",
        discussion: "Exit 0 when everything is up; 3 when a conflict or dead letter waits for you; 75 when the network stopped it midway (everything is kept and will be retried); 69 when offline.")
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Option(help: "What to do when an assessment changed under your answers: ask, submit, discard or keep.")
    var onConflict: ConflictMode = .ask
    @Option(help: "Answers per upload batch (1-500; default: sync.batch_size).") var batchSize: Int?
    @Flag(help: "Keep running: wait for the server, drain the queue on the retry schedule, exit when it is empty.") var watch = false
    @Flag(help: "With --watch: keep watching after the queue is empty.") var forever = false

    enum ConflictMode: String, ExpressibleByArgument, CaseIterable { case ask, submit, discard, keep }

    func validate() throws {
        if let batchSize, !(1...500).contains(batchSize) { throw ValidationError("--batch-size takes a number from 1 to 500.") }
        if forever && !watch { throw ValidationError("--forever goes with --watch.") }
    }

    func run() async throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let settings = try vault.settings()
        var options = SyncEngine.Options()
        options.batchSize = batchSize ?? settings.batchSize
        options.maxBatchBytes = settings.maxBatchBytes
        options.maxTries = settings.value("sync.max_tries")
        let resolver: any ConflictResolver = switch onConflict {
        case .ask: isatty(STDIN_FILENO) == 1 && !globals.json ? ConflictPrompt() : FixedConflictPolicy(.keep)
        case .submit: FixedConflictPolicy(.submit)
        case .discard: FixedConflictPolicy(.discard)
        case .keep: FixedConflictPolicy(.keep)
        }
        let report: SyncReport
        do {
            report = watch
                ? try await SyncWatcher(vault: vault, options: options, resolver: resolver, console: context.console, logger: context.logger, forever: forever).run()
                : try await NetworkSession.with(vault: vault) { session in
                    try await Self.syncOnce(session: session, vault: vault, options: options, resolver: resolver, console: context.console, logger: context.logger)
                }
        } catch let stopped as SyncStopped {
            SyncOutput.print(stopped.report, console: context.console)
            let when = stopped.nextTryAt.map { " The next try is due at \(Timestamp.string($0))." } ?? ""
            throw VaultError(
                .temporary,
                "Sync stopped before everything was uploaded: \(stopped.reason.vaultError.message) \(stopped.report.remaining) items wait in the queue and nothing was lost.\(when)")
        }
        SyncOutput.print(report, console: context.console)
        if report.needsAttention { throw CommandExit(code: VaultExit.attention) }
    }

    static func syncOnce(
        session: NetworkSession, vault: Vault, options: SyncEngine.Options, resolver: any ConflictResolver, console: Console, logger: Logging.Logger
    ) async throws -> SyncReport {
        let engine = SyncEngine(
            vault: vault, client: session.client, options: options, resolver: resolver,
            downloader: Downloader(client: session.client, vault: vault), logger: logger)
        let bar = ProgressBar(label: "Uploading", console: console)
        engine.progress = { done, total in bar.update(done, of: total) }
        defer { bar.finish() }
        return try await engine.run()
    }
}

import Logging

/// `sync --watch`: waits for the server, drains the queue on the retry schedule, exits when it is empty.
struct SyncWatcher {
    let vault: Vault
    let options: SyncEngine.Options
    let resolver: any ConflictResolver
    let console: Console
    let logger: Logger
    let forever: Bool

    func run() async throws -> SyncReport {
        var options = options
        options.ignoreBackoff = false
        options.maxInlineWait = .seconds(1_800)
        var total = SyncReport()
        var pause: Duration = .seconds(5)
        while true {
            do {
                let report = try await NetworkSession.with(vault: vault) { session in
                    try await Sync.syncOnce(session: session, vault: vault, options: options, resolver: resolver, console: console, logger: logger)
                }
                total.uploaded += report.uploaded
                total.duplicates += report.duplicates
                total.superseded += report.superseded
                total.submitted += report.submitted
                total.receipts += report.receipts
                total.gone += report.gone
                total.conflicts = report.conflicts
                total.deadLetters = report.deadLetters
                total.remaining = report.remaining
                pause = .seconds(5)
                if report.remaining == 0 && !forever { return total }
            } catch let error as VaultError where error.code == .offline || error.code == .temporary {
                console.warn("The server cannot be reached; trying again in \(pause.components.seconds) s. Your work is saved.")
            } catch let stopped as SyncStopped {
                total.remaining = stopped.report.remaining
            }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(300))
        }
    }
}

enum SyncOutput {
    static func print(_ report: SyncReport, console: Console) {
        console.line("Uploaded \(report.uploaded) answers (\(report.duplicates) already there, \(report.superseded) replaced by later answers); \(report.submitted) submissions confirmed.")
        for receipt in report.receipts { console.line("  Receipt from the server: \(receipt)") }
        if report.conflicts > 0 { console.line(console.yellow("\(report.conflicts) answers wait for your decision: the assessment changed. Run `vault sync` in a terminal to decide.")) }
        if report.gone > 0 { console.line("\(report.gone) items belong to assessments that are no longer available; they are kept as dead letters.") }
        if report.deadLetters > 0 { console.line(console.yellow("\(report.deadLetters) uploads gave up and are kept as dead letters: see `vault dead-letters list`.")) }
        if !report.refreshed.isEmpty { console.line("Downloaded newer versions of: \(report.refreshed.joined(separator: ", ")).") }
        console.line(report.remaining == 0 ? "Everything is uploaded." : "\(report.remaining) items still wait in the queue.")
        console.emit(report)
    }
}

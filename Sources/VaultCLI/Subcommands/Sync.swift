import ArgumentParser
import Foundation
import Logging
import VaultAPI
import VaultCore
import VaultLanguage
import VaultSync

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Upload saved answers and submissions in batches, exactly once, then refresh what changed.",
        discussion:
            "Exit 0 only when everything is up (nothing queued, nothing unconfirmed); 3 when a conflict or dead letter waits for you; 75 when anything is still queued (the network stopped it midway, or a retry is not due yet: everything is kept and will be retried); 69 when offline."
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Option(help: "What to do when an assessment changed under your answers: ask, submit, discard or keep.")
    var onConflict: ConflictMode = .ask
    @Option(help: "Answers per upload batch (1-500; default: sync.batch_size).") var batchSize: Int?
    @Flag(help: "Keep running: wait for the server, drain the queue on the retry schedule, exit when it is empty.") var watch = false
    @Flag(help: "With --watch: keep watching after the queue is empty.") var forever = false

    enum ConflictMode: String, ExpressibleByArgument, CaseIterable { case ask, submit, discard, keep }

    func validate() throws {
        if let batchSize, !(1...500).contains(batchSize) { throw ValidationError(tr("--batch-size takes a number from 1 to 500.")) }
        if forever && !watch { throw ValidationError(tr("--forever goes with --watch.")) }
    }

    func run() async throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let settings = try vault.settings()
        var options = SyncEngine.Options()
        options.batchSize = batchSize ?? settings.batchSize
        options.maxBatchBytes = settings.maxBatchBytes
        options.maxTries = settings.value("sync.max_tries")
        let resolver: any ConflictResolver =
            switch onConflict {
            case .ask: isatty(STDIN_FILENO) == 1 && !globals.json ? ConflictPrompt() : FixedConflictPolicy(.keep)
            case .submit: FixedConflictPolicy(.submit)
            case .discard: FixedConflictPolicy(.discard)
            case .keep: FixedConflictPolicy(.keep)
            }
        let report: SyncReport
        do {
            report =
                watch
                ? try await SyncWatcher(
                    vault: vault,
                    options: options,
                    resolver: resolver,
                    console: context.console,
                    logger: context.logger,
                    forever: forever
                ).run()
                : try await NetworkSession.with(vault: vault) { session in
                    try await Self.syncOnce(
                        session: session,
                        vault: vault,
                        options: options,
                        resolver: resolver,
                        console: context.console,
                        logger: context.logger
                    )
                }
            // The vault's own figures (issue 59): a sync that ran to the end, or one that did not. Best effort: a count
            // that cannot be written never fails the sync it counts.
            try? vault.count(.syncSuccesses)
        } catch let stopped as SyncStopped {
            try? vault.count(.syncFailures)
            SyncOutput.print(stopped.report, console: context.console)
            let when = stopped.nextTryAt.map { " " + tr("The next try is due at {time}.", ["time": ReadableDate.clock($0)]) } ?? ""
            let waiting = trn(
                "{n} item waits in the queue and nothing was lost.",
                "{n} items wait in the queue and nothing was lost.",
                stopped.report.remaining
            )
            throw VaultError(
                .temporary,
                tr("Sync stopped before everything was uploaded: {why}", ["why": stopped.reason.vaultError.message]) + " " + waiting + when
            )
        } catch {
            // The server could not be reached at all, or refused the vault: a failed sync too.
            try? vault.count(.syncFailures)
            throw error
        }
        SyncOutput.print(report, console: context.console)
        if report.needsAttention { throw CommandExit(code: VaultExit.attention) }
        // Exit 0 only when nothing this run was asked to send is left: an item still queued (its next try not due
        // yet) is a "try again later", never a success a script or a student would trust.
        if report.remaining > 0 {
            let next =
                try vault.nextRetryAt(after: Date()).map {
                    " " + tr("The next try is due at {time}; run `vault sync` again then.", ["time": ReadableDate.clock($0)])
                }
                ?? ""
            throw VaultError(
                .temporary,
                trn(
                    "Not everything is uploaded yet: {n} item waits in the queue and nothing was lost.",
                    "Not everything is uploaded yet: {n} items wait in the queue and nothing was lost.",
                    report.remaining
                ) + next
            )
        }
    }

    static func syncOnce(
        session: NetworkSession,
        vault: Vault,
        options: SyncEngine.Options,
        resolver: any ConflictResolver,
        console: Console,
        logger: Logging.Logger
    ) async throws -> SyncReport {
        let engine = SyncEngine(
            vault: vault,
            client: session.client,
            options: options,
            resolver: resolver,
            downloader: Downloader(client: session.client, vault: vault),
            logger: logger
        )
        let bar = ProgressBar(label: tr("Uploading"), console: console)
        engine.progress = { done, total in bar.update(done, of: total) }
        defer { bar.finish() }
        return try await engine.run()
    }
}

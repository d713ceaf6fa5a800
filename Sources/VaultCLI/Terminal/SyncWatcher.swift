import Foundation
import Logging
import VaultCore
import VaultLanguage
import VaultModel
import VaultSync

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
                console.warn(
                    tr("The server cannot be reached; trying again in {time}. Your work is saved.", ["time": TakeTimeText.spoken(pause)])
                )
            } catch let stopped as SyncStopped {
                total.remaining = stopped.report.remaining
            }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(300))
        }
    }
}

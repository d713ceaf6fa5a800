import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage

/// `vault stats`: what this vault counted of its own use, for the student or the lab's admin to read (and, only when
/// the school turned it on, sent with a sync as counts without ids).
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What this vault counted of its own use: offline work, syncs, conflicts, the cache.",
        discussion:
            "Counts only: no assessment, answer or name. A sync sends the new counts to the server only when the school turned client stats on (vault-server settings set client-stats on)."
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let counts = try vault.clientStats()
        let console = context.console
        func n(_ stat: ClientStat) -> Int { counts[stat] ?? 0 }
        func percent(_ part: Int, _ whole: Int) -> String { whole == 0 ? "" : " (\(Language.number(part * 100 / whole)) %)" }
        console.line(
            tr("Submitted offline: {offline} of {all} attempts", ["offline": n(.attemptsSubmittedOffline), "all": n(.attemptsSubmitted)])
                + percent(n(.attemptsSubmittedOffline), n(.attemptsSubmitted))
        )
        let sessions = n(.offlineSessions)
        console.line(
            trn(
                "Offline sessions: {n}, {time} together",
                "Offline sessions: {n}, {time} together",
                sessions,
                [
                    "time": Self.duration(milliseconds: n(.offlineSessionMilliseconds))
                ]
            )
        )
        let syncs = n(.syncSuccesses) + n(.syncFailures)
        console.line(
            tr("Syncs: {good} succeeded, {bad} failed", ["good": n(.syncSuccesses), "bad": n(.syncFailures)]) + percent(n(.syncSuccesses), syncs)
        )
        console.line(trn("Conflicts: {n} answer waited for a decision", "Conflicts: {n} answers waited for a decision", n(.conflicts)))
        let opened = n(.cacheHits) + n(.cacheMisses)
        console.line(
            tr("Cache: {hits} opened from it, {misses} not there", ["hits": n(.cacheHits), "misses": n(.cacheMisses)])
                + percent(n(.cacheHits), opened)
        )
        console.line(tr("Evictions: {count}", ["count": n(.evictions)]))
        let uploaded = n(.answersUploaded)
        console.line(
            trn(
                "Uploaded: {n} answer, {time} in the queue on average",
                "Uploaded: {n} answers, {time} in the queue on average",
                uploaded,
                [
                    "time": Self.duration(milliseconds: uploaded == 0 ? 0 : n(.queueMilliseconds) / uploaded)
                ]
            )
        )
        console.emit(Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) }))
    }

    /// "3 h 5 min", "4 min", "12 s".
    static func duration(milliseconds: Int) -> String {
        let seconds = milliseconds / 1000
        if seconds < 60 { return tr("{amount} s", ["amount": seconds]) }
        if seconds < 3600 { return tr("{amount} min", ["amount": seconds / 60]) }
        return tr("{hours} h {minutes} min", ["hours": seconds / 3600, "minutes": seconds % 3600 / 60])
    }
}

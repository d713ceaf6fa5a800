import Foundation
import VaultSync

enum SyncOutput {
    static func print(_ report: SyncReport, console: Console) {
        console.line(
            "Uploaded \(report.uploaded) answers (\(report.duplicates) already there, \(report.superseded) replaced by later answers); \(report.submitted) submissions confirmed."
        )
        for receipt in report.receipts { console.line("  Receipt from the server: \(receipt)") }
        if report.conflicts > 0 {
            console.line(
                console.yellow(
                    "\(report.conflicts) answers wait for your decision: the assessment changed. Run `vault sync` in a terminal to decide."
                )
            )
        }
        if report.gone > 0 { console.line("\(report.gone) items belong to assessments that are no longer available; they are kept as dead letters.") }
        if report.deadLetters > 0 {
            console.line(console.yellow("\(report.deadLetters) uploads gave up and are kept as dead letters: see `vault dead-letters list`."))
        }
        if !report.refreshed.isEmpty { console.line("Downloaded newer versions of: \(report.refreshed.joined(separator: ", ")).") }
        console.line(report.remaining == 0 ? "Everything is uploaded." : "\(report.remaining) items still wait in the queue.")
        console.emit(report)
    }
}

import Foundation
import VaultSync
import VaultTake

enum SyncOutput {
    static func print(_ report: SyncReport, console: Console) {
        console.line(
            "Uploaded \(Plural.count(report.uploaded, "answer")) (\(report.duplicates) already there, \(report.superseded) replaced by later answers); \(Plural.count(report.submitted, "submission")) confirmed."
        )
        for receipt in report.receipts { console.line("  Receipt from the server: \(receipt)") }
        for notice in report.notices { console.line(console.yellow(notice)) }
        if report.conflicts > 0 {
            console.line(
                console.yellow(
                    "\(Plural.count(report.conflicts, "answer waits", plural: "answers wait")) for your decision: the assessment changed. Run `vault sync` in a terminal to decide."
                )
            )
        }
        if report.gone > 0 {
            console.line(
                "\(Plural.count(report.gone, "item belongs", plural: "items belong")) to assessments that are no longer available; kept as dead letters."
            )
        }
        if report.deadLetters > 0 {
            console.line(
                console.yellow(
                    "\(Plural.count(report.deadLetters, "upload", plural: "uploads")) gave up and \(report.deadLetters == 1 ? "is" : "are") kept as dead letters: see `vault dead-letters list`."
                )
            )
        }
        if !report.refreshed.isEmpty { console.line("Downloaded newer versions of: \(report.refreshed.joined(separator: ", ")).") }
        for (_, questions) in report.unconfirmed.sorted(by: { $0.key < $1.key }) {
            let list = questions.joined(separator: ", ")
            console.line(
                console.yellow(
                    questions.count == 1
                        ? "The server has not confirmed your answer to question \(list): it is kept here and sent again at the next sync."
                        : "The server has not confirmed your answers to questions \(list): they are kept here and sent again at the next sync."
                )
            )
        }
        // "Everything is uploaded" only when it is true: nothing queued, unconfirmed or given up.
        if report.remaining == 0 && report.unconfirmed.isEmpty && report.deadLetters == 0 {
            console.line("Everything is uploaded.")
        } else if report.remaining > 0 {
            console.line(
                "\(Plural.count(report.remaining, "item still waits", plural: "items still wait")) in the queue; `vault status` shows what and when it is tried again."
            )
        }
        console.emit(report)
    }
}

import Foundation
import VaultLanguage
import VaultSync

enum SyncOutput {
    static func print(_ report: SyncReport, console: Console) {
        console.line(
            // Each count in a phrase of its own, so every language makes its words agree with that number.
            tr(
                "{uploaded} ({duplicates}, {superseded}); {submissions}.",
                [
                    "uploaded": trn("{n} answer uploaded", "{n} answers uploaded", report.uploaded),
                    "duplicates": trn("{n} already there", "{n} already there", report.duplicates),
                    "superseded": trn("{n} replaced by a later answer", "{n} replaced by later answers", report.superseded),
                    "submissions": trn("{n} submission confirmed", "{n} submissions confirmed", report.submitted),
                ]
            )
        )
        for receipt in report.receipts { console.line("  " + tr("Receipt from the server: {receipt}", ["receipt": receipt])) }
        for notice in report.notices { console.line(console.yellow(notice)) }
        if report.conflicts > 0 {
            console.line(
                console.yellow(
                    trn(
                        "{n} answer waits for your decision: the assessment changed. Run `vault sync` in a terminal to decide.",
                        "{n} answers wait for your decision: the assessment changed. Run `vault sync` in a terminal to decide.",
                        report.conflicts
                    )
                )
            )
        }
        if report.gone > 0 {
            console.line(
                trn(
                    "{n} item belongs to assessments that are no longer available; kept as dead letters.",
                    "{n} items belong to assessments that are no longer available; kept as dead letters.",
                    report.gone
                )
            )
        }
        if report.deadLetters > 0 {
            console.line(
                console.yellow(
                    trn(
                        "{n} upload gave up and is kept as dead letters: see `vault dead-letters list`.",
                        "{n} uploads gave up and are kept as dead letters: see `vault dead-letters list`.",
                        report.deadLetters
                    )
                )
            )
        }
        if !report.refreshed.isEmpty { console.line(tr("Downloaded newer versions of: {ids}.", ["ids": report.refreshed.joined(separator: ", ")])) }
        for (_, questions) in report.unconfirmed.sorted(by: { $0.key < $1.key }) {
            let list = questions.joined(separator: ", ")
            console.line(
                console.yellow(
                    questions.count == 1
                        ? tr(
                            "The server has not confirmed your answer to question {questions}: it is kept here and sent again at the next sync.",
                            ["questions": list]
                        )
                        : tr(
                            "The server has not confirmed your answers to questions {questions}: they are kept here and sent again at the next sync.",
                            ["questions": list]
                        )
                )
            )
        }
        for refusal in report.refusedByDistrict { console.line(console.yellow(refusal)) }
        if report.refusedEarlier > 0 {
            console.line(
                trn(
                    "The district refused {n} attempt of yours earlier: `vault receipts` shows why.",
                    "The district refused {n} attempts of yours earlier: `vault receipts` shows why.",
                    report.refusedEarlier
                )
            )
        }
        // "Everything is uploaded" only when it is true: nothing queued, unconfirmed, given up or refused.
        let refused = !report.refusedByDistrict.isEmpty || report.refusedEarlier > 0
        if report.remaining == 0 && report.unconfirmed.isEmpty && report.deadLetters == 0 && !refused {
            console.line(tr("Everything is uploaded."))
        } else if report.remaining > 0 {
            console.line(
                trn(
                    "{n} item still waits in the queue; `vault status` shows what and when it is tried again.",
                    "{n} items still wait in the queue; `vault status` shows what and when it is tried again.",
                    report.remaining
                )
            )
        }
        console.emit(report)
    }
}

import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultTake

#if canImport(Glibc)
import Glibc
#endif

/// Before the questions of a timed assessment are first shown: what it is, how long it takes, and a question.
enum TimedStart {
    /// Describes `assessment` and asks on the terminal whether to start; without a terminal, says how (`--start`).
    static func confirm(_ assessment: Assessment, limitSeconds: Int, console: Console) -> Bool {
        console.line(console.bold(assessment.title))
        if let description = assessment.description { console.line(description) }
        console.line(
            trn(
                "{n} question, {time} to answer it. The time starts when you see the question and keeps running until you submit, even if you leave.",
                "{n} questions, {time} to answer them. The time starts when you see the questions and keeps running until you submit, even if you leave.",
                assessment.questions.count,
                ["time": TakeTimeText.limit(limitSeconds)]
            )
        )
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            console.line(
                tr("Nothing was started. To start now, run the command again with --start, or use `vault take {id}`.", ["id": assessment.id])
            )
            return false
        }
        FileHandle.standardOutput.write(Data((tr("Start now? [y/N]") + " ").utf8))
        guard let reply = readLine(), TakeSession.isYes(reply) else {
            console.line(TakeSession.notStarted)
            return false
        }
        return true
    }
}

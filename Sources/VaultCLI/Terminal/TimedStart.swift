import Foundation
import VaultAPI
import VaultCore
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
            "\(Plural.count(assessment.questions.count, "question")), \(minutes(limitSeconds)) to answer them. The time starts when you see "
                + "the questions and keeps running until you submit, even if you leave."
        )
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            console.line("Nothing was started. To start now, run the command again with --start, or use `vault take \(assessment.id)`.")
            return false
        }
        FileHandle.standardOutput.write(Data("Start now? [y/N] ".utf8))
        guard let reply = readLine()?.trimmingCharacters(in: .whitespaces).lowercased(), reply == "y" || reply == "yes" else {
            console.line("Not started; your time has not begun.")
            return false
        }
        return true
    }

    static func minutes(_ seconds: Int) -> String {
        seconds % 60 == 0 ? "\(seconds / 60) minute\(seconds == 60 ? "" : "s")" : "\(seconds / 60) min \(seconds % 60) s"
    }
}

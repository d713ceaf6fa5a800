import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultModel
import VaultTake

struct Answer: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record one answer without the interactive screen (saved durably before it returns).",
        discussion: """
            The answer is read from standard input (after the password line when --password-stdin is used), or asked \
            for at a prompt on a terminal; never from the command line, where other users see it with `ps` and the \
            shell keeps it in its history file. Single choice: a choice id; multiple choice: ids separated by commas; \
            true/false: true or false; numeric: a decimal number; short text: one line; essay: everything up to the \
            end of input (at a prompt: end with a line holding only a dot, or Ctrl-D).
            """
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @OptionGroup var startCode: StartCodeSource
    @Argument(help: "The assessment id.") var id: String
    @Argument(help: "The question id.") var questionID: String
    /// Only so that an answer typed here is refused with a reason instead of a generic usage error.
    @Argument(help: .hidden) var refusedValue: [String] = []

    func validate() throws {
        guard refusedValue.isEmpty else {
            throw ValidationError(
                tr(
                    "An answer is never taken from the command line: other users can see it with `ps`, and your shell keeps it in its history. Run `vault answer {id} {question}` and type the answer at the prompt, or give it on standard input.",
                    ["id": id, "question": questionID]
                )
            )
        }
    }

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        try startCode.unsealIfSealed(vault, id: id, console: context.console)
        let attempt = try vault.openAttempt(on: id)
        guard let question = attempt.assessment.question(questionID) else {
            let ids = attempt.assessment.questions.map(\.id).joined(separator: ", ")
            throw VaultError(
                .notFound,
                tr("{id} has no question {question}. Its questions are: {ids}.", ["id": id, "question": questionID, "ids": ids])
            )
        }
        // The core refuses an answer past a timed attempt's limit, submitting the attempt, and says so.
        let text = try AnswerInput.read(for: question)
        let parsed = try AnswerParser.parse(text, for: question)
        try vault.recordAnswer(attemptID: attempt.id, questionID: questionID, answer: parsed)
        // The answer as it will be scored, so a number read another way than meant is seen at once (issue 71).
        context.console.line(TakeSession.wholeAnswer(parsed, for: question))
        context.console.line(
            trn(
                "Saved your answer to {id}. {n} question left unanswered.",
                "Saved your answer to {id}. {n} questions left unanswered.",
                attempt.unanswered.filter { $0.id != questionID }.count,
                ["id": questionID]
            )
        )
        context.console.emit(["assessment_id": id, "question_id": questionID, "attempt_id": attempt.id])
    }
}

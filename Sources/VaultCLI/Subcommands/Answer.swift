import ArgumentParser
import Foundation
import VaultAPI
import VaultCore

struct Answer: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record one answer without the interactive screen (saved durably before it returns).",
        discussion: """
            The answer is read from standard input (after the password line when --password-stdin is used), or asked \
            for at a prompt on a terminal; never from the command line, where other users see it with `ps` and the \
            shell keeps it in its history file. Single choice: a choice id; multiple choice: ids separated by commas; \
            true/false: true or false; numeric: a decimal number; short text: one line; essay: everything up to the \
            end of input (at a prompt: end with a line holding only a dot, or Ctrl-D).
            """)
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Argument(help: "The assessment id.") var id: String
    @Argument(help: "The question id.") var questionID: String
    /// Only so that an answer typed here is refused with a reason instead of a generic usage error.
    @Argument(help: .hidden) var refusedValue: [String] = []

    func validate() throws {
        guard refusedValue.isEmpty else {
            throw ValidationError(
                "An answer is never taken from the command line: other users can see it with `ps`, and your shell keeps it in its history. Run `vault answer \(id) \(questionID)` and type the answer at the prompt, or give it on standard input.")
        }
    }

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let attempt = try vault.openAttempt(on: id)
        guard let question = attempt.assessment.question(questionID) else {
            let ids = attempt.assessment.questions.map(\.id).joined(separator: ", ")
            throw VaultError(.notFound, "\(id) has no question \(questionID). Its questions are: \(ids).")
        }
        if let limit = attempt.assessment.timeLimitSeconds, attempt.activeMilliseconds >= limit * 1000 {
            try vault.submitAttempt(attempt.id)
            throw VaultError(.notAllowed, "The time for \(attempt.assessment.title) is up, so it was submitted with the answers saved so far.")
        }
        let text = try AnswerInput.read(for: question)
        let parsed = try AnswerParser.parse(text, for: question)
        try vault.recordAnswer(attemptID: attempt.id, questionID: questionID, answer: parsed)
        context.console.line("Saved your answer to \(questionID). \(attempt.unanswered.filter { $0.id != questionID }.count) questions left unanswered.")
        context.console.emit(["assessment_id": id, "question_id": questionID, "attempt_id": attempt.id])
    }
}

struct Submit: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Finish the attempt and queue it for upload; it cannot be changed afterwards.")
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Argument(help: "The assessment id.") var id: String

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        guard let attempt = try vault.latestAttempt(on: id), attempt.state == .inProgress else {
            throw VaultError(.notFound, "There is no attempt in progress on \(id). Start one with `vault take \(id)`.")
        }
        try vault.submitAttempt(attempt.id)
        let unanswered = attempt.unanswered.count
        context.console.line("Submitted \(attempt.assessment.title)\(unanswered > 0 ? " with \(unanswered) questions unanswered" : ""). It will be uploaded with `vault sync` when you are online.")
        context.console.emit(SubmitResult(assessmentId: id, attemptId: attempt.id, answered: attempt.answers.count, unanswered: unanswered))
    }

    struct SubmitResult: Encodable {
        let assessmentId: String
        let attemptId: String
        let answered: Int
        let unanswered: Int
        enum CodingKeys: String, CodingKey {
            case answered, unanswered
            case assessmentId = "assessment_id"
            case attemptId = "attempt_id"
        }
    }
}

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The questions, with the answers of the current attempt.")
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Argument(help: "The assessment id.") var id: String

    struct Item: Encodable {
        let id: String
        let type: String
        let prompt: String
        let choices: [Choice]?
        let answer: JSONValue?
        let flagged: Bool
    }

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let attempt = try vault.latestAttempt(on: id)
        let assessment = try attempt?.assessment ?? vault.loadAssessment(id: id, opened: true).assessment
        let items = assessment.questions.map { question in
            Item(id: question.id, type: question.type.rawValue, prompt: question.prompt, choices: question.choices,
                 answer: attempt?.answers[question.id], flagged: attempt?.flagged.contains(question.id) ?? false)
        }
        let console = context.console
        console.line(console.bold(assessment.title) + "  (version \(assessment.version ?? 0))")
        console.line("Attempt: \(attempt?.state.rawValue ?? "not started")")
        for (index, question) in assessment.questions.enumerated() {
            console.line("")
            console.line("\(index + 1). [\(question.id)] \(question.prompt)")
            for (letter, choice) in zip(TakeScreenLetters.all, question.choices ?? []) { console.line("   \(letter)) \(choice.text)   (id: \(choice.id))") }
            let answer = attempt?.answers[question.id].map { AnswerParser.display($0, for: question) } ?? "(no answer)"
            console.line("   Answer: \(answer)\(items[index].flagged ? "  [flagged]" : "")")
        }
        console.emit(ShowResult(id: id, title: assessment.title, version: assessment.version ?? 0, attemptState: attempt?.state.rawValue ?? "none", questions: items))
    }

    struct ShowResult: Encodable {
        let id: String
        let title: String
        let version: Int
        let attemptState: String
        let questions: [Item]
        enum CodingKeys: String, CodingKey {
            case id, title, version, questions
            case attemptState = "attempt_state"
        }
    }
}

import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultModel

struct Submit: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Finish the attempt and queue it for upload; it cannot be changed afterwards.")
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Argument(help: "The assessment id.") var id: String

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        guard let attempt = try vault.latestAttempt(on: id), attempt.state == .inProgress else {
            throw VaultError(.notFound, tr("There is no attempt in progress on {id}. Start one with `vault take {id}`.", ["id": id]))
        }
        try vault.submitAttempt(attempt.id)
        let unanswered = attempt.unanswered.count
        let title = attempt.assessment.title
        context.console.line(
            unanswered > 0
                ? trn(
                    "Submitted {title} with {n} question unanswered. It will be uploaded with `vault sync` when you are online.",
                    "Submitted {title} with {n} questions unanswered. It will be uploaded with `vault sync` when you are online.",
                    unanswered,
                    ["title": title]
                )
                : tr("Submitted {title}. It will be uploaded with `vault sync` when you are online.", ["title": title])
        )
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

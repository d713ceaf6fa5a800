import Foundation
import VaultAPI

/// What a teacher's document must be to be published: the format's rules (`AssessmentValidator`), and every
/// question's own response processing one the server can score in bounded time (only the rules and operators the
/// evaluator knows, within its work budget). The one check the server's publishing paths run (the API, the desk and
/// the command line, the demo's seed).
public enum PublishCheck {
    /// Throws the first problem found, in a sentence a teacher can act on (`AssessmentValidator.Problem`).
    public static func validate(_ assessment: Assessment) throws {
        try AssessmentValidator.validate(assessment)
        for question in assessment.questions {
            guard let processing = question.processing else { continue }
            let name = "Question \(question.id)"
            if let unknown = ResponseEvaluator.unsupported(in: processing.rules) {
                throw AssessmentValidator.Problem(message: "\(name)'s response processing uses <\(unknown)>, which is not evaluated here.")
            }
            guard ResponseEvaluator.fitsBudget(processing) else {
                throw AssessmentValidator.Problem(
                    message:
                        "\(name)'s response processing takes more work to score than a question may (containers of more than 10,000 values, or too many comparisons): simplify its rules."
                )
            }
        }
    }
}

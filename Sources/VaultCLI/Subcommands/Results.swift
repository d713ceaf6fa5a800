import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultTake

struct Results: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Your results: score, points per question, and the correct answers once your teacher released them (offline; `vault sync` fetches them)."
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Argument(help: "An assessment id or an attempt id.") var id: String?

    func run() throws {
        let context = CommandContext(globals)
        let results = try context.openVault(credentials).results(matching: id)
        if results.isEmpty {
            context.console.line(
                "No results yet. They arrive with `vault sync` once you handed in and your teacher shows them (at submission or when released)."
            )
        }
        for result in results {
            let waiting = result.pending > 0 ? "; \(Plural.count(result.pending, "answer waits", plural: "answers wait")) for your teacher" : ""
            context.console.line(
                "\(result.assessmentId) (version \(result.assessmentVersion)): \(AttemptResult.pointsText(result.score)) of \(AttemptResult.pointsText(result.maxScore)) points\(waiting)."
            )
            for question in result.questions {
                let points = question.points.map { "\(AttemptResult.pointsText($0))/\(AttemptResult.pointsText(question.maxPoints))" } ?? "waiting"
                let correct = question.correctAnswer.map { "  correct: " + $0.map(Self.answerText).joined(separator: ", ") } ?? ""
                context.console.line("  \(question.questionId)  \(points)\(correct)")
            }
            if !result.released { context.console.line("  Correct answers are shown once your teacher releases the results.") }
        }
        context.console.emit(["results": results])
    }

    static func answerText(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .number(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
        default: String(decoding: (try? CanonicalJSON.encode(value)) ?? Data(), as: UTF8.self)
        }
    }
}

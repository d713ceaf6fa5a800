import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultTake
import VaultTerminal

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
        let vault = try context.openVault(credentials)
        let results = try vault.results(matching: id)
        if results.isEmpty {
            context.console.line(
                "No results yet. They arrive with `vault sync` once you handed in and your teacher shows them (at submission or when released)."
            )
        }
        for result in results {
            let sheet = try vault.answerSheet(attemptID: result.attemptId)
            for line in Self.lines(result, sheet: sheet) { context.console.line(line) }
        }
        context.console.emit(["results": results])
    }

    /// One attempt's result in the student's own terms: each question (shortened), the points, the student's own
    /// answer and, once released, the correct one, in the letters and texts the student saw.
    static func lines(_ result: AttemptResult, sheet: (assessment: Assessment, answers: [String: JSONValue])?) -> [String] {
        let title =
            sheet.map { "\($0.assessment.title) (\(result.assessmentId), version \(result.assessmentVersion))" }
            ?? "\(result.assessmentId) (version \(result.assessmentVersion))"
        let waiting = result.pending > 0 ? "; \(Plural.count(result.pending, "answer waits", plural: "answers wait")) for your teacher" : ""
        var lines = ["\(title): \(AttemptResult.pointsText(result.score)) of \(AttemptResult.pointsText(result.maxScore)) points\(waiting)."]
        let questions = Dictionary((sheet?.assessment.questions ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for (number, item) in result.questions.enumerated() {
            let points =
                item.points.map { "\(AttemptResult.pointsText($0)) of \(AttemptResult.pointsText(item.maxPoints))" }
                ?? "waiting for your teacher (up to \(AttemptResult.pointsText(item.maxPoints)))"
            guard let question = questions[item.questionId] else {
                // The questions are not in this vault (another device's attempt): the points alone.
                lines.append("  \(number + 1). Question \(item.questionId): \(points).")
                if let feedback = item.feedback { lines.append("     Your teacher wrote: " + TerminalText.visible(Self.oneLine(feedback))) }
                continue
            }
            lines.append("  \(number + 1). \(DisplayWidth.truncated(Self.oneLine(question.prompt), to: 70))")
            lines.append("     Points: \(points).")
            let given = sheet?.answers[question.id].map { AnswerWords.text($0, for: question) }
            lines.append("     Your answer: " + (given.map { DisplayWidth.truncated(Self.oneLine($0), to: 200) } ?? "none"))
            if let correct = item.correctAnswer.flatMap({ AnswerWords.correct($0, for: question) }) {
                lines.append("     Correct answer: \(correct)")
            }
            if let feedback = item.feedback { lines.append("     Your teacher wrote: " + TerminalText.visible(Self.oneLine(feedback))) }
        }
        if !result.released { lines.append("  Correct answers are shown once your teacher releases the results.") }
        return lines
    }

    /// A prompt or an essay on one line: its lines joined, runs of spaces made one.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

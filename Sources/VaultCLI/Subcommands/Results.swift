import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
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
        if results.isEmpty, results.damaged.isEmpty {
            context.console.line(
                tr("No results yet. They arrive with `vault sync` once you handed in and your teacher shows them (at submission or when released).")
            )
        }
        for result in results {
            let sheet = try vault.answerSheet(attemptID: result.attemptId)
            for line in Self.lines(result, sheet: sheet) { context.console.line(line) }
        }
        try context.console.emit(results, as: "results")
    }

    /// One attempt's result in the student's own terms: each question (shortened), the points, the student's own
    /// answer and, once released, the correct one, in the letters and texts the student saw.
    static func lines(_ result: AttemptResult, sheet: (assessment: Assessment, answers: [String: JSONValue])?) -> [String] {
        let title =
            sheet.map {
                tr(
                    "{title} ({id}, version {version})",
                    ["title": $0.assessment.title, "id": result.assessmentId, "version": result.assessmentVersion]
                )
            }
            ?? tr("{id} (version {version})", ["id": result.assessmentId, "version": result.assessmentVersion])
        let (score, most) = (Language.decimal(AttemptResult.pointsText(result.score)), Language.decimal(AttemptResult.pointsText(result.maxScore)))
        var lines = [
            result.pending > 0
                ? trn(
                    "{title}: {score} of {max} points; {n} answer waits for your teacher.",
                    "{title}: {score} of {max} points; {n} answers wait for your teacher.",
                    result.pending,
                    ["title": title, "score": score, "max": most]
                )
                : tr("{title}: {score} of {max} points.", ["title": title, "score": score, "max": most])
        ]
        let questions = Dictionary((sheet?.assessment.questions ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for (number, item) in result.questions.enumerated() {
            let max = Language.decimal(AttemptResult.pointsText(item.maxPoints))
            let points =
                item.points.map { tr("{points} of {max}", ["points": Language.decimal(AttemptResult.pointsText($0)), "max": max]) }
                ?? tr("waiting for your teacher (up to {max})", ["max": max])
            guard let question = questions[item.questionId] else {
                // The questions are not in this vault (another device's attempt): the points alone.
                lines.append("  " + tr("{number}. Question {id}: {points}.", ["number": number + 1, "id": item.questionId, "points": points]))
                if let feedback = item.feedback {
                    lines.append("     " + tr("Your teacher wrote: {feedback}", ["feedback": TerminalText.visible(Self.oneLine(feedback))]))
                }
                continue
            }
            lines.append("  \(number + 1). \(DisplayWidth.truncated(Self.oneLine(question.prompt), to: 70))")
            lines.append("     " + tr("Points: {points}.", ["points": points]))
            let given = sheet?.answers[question.id].map { AnswerWords.text($0, for: question) }
            lines.append(
                "     " + tr("Your answer: {answer}", ["answer": given.map { DisplayWidth.truncated(Self.oneLine($0), to: 200) } ?? tr("none")])
            )
            if let correct = item.correctAnswer.flatMap({ AnswerWords.correct($0, for: question) }) {
                lines.append("     " + tr("Correct answer: {answer}", ["answer": correct]))
            }
            if let feedback = item.feedback {
                lines.append("     " + tr("Your teacher wrote: {feedback}", ["feedback": TerminalText.visible(Self.oneLine(feedback))]))
            }
        }
        if !result.released { lines.append("  " + tr("Correct answers are shown once your teacher releases the results.")) }
        return lines
    }

    /// A prompt or an essay on one line: its lines joined, runs of spaces made one.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

import ArgumentParser
import Foundation
import VaultAPI
import VaultRules
import VaultServer
import VaultTerminal

struct Grade: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Give points to handed-in answers: one question of every student in turn (--question alone), or one attempt.",
        discussion: """
            With --question and no --attempt, each student's answer is shown in turn and the points are read from \
            standard input: a number saves it at once, an empty line keeps what is there, q stops.
            """
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id.") var id: String
    @Option(help: "The question id.") var question: String
    @Option(help: "One attempt id (from `vault-server responses ID`).") var attempt: String?
    @Option(help: "The points for that attempt.") var points: Double?
    @Option(help: "Written feedback on that attempt's answer, which the student reads with their results (\"\" removes it).")
    var feedback: String?

    func run() async throws {
        let desk = try await options.desk()
        do {
            if let attempt {
                guard points != nil || feedback != nil else { throw ValidationError("Give --points or --feedback with --attempt.") }
                try await desk.saveSheet(
                    id,
                    attempt: attempt,
                    points: points.map { [question: $0] } ?? [:],
                    feedback: feedback.map { [question: $0] } ?? [:]
                )
                if let points { TerminalText.line("Gave \(AttemptResult.pointsText(points)) points to \(question) of attempt \(attempt).") }
                if let feedback {
                    TerminalText.line(
                        feedback.isEmpty
                            ? "Removed the feedback on \(question) of attempt \(attempt)."
                            : "Saved the feedback on \(question) of attempt \(attempt)."
                    )
                }
            } else {
                guard points == nil, feedback == nil else {
                    throw ValidationError("--points and --feedback go with --attempt; without it each student's points are asked for.")
                }
                try await queue(desk)
            }
        } catch let problem as TeacherDesk.Problem {
            throw ValidationError(problem.description)
        }
    }

    /// The terminal queue: every handed-in answer to the question, one after the other.
    func queue(_ desk: TeacherDesk) async throws {
        let queue = try await desk.queue(id, question: question)
        let full = Scoring.maxPoints(queue.question)
        TerminalText.line("\(queue.title), question \(question) (\(AttemptResult.pointsText(full)) points): \(queue.entries.count) answers.")
        TerminalText.line(queue.question.prompt)
        var saved = 0
        entries: for (index, entry) in queue.entries.enumerated() {
            TerminalText.line("\n[\(index + 1)/\(queue.entries.count)] \(entry.user)\(entry.group.map { " (\($0))" } ?? "")")
            TerminalText.line(entry.answer ?? "(no answer)")
            while true {
                let current =
                    entry.points.map { " [now \(AttemptResult.pointsText($0))\(entry.graded ? "" : entry.points == nil ? "" : ", automatic")]" } ?? ""
                TerminalText.line("Points, 0 to \(AttemptResult.pointsText(full))\(current); Enter keeps, q stops: ", terminator: "")
                guard let line = readLine()?.trimmingCharacters(in: .whitespaces) else { break entries }
                if line.isEmpty { break }
                if line.lowercased() == "q" { break entries }
                guard let value = Double(line.replacingOccurrences(of: ",", with: ".")), value.isFinite, value >= 0, value <= full else {
                    TerminalText.line("That is not a number from 0 to \(AttemptResult.pointsText(full)). Try again.")
                    continue
                }
                try await desk.grade(queue, points: [entry.attemptID: value])
                saved += 1
                break
            }
        }
        TerminalText.line("\nSaved the points of \(saved) \(saved == 1 ? "answer" : "answers").\(queue.next.map { " Next question: \($0)." } ?? "")")
    }
}

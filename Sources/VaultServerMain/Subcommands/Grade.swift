import ArgumentParser
import Foundation
import VaultAPI
import VaultServer

struct Grade: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Give points to a question of a submitted attempt (essays, short texts without accepted answers, or to correct a score)."
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id.") var id: String
    @Option(help: "The attempt id (from `vault-server responses ID`).") var attempt: String
    @Option(help: "The question id.") var question: String
    @Option(help: "The points.") var points: Double

    func run() async throws {
        guard points.isFinite, points >= 0 else { throw ValidationError("Points must be a number of at least 0.") }
        let storage = try await options.storage()
        guard try await storage.resultInputs(user: nil, assessmentID: id).contains(where: { $0.record.attemptID == attempt }),
            try await storage.grade(attemptID: attempt, questionID: question, points: points)
        else { throw ValidationError("Attempt \(attempt) of \(id) was not submitted, or has no question \(question).") }
        print("Gave \(AttemptResult.pointsText(points)) points to \(question) of attempt \(attempt).")
    }
}

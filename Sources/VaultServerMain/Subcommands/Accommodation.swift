import ArgumentParser
import Foundation
import VaultServer
import VaultTerminal

struct Accommodation: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Give a student extra time: the document they download carries their own time limit, enforced offline."
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id; leave it out to set the student's default for every timed assessment.") var id: String?
    @Option(help: "The student.") var user: String
    @Option(help: "Extra minutes (0 removes them).") var extraMinutes: Int

    func run() async throws {
        guard (0...TeacherDesk.maxExtraMinutes).contains(extraMinutes) else {
            throw ValidationError("Extra minutes must be between 0 and \(TeacherDesk.maxExtraMinutes).")
        }
        let storage = try await options.storage()
        guard try await storage.user(named: user) != nil else { throw ValidationError("There is no user \(user).") }
        try await storage.setAccommodation(assessmentID: id, user: user, extraMinutes: extraMinutes)
        TerminalText.line("\(user) has \(extraMinutes) extra minutes on \(id ?? "every timed assessment"); it applies to their next download.")
    }
}

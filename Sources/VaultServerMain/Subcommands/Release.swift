import ArgumentParser
import Foundation
import VaultServer
import VaultTerminal

struct Release: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Release an assessment's results: students see their scores and the correct answers at their next sync.",
        discussion: "--undo hides them again (a student keeps what they already synced). Either is recorded with who and when."
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id.") var id: String
    @Flag(help: "Hide the results again.") var undo = false

    func run() async throws {
        do {
            try await options.desk().change(id, undo ? .hideResults : .release, by: TeacherDesk.commandLine)
        } catch let problem as TeacherDesk.Problem {
            throw ValidationError(problem.description)
        }
        TerminalText.line(
            undo
                ? "The results of \(id) are hidden again: students no longer get them at their next sync."
                : "Released the results of \(id)."
        )
    }
}

import ArgumentParser
import Foundation
import VaultServer
import VaultTerminal

struct Reopen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Reopen a closed exam (or cancel a close set for later): students can start and hand in attempts again.",
        discussion: "Recorded with who and when, like closing."
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id.") var id: String

    func run() async throws {
        do {
            try await options.desk().change(id, .reopen, by: TeacherDesk.commandLine)
        } catch let problem as TeacherDesk.Problem {
            throw ValidationError(problem.description)
        }
        TerminalText.line("\(id) is open again: students can start and hand in attempts.")
    }
}

import ArgumentParser
import Foundation
import VaultServer
import VaultTerminal

struct Release: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Release an assessment's results: students see their scores and the correct answers at their next sync."
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id.") var id: String

    func run() async throws {
        guard try await options.storage().release(assessmentID: id, now: Date()) else { throw ValidationError("There is no assessment \(id).") }
        TerminalText.line("Released the results of \(id).")
    }
}

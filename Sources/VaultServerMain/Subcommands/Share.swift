import ArgumentParser
import Foundation
import VaultServer
import VaultTerminal

struct Share: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Let another teacher act on an assessment as a co-teacher (answers, grading, roster, exports), or stop it.",
        discussion: """
            The teacher who publishes an assessment owns it; only its owner, its co-teachers and administrators can \
            see or change it. This command runs on the server machine with an administrator's rights.
            """
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id.") var id: String
    @Option(help: "The teacher's user name.") var teacher: String
    @Flag(help: "Remove the co-teacher instead.") var remove = false

    func run() async throws {
        let outcome = try await options.storage().share(assessmentID: id, teacher: teacher, remove: remove)
        switch outcome {
        case .shared: TerminalText.line("\(teacher) is now a co-teacher of \(id).")
        case .removed: TerminalText.line("\(teacher) is no longer a co-teacher of \(id).")
        case .noAssessment: throw ValidationError("There is no assessment \(id).")
        case .noTeacher:
            throw ValidationError("There is no teacher called \(teacher) (add one with `vault-server user add \(teacher) --role teacher`).")
        case .cannotRemoveOwner: throw ValidationError("\(teacher) owns \(id); an owner cannot be removed.")
        }
    }
}

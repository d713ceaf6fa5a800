import ArgumentParser
import Foundation
import VaultAPI
import VaultServer
import VaultTerminal

struct StartCode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start-code",
        abstract: "Print a sealed exam's start code for the proctor to read out (each new version has its own)."
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id.") var id: String

    func run() async throws {
        let desk = try await options.desk()
        let start: (version: Int, code: String, title: String)?
        do {
            start = try await desk.startCode(id, sealIterations: options.sealIterations)
        } catch let problem as TeacherDesk.Problem {
            throw ValidationError(problem.description)
        }
        guard let start else { throw ValidationError("\(id) is not sealed; it needs no start code.") }
        TerminalText.line("Start code for \(id) version \(start.version): \(start.code)")
    }
}

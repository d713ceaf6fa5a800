import ArgumentParser
import Foundation
import VaultCore
import VaultServer
import VaultTerminal

extension GradebookCSV.Format: ExpressibleByArgument {}

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write an assessment's grades as CSV: Moodle's grade import, Canvas's gradebook, or one column per question."
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id.") var id: String
    @Option(help: "moodle, canvas or csv.") var format: GradebookCSV.Format
    @Option(help: "Write to this file (private to you) instead of standard output.") var out: String?
    @Option(help: "Only the students of this group.") var group: String?

    func run() async throws {
        let desk = try await options.desk()
        var text = Data()
        // The file as it is when piped; on a terminal, nothing in it can drive the terminal (its CRLF shown as lines).
        let onTerminal = isatty(STDOUT_FILENO) == 1
        do {
            if out == nil {
                try await desk.export(id, format: format, group: group) { line in
                    var shown = line
                    if onTerminal {
                        shown = line.hasSuffix("\r\n") ? TerminalText.visible(String(line.dropLast())) + "\n" : TerminalText.visible(line)
                    }
                    FileHandle.standardOutput.write(Data(shown.utf8))
                }
                return
            }
            try await desk.export(id, format: format, group: group) { line in text.append(contentsOf: line.utf8) }
        } catch let problem as TeacherDesk.Problem {
            throw ValidationError(problem.description)
        }
        if let out {
            try SecureFiles.atomicWrite(text, to: out)
            FileHandle.standardError.write(Data("Wrote \(out).\n".utf8))
        }
    }
}

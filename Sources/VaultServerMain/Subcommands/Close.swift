import ArgumentParser
import Foundation
import VaultAPI
import VaultServer
import VaultTerminal

struct Close: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Close an exam: attempts with answers on the server are handed in, new attempts refused.",
        discussion: "A later hand-in of an attempt started before closing is kept and flagged, for the teacher to accept or give 0."
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id.") var id: String
    @Option(help: "When to close, as an RFC 3339 time (2026-11-23T15:00:00Z); now when left out.") var at: String?

    func run() async throws {
        var when: Date?
        if let at {
            guard let date = Timestamp.date(at) else { throw ValidationError("--at takes a time such as 2026-11-23T15:00:00Z.") }
            when = date
        }
        do {
            let closed = try await options.desk().close(id, at: when)
            TerminalText.line(
                closed.at > Date()
                    ? "\(id) will close on \(Timestamp.readable(closed.at)); a running server hands in the attempts left open then."
                    : "Closed \(id) on \(Timestamp.readable(closed.at))."
            )
            if closed.handedIn > 0 {
                TerminalText.line(
                    "\(closed.handedIn) open \(closed.handedIn == 1 ? "attempt was" : "attempts were") handed in with the answers the server holds, marked \u{201C}handed in at closing\u{201D}."
                )
            }
        } catch let problem as TeacherDesk.Problem {
            throw ValidationError(problem.description)
        }
    }
}

import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultModel

/// `vault log ID [--json]`: the student's own record of an attempt, in their language.
struct Log: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "What this vault recorded of your attempt: started, answers (which question, never the text), leaving the exam screen, pastes (how many characters), hand-in.",
        discussion: "Your teacher receives the same record with your hand-in. Nothing you type and nothing outside the exam screen is recorded."
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Argument(help: "An assessment id or an attempt id.") var id: String

    struct Output: Encodable {
        let attemptId: String
        let events: [RecordEvent]
        enum CodingKeys: String, CodingKey {
            case events
            case attemptId = "attempt_id"
        }
    }

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let attemptID: String
        if let attempt = try vault.latestAttempt(on: id) {
            attemptID = attempt.id
        } else {
            attemptID = try vault.attempt(id).id
        }
        let events = try vault.attemptLog(attemptID)
        if events.isEmpty { context.console.line(tr("Nothing is recorded for this attempt yet.")) }
        for event in events {
            let when = Timestamp.date(event.at).map(PeopleDates.dayAndClock) ?? event.at
            context.console.line("\(when)  \(Self.words(event))")
        }
        context.console.emit(Output(attemptId: attemptID, events: events))
    }

    /// An event in the student's language.
    static func words(_ event: RecordEvent) -> String {
        let question = event.question ?? "?"
        let count = event.count ?? 0
        return switch event.kind {
        case .started: tr("You started.")
        case .answered: tr("You answered {question}.", ["question": question])
        case .flagged: tr("You flagged {question}.", ["question": question])
        case .unflagged: tr("You took the flag off {question}.", ["question": question])
        case .left: tr("You left the exam screen.")
        case .returned: tr("You came back to the exam screen.")
        case .pasted: trn("You pasted {n} character into {question}.", "You pasted {n} characters into {question}.", count, ["question": question])
        case .endedUncleanly: tr("The exam screen closed without you leaving it (the program was stopped, the terminal closed or the power went).")
        case .resumed: tr("You went on with the exam.")
        case .clockMoved: trn("This device's clock moved by {n} minute.", "This device's clock moved by {n} minutes.", abs(count))
        case .timeUp: tr("The time ran out.")
        case .submitted: tr("You handed in.")
        case .handedInByFile: tr("You made the hand-in file.")
        case .continuedElsewhere: tr("You went on with this attempt on this device, begun on another.")
        }
    }
}

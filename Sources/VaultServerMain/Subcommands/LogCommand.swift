import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultRules
import VaultServer
import VaultTerminal

/// `vault-server log ID --user NAME [--json]`: a student's attempts' own records, as a timeline.
struct LogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "What happened during a student's attempts: started, answers, leaving the exam screen, pastes, unclean ends, hand-ins.",
        discussion:
            "One line per event, by time (a student who continued on another device has one record per device, merged). Never answer or pasted text: question ids and counts only. A record whose chain or signature does not verify says so and why."
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id.") var id: String
    @Option(help: "The student.") var user: String
    @Flag(help: "Print {\"records\":[{\"attempt_id\",\"device\",\"verified\",\"problem\",\"events\":[…]}],\"summary\":{…}} as JSON.") var json = false

    struct Output: Encodable {
        struct Record: Encodable {
            let attemptId: String
            let device: String
            let verified: Bool
            let problem: String?
            let events: [RecordEvent]
            enum CodingKeys: String, CodingKey {
                case device, verified, problem, events
                case attemptId = "attempt_id"
            }
        }
        let records: [Record]
        let summary: RecordSummary
    }

    func run() async throws {
        let storage = try await options.storage()
        let records = try await storage.records(assessmentID: id, user: user)
        // Each hand-in's answered questions: what its record must hold an event for.
        let answered = Dictionary(
            try await storage.resultInputs(user: user, assessmentID: id, attemptIDs: nil).map { ($0.record.attemptID, Set($0.answers.keys)) },
            uniquingKeysWith: { first, _ in first }
        )
        if json {
            let output = Output(
                records: records.map {
                    .init(attemptId: $0.attemptID, device: Self.device($0.deviceKey), verified: $0.verified, problem: $0.problem, events: $0.events)
                },
                summary: RecordRules.summary(records, answered: answered)
            )
            print(String(decoding: try CanonicalJSON.encode(output), as: UTF8.self))
            return
        }
        guard !records.isEmpty else {
            TerminalText.line("No record of \(user)'s attempts on \(id) has reached the server yet (it comes with the hand-in).")
            return
        }
        for attempt in Dictionary(grouping: records, by: \.attemptID).sorted(by: { $0.key < $1.key }) {
            TerminalText.line("Attempt \(attempt.key):")
            for record in attempt.value where !record.verified {
                TerminalText.line("  Its record from device \(Self.device(record.deviceKey)) does not verify: \(record.problem ?? "unknown").")
            }
            for gap in RecordRules.gaps(attempt.value, answered: answered[attempt.key]) {
                TerminalText.line("  Its record does not verify: \(gap).")
            }
            for (device, event) in RecordRules.timeline(attempt.value) {
                let when = Timestamp.readable(event.at)
                TerminalText.line("  \(when)  \(Self.device(device))  \(RecordWords.english(event))")
            }
        }
        let words = RecordRules.summary(records, answered: answered).words
        if !words.isEmpty { TerminalText.line("In short: " + words.joined(separator: "; ") + ".") }
    }

    /// A device by its key's fingerprint (first 8 hex digits).
    static func device(_ key: String) -> String { String(DeviceKey.fingerprint(publicKey: key).prefix(9)) }
}

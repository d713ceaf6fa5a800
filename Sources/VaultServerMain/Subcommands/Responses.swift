import ArgumentParser
import Foundation
import Hummingbird
import Logging
import VaultAPI
import VaultCore
import VaultRules
import VaultServer
import VaultTerminal

struct Responses: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "What was received for an assessment, deleted ones included.")
    @OptionGroup var options: DataOptions
    @Argument var id: String
    @Flag var json = false

    func run() async throws {
        let storage = try await options.storage()
        guard let received = try await storage.received(assessmentID: id) else { throw ValidationError("There is no assessment \(id).") }
        let inputs = Dictionary(
            try await storage.resultInputs(user: nil, assessmentID: id).map { ($0.record.attemptID, $0) },
            uniquingKeysWith: { first, _ in first }
        )
        let results = inputs.mapValues(\.result)
        // Pools and shuffling: a student's letters beside the source's.
        let draws = try await storage.draws(assessmentID: id)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(received), as: UTF8.self))
            return
        }
        TerminalText.line("\(received.responses.count) responses, \(received.submissions.count) submissions for \(id).")
        for submission in received.submissions {
            TerminalText.line(
                "  \(submission.user ?? "?"): attempt \(submission.attemptId), version \(submission.assessmentVersion), receipt \(submission.receiptId)\(submission.forced ? " (forced)" : "")"
            )
            if let result = results[submission.attemptId] {
                let waiting = result.pending > 0 ? ", \(result.pending) waiting for grading (`vault-server grade`)" : ""
                TerminalText.line("    score: \(AttemptResult.pointsText(result.score)) of \(AttemptResult.pointsText(result.maxScore))\(waiting)")
            }
            if let user = submission.user, let extra = try? await storage.extraMinutes(assessmentID: id, user: user), extra > 0 {
                TerminalText.line("    extra time: \(extra) min")
            }
            if let unsealed = submission.unsealedAt { TerminalText.line("    unsealed at \(unsealed)") }
            if let used = submission.timeUsedMs {
                TerminalText.line("    timed: started \(submission.startedAt ?? "?"), used \(used / 60_000) min \(used / 1000 % 60) s")
            }
            if let back = submission.clockMovedBackMs, back > 0 {
                TerminalText.line("    note: the device clock moved back \(back / 60_000) min \(back / 1000 % 60) s during this attempt")
            }
            Self.answers(
                received.responses.filter { $0.attemptId == submission.attemptId },
                document: inputs[submission.attemptId]?.document,
                draw: submission.user.flatMap { draws[$0] }
            )
        }
        // Answers of attempts not handed in yet (synced as the student went).
        let handedIn = Set(received.submissions.map(\.attemptId))
        var open: [String: [ReceivedResponses.Response]] = [:]
        for response in received.responses where !handedIn.contains(response.attemptId) { open[response.attemptId, default: []].append(response) }
        for (attempt, responses) in open.sorted(by: { $0.key < $1.key }) {
            TerminalText.line("  \(responses.first?.user ?? "?"): attempt \(attempt), not handed in yet")
            Self.answers(responses)
        }
        let flagged = received.responses.filter { $0.answeredInFuture == true }
        for response in flagged {
            TerminalText.line(
                "  note: \(response.user ?? "?")'s answer to \(response.questionId) says it was given at \(response.answeredAt), after it arrived (\(response.receivedAt ?? "?")): the device clock was ahead."
            )
        }
    }

    /// Every current answer of one attempt, one per question (an essay in full, its lines indented); shown through
    /// `TerminalText`, so nothing a student typed can drive the teacher's terminal.
    static func answers(_ responses: [ReceivedResponses.Response], document: Assessment? = nil, draw: Draw? = nil) {
        for response in responses.filter({ !$0.superseded }).sorted(by: { $0.questionId < $1.questionId }) {
            var text = plainText(response.answer).replacingOccurrences(of: "\n", with: "\n        ")
            if let question = document?.question(response.questionId),
                let note = DrawPlan.lettersNote(response.answer, question: question, lists: draw?.lists[response.questionId])
            {
                text += " (\(note))"
            }
            TerminalText.line("      \(response.questionId): \(text)")
        }
    }

    /// An answer as a teacher reads it: text as written, choices and numbers plain, pairs as `l1-a`.
    static func plainText(_ value: JSONValue) -> String {
        switch value {
        case .null: "(no answer)"
        case .bool(let flag): flag ? "true" : "false"
        case .number(let number): abs(number) < 1e15 ? Int(exactly: number).map(String.init) ?? String(number) : String(number)
        case .string(let text): text
        case .array(let items):
            items.map { item in item.arrayValue.map { $0.map(plainText).joined(separator: "-") } ?? plainText(item) }.joined(separator: ", ")
        case .object(let fields): fields.sorted { $0.key < $1.key }.map { "\($0.key): \(plainText($0.value))" }.joined(separator: ", ")
        }
    }
}

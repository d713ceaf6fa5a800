import Foundation
import Testing
import VaultAPI
import VaultRules
import VaultTestSupport

/// `BatchPlan.decide` as a table: the facts a store read, one item, and what the rules say and write.
struct BatchPlanTests {
    static let now = Timestamp.date("2026-11-21T08:00:00Z")!
    static let served = try! AssessmentPublisher.serve(Fixtures.quiz(), version: 1).document
    static let at = "2026-11-20T10:00:00.000Z"
    static let earlier = "2026-11-20T09:00:00.000Z"
    static let later = "2026-11-20T11:00:00.000Z"

    /// What the store holds, as a case of the table names it.
    enum Held: String, CaseIterable, Sendable {
        case nothing, ownResponseID, othersResponseID, deleted, othersAttempt, closed, laterAnswer, earlierAnswer
        case handedInBefore, handedInAfter
        /// Handed in after the item's answer, but closed to earlier answers: released, closed, a week old (issue 51).
        case handedInAfterReleased, handedInAfterClosed, handedInAfterWeekOld

        var facts: BatchFacts {
            var facts = BatchFacts()
            let slot = AnswerSlot(attemptID: "attempt-1", questionID: "q1")
            facts.assessments["quiz-1"] = AssessmentHead(currentVersion: 1, deleted: self == .deleted, closedAt: nil)
            facts.documents[DocumentKey(id: "quiz-1", version: 1)] = BatchPlanTests.served
            switch self {
            case .nothing, .deleted: break
            case .ownResponseID: facts.storedResponses["r1"] = "ana"
            case .othersResponseID: facts.storedResponses["r1"] = "ben"
            case .othersAttempt: facts.attempts["attempt-1"] = AttemptOwner(user: "ben", assessmentID: "quiz-1")
            case .closed: facts.assessments["quiz-1"]?.closedAt = Timestamp.date(BatchPlanTests.earlier)!.timeIntervalSince1970
            case .laterAnswer, .earlierAnswer:
                facts.attempts["attempt-1"] = AttemptOwner(user: "ana", assessmentID: "quiz-1")
                let time = self == .laterAnswer ? BatchPlanTests.later : BatchPlanTests.earlier
                facts.latest[slot] = LatestAnswer(responseID: "r0", answeredAtMilliseconds: Timestamp.milliseconds(time)!)
            case .handedInBefore, .handedInAfter, .handedInAfterReleased, .handedInAfterClosed, .handedInAfterWeekOld:
                // Handed in on another device, before (earlier) or after (later) the item's answer; it reached the
                // server a minute before now (or eight days before, for the week-old one).
                let handedIn = self == .handedInBefore ? BatchPlanTests.earlier : BatchPlanTests.later
                let arrived = BatchPlanTests.now.timeIntervalSince1970 - (self == .handedInAfterWeekOld ? 8 * 86_400 : 60)
                facts.attempts["attempt-1"] = AttemptOwner(
                    user: "ana",
                    assessmentID: "quiz-1",
                    handedInAtMilliseconds: Timestamp.milliseconds(handedIn)!,
                    handedInReceivedAt: arrived
                )
                if self == .handedInAfterReleased { facts.assessments["quiz-1"]?.released = true }
                // Closed after the hand-in (a new attempt's answer would be refused; this one is kept, not counted).
                if self == .handedInAfterClosed { facts.assessments["quiz-1"]?.closedAt = BatchPlanTests.now.timeIntervalSince1970 - 30 }
            }
            return facts
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var held: Held
        var status: ItemStatus
        /// Stored rows it writes: a new attempt, the response (superseded or not), the ids it supersedes.
        var newAttempt: Bool
        var response: Bool?
        var supersedes: [String] = []
        var refusal = false
        var handedIn: Set<SubmissionFlag> = []
        var testDescription: String { "\(held.rawValue) → \(status.rawValue)" }
    }

    static let table: [Row] = [
        Row(held: .nothing, status: .accepted, newAttempt: true, response: false),
        Row(held: .ownResponseID, status: .duplicate, newAttempt: false, response: nil),
        // Another user's id answers like an invalid item: ids cannot be probed.
        Row(held: .othersResponseID, status: .rejected, newAttempt: false, response: nil),
        Row(held: .deleted, status: .gone, newAttempt: false, response: nil),
        Row(held: .othersAttempt, status: .rejected, newAttempt: false, response: nil),
        Row(held: .closed, status: .rejected, newAttempt: false, response: nil, refusal: true),
        // Last write wins by answered_at: an older answer is stored superseded, a newer one supersedes the stored one.
        Row(held: .laterAnswer, status: .superseded, newAttempt: false, response: true),
        Row(held: .earlierAnswer, status: .accepted, newAttempt: false, response: false, supersedes: ["r0"]),
        Row(held: .handedInBefore, status: .superseded, newAttempt: false, response: true, handedIn: [.answersAfterHandIn]),
        Row(held: .handedInAfter, status: .accepted, newAttempt: false, response: false, handedIn: [.changedAfterHandIn]),
        // A handed-in attempt closed to earlier answers: kept for the teacher, never counted (its score stays).
        Row(held: .handedInAfterReleased, status: .superseded, newAttempt: false, response: true, handedIn: [.answersAfterHandIn]),
        Row(held: .handedInAfterClosed, status: .superseded, newAttempt: false, response: true, handedIn: [.answersAfterHandIn]),
        Row(held: .handedInAfterWeekOld, status: .superseded, newAttempt: false, response: true, handedIn: [.answersAfterHandIn]),
    ]

    @Test("decide: each row of stored facts gives its status and exactly its writes", arguments: table)
    func decide(_ row: Row) {
        let item = Fixtures.item(Self.served, question: "q1", answer: .string("b"), id: "r1", at: Self.at)
        let (results, writes) = BatchPlan.decide([item], user: "ana", device: "laptop", now: Self.now, facts: row.held.facts)
        #expect(results.map(\.status) == [row.status])
        #expect(results[0].id == "r1")
        #expect(writes.attempts.map(\.id) == (row.newAttempt ? ["attempt-1"] : []))
        #expect(writes.responses.map(\.superseded) == (row.response.map { [$0] } ?? []))
        #expect(writes.superseded == row.supersedes)
        #expect(writes.refusals.map(\.reason) == (row.refusal ? [.afterClosing] : []))
        #expect(writes.handedInChanges == (row.handedIn.isEmpty ? [:] : ["attempt-1": row.handedIn]))
        #expect(writes.seenAttempts == (row.response == nil ? [] : ["attempt-1"]))
    }

    @Test("decide: items are judged in order: an id twice is a duplicate the second time; a slot answered twice keeps the later answer")
    func inOrder() {
        let first = Fixtures.item(Self.served, question: "q1", answer: .string("a"), id: "r1", at: Self.later)
        let again = Fixtures.item(Self.served, question: "q1", answer: .string("a"), id: "r1", at: Self.later)
        let older = Fixtures.item(Self.served, question: "q1", answer: .string("b"), id: "r2", at: Self.earlier)
        let newest = Fixtures.item(Self.served, question: "q1", answer: .string("b"), id: "r3", at: "2026-11-20T12:00:00.000Z")
        let (results, writes) = BatchPlan.decide([first, again, older, newest], user: "ana", now: Self.now, facts: Held.nothing.facts)
        #expect(results.map(\.status) == [.accepted, .duplicate, .superseded, .accepted])
        // The batch's own first answer loses its slot to the newest: marked in the batch, nothing stored to supersede.
        #expect(writes.responses.map(\.id) == ["r1", "r2", "r3"])
        #expect(writes.responses.map(\.superseded) == [true, true, false])
        #expect(writes.superseded.isEmpty)
        #expect(writes.attempts.count == 1)
    }
}

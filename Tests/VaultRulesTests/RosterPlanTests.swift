import Foundation
import Testing
import VaultAPI
import VaultRules
import VaultTestSupport

/// `RosterPlan.roster` as a table: what the server heard from one student, and the row the teacher sees.
struct RosterPlanTests {
    static let now = Timestamp.date("2026-11-20T10:30:00Z")!
    static let minute = 60.0
    static var t: Double { now.timeIntervalSince1970 }

    enum Heard: String, CaseIterable, Sendable {
        case nothing, downloaded, answering, answeringWithExtraTime, handedIn, answeringAfterHandIn, oldAttemptLeftBehind
        case refusedAfterClosing, refusedThenHandedIn, givenUpThenAnswering, handedInTwice
    }

    static func facts(_ heard: Heard) -> RosterFacts {
        var document = Fixtures.quiz()
        document.timeLimitSeconds = 20 * 60
        var downloads: [RosterFacts.Download] = []
        var results: [ResultInput] = []
        var inProgress: [RosterFacts.InProgress] = []
        var refusals: [RosterFacts.Refusal] = []
        func handIn(_ attempt: String, at: Double) {
            let record = SubmissionRecord(
                attemptID: attempt,
                user: "ana",
                assessmentID: "quiz-1",
                assessmentVersion: 1,
                submittedAt: Timestamp.string(epoch: at),
                forced: false,
                receiptID: "rcpt-\(attempt)",
                receivedAt: at,
                responseCount: 1
            )
            results.append(ResultInput(record: record, document: document, answers: ["q1": .string("b")], grades: [:], released: false))
        }
        if heard != .nothing { downloads.append(.init(user: "ana", version: 1, at: t - 30 * minute)) }
        switch heard {
        case .nothing, .downloaded: break
        case .answering, .answeringWithExtraTime:
            inProgress.append(.init(user: "ana", attemptID: "a1", answered: 3, lastReceivedAt: t - minute, startedAt: t - 15 * minute))
        case .handedIn: handIn("a1", at: t - 5 * minute)
        case .answeringAfterHandIn:
            handIn("a1", at: t - 10 * minute)
            inProgress.append(.init(user: "ana", attemptID: "a2", answered: 1, lastReceivedAt: t - minute, startedAt: t - 2 * minute))
        case .oldAttemptLeftBehind:
            inProgress.append(.init(user: "ana", attemptID: "a0", answered: 2, lastReceivedAt: t - 20 * minute))
            handIn("a1", at: t - 5 * minute)
        case .refusedAfterClosing:
            refusals.append(.init(user: "ana", assessmentID: "quiz-1", attemptID: "a1", reason: .afterClosing, at: t - minute))
        case .refusedThenHandedIn:
            refusals.append(.init(user: "ana", assessmentID: "quiz-1", attemptID: "a1", reason: .afterClosing, at: t - 10 * minute))
            handIn("a2", at: t - 5 * minute)
        case .givenUpThenAnswering:
            refusals.append(.init(user: "ana", assessmentID: "quiz-1", attemptID: "a1", reason: .givenUpOnDevice, at: t - 10 * minute))
            inProgress.append(.init(user: "ana", attemptID: "a1", answered: 4, lastReceivedAt: t - minute, startedAt: t - 12 * minute))
        case .handedInTwice:
            handIn("a1", at: t - 20 * minute)
            handIn("a2", at: t - 5 * minute)
        }
        return RosterFacts(
            assessmentID: "quiz-1",
            document: document,
            version: 1,
            closedAt: nil,
            released: false,
            students: [.init(name: "ana", group: "7b"), .init(name: "ben", group: "7a")],
            downloads: downloads,
            extraMinutes: heard == .answeringWithExtraTime ? ["ana": 10] : [:],
            results: results,
            inProgress: inProgress,
            refusals: refusals
        )
    }

    /// The state, the attempt the row names, time left in seconds, and the flags.
    static let table: [(Heard, RosterState, String?, Int?, [RosterFlag])] = [
        (.nothing, .notDownloaded, nil, nil, []),
        (.downloaded, .downloaded, nil, nil, []),
        (.answering, .answering, nil, 5 * 60, []),
        (.answeringWithExtraTime, .answering, nil, 15 * 60, []),
        (.handedIn, .handedIn, "a1", nil, []),
        // A new attempt after a hand-in is what they are doing now; the row still names the handed-in one.
        (.answeringAfterHandIn, .answering, "a1", 18 * 60, []),
        // An attempt left behind for another that was handed in is not what they are doing now.
        (.oldAttemptLeftBehind, .handedIn, "a1", nil, []),
        (.refusedAfterClosing, .refused, nil, nil, []),
        (.refusedThenHandedIn, .handedIn, "a2", nil, []),
        // An attempt given up on one device and heard from again is alive.
        (.givenUpThenAnswering, .answering, nil, 8 * 60, []),
        (.handedInTwice, .handedIn, "a2", nil, [.secondAttempt]),
    ]

    @Test("roster: each student's state, attempt, time left and flags from what the server heard", arguments: table)
    func row(_ row: (Heard, RosterState, String?, Int?, [RosterFlag])) throws {
        let (heard, state, attempt, left, flags) = row
        let roster = RosterPlan.roster(Self.facts(heard), group: nil, now: Self.now)
        let ana = try #require(roster.students.first { $0.user == "ana" })
        #expect(ana.state == state, "\(heard.rawValue)")
        #expect(ana.attemptId == attempt, "\(heard.rawValue)")
        #expect(ana.timeLeftSeconds == left, "\(heard.rawValue)")
        #expect(ana.flags == flags, "\(heard.rawValue)")
        // Scored from its answers: q1 right is 1 of the quiz's points; nothing handed in has no score.
        #expect((ana.score != nil) == (attempt != nil), "\(heard.rawValue)")
        #expect(roster.students.first { $0.user == "ben" }?.state == .notDownloaded)
    }

    @Test("roster: everyone, by group then name, with a hand-in without a student account; a group's roster, its students only")
    func members() {
        var facts = Self.facts(.handedIn)
        facts.results[0].record.user = "teacher-tries"
        #expect(RosterPlan.roster(facts, group: nil, now: Self.now).students.map(\.user) == ["teacher-tries", "ben", "ana"])
        // The store reads a group's students; the teacher's hand-in is not one of them.
        facts.students = [.init(name: "ben", group: "7a")]
        #expect(RosterPlan.roster(facts, group: "7a", now: Self.now).students.map(\.user) == ["ben"])
    }
}

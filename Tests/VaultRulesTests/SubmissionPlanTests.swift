import Foundation
import Testing
import VaultAPI
import VaultModel
import VaultRules
import VaultTestSupport

/// `SubmissionPlan.decide` as a table: a hand-in, the facts a store read, and the outcome with its write.
struct SubmissionPlanTests {
    static let now = Timestamp.date("2026-11-21T08:00:00Z")!
    static let held = [ReceiptMaterial.Answer(responseID: "r1", questionID: "q1", answer: "\"b\"")]

    /// What differs from a plain first hand-in of one stored answer, on a timed quiz of one attempt.
    enum Case: String, CaseIterable, Sendable {
        case plain, othersAttempt, otherAssessment, nothingListed, deleted, outdated, forcedOld, noAttemptsLeft
        case startedAfterClosing, startedBeforeClosing, neverStored, differentAnswer, overTime, timeMissing
        case alreadyHandedIn, secondAttempt

        var document: Assessment {
            var quiz = Fixtures.quiz(attempts: self == .secondAttempt ? 2 : 1)
            quiz.timeLimitSeconds = 600
            quiz.notAfter = [.startedAfterClosing, .startedBeforeClosing].contains(self) ? "2026-11-20T10:00:00Z" : nil
            return quiz
        }

        var request: SubmissionRequest {
            var request = SubmissionRequest(
                attemptId: "attempt-1",
                assessmentId: self == .otherAssessment ? "quiz-2" : "quiz-1",
                assessmentVersion: [.outdated, .forcedOld].contains(self) ? 1 : 2,
                submittedAt: "2026-11-20T10:30:00Z",
                responseIds: ["r1"],
                force: self == .forcedOld ? true : nil,
                startedAt: self == .timeMissing ? nil : (self == .startedAfterClosing ? "2026-11-20T10:05:00Z" : "2026-11-20T09:50:00Z"),
                timeUsedMs: self == .overTime ? 700_000 : 300_000,
                answers: [SubmittedAnswer(responseId: "r1", questionId: "q1", answerSha256: answerDigest(canonicalAnswer: Data("\"b\"".utf8)))]
            )
            if self == .nothingListed { request.answers = nil }
            if self == .differentAnswer { request.answers?[0].answerSha256 = answerDigest(canonicalAnswer: Data("\"a\"".utf8)) }
            return request
        }

        var facts: SubmissionFacts {
            let owner = self == .othersAttempt ? "ben" : "ana"
            return SubmissionFacts(
                attempt: AttemptOwner(user: owner, assessmentID: "quiz-1"),
                existing: self == .alreadyHandedIn ? SubmissionPlanTests.existing : nil,
                head: AssessmentHead(currentVersion: 2, deleted: self == .deleted),
                responses: self == .neverStored ? [:] : ["r1": (attemptID: "attempt-1", user: owner)],
                held: SubmissionPlanTests.held,
                document: document,
                otherSubmittedAttempts: [.noAttemptsLeft, .secondAttempt].contains(self) ? 1 : 0,
                otherAttempts: [.noAttemptsLeft, .secondAttempt].contains(self) ? 1 : 0
            )
        }
    }

    static let existing = SubmissionRecord(
        attemptID: "attempt-1",
        user: "ana",
        assessmentID: "quiz-1",
        assessmentVersion: 2,
        submittedAt: "2026-11-20T10:20:00Z",
        forced: false,
        receiptID: "rcpt-old",
        receivedAt: 1_795_000_000,
        responseCount: 1
    )

    /// The outcome in a word, and the flags of the record it stores (nil: it stores nothing).
    static let table: [(Case, String, [SubmissionFlag]?)] = [
        (.plain, "created", []),
        (.othersAttempt, "forbidden", nil),
        (.otherAssessment, "rejected", nil),
        (.nothingListed, "rejected", nil),
        (.deleted, "gone", nil),
        (.outdated, "outdated", nil),
        (.forcedOld, "created", []),
        (.noAttemptsLeft, "noAttemptsLeft", nil),
        (.startedAfterClosing, "closed", nil),
        (.startedBeforeClosing, "created", [.afterClosing]),
        (.neverStored, "missingResponses", nil),
        (.differentAnswer, "answerSetDiffers", nil),
        (.overTime, "created", [.overTime]),
        (.timeMissing, "created", [.timeMissing]),
        (.alreadyHandedIn, "repeated", nil),
        (.secondAttempt, "created", [.secondAttempt]),
    ]

    static func word(_ outcome: SubmissionOutcome) -> String {
        switch outcome {
        case .created: "created"
        case .repeated: "repeated"
        case .amended: "amended"
        case .outdated: "outdated"
        case .gone: "gone"
        case .missingResponses: "missingResponses"
        case .answerSetDiffers: "answerSetDiffers"
        case .noAttemptsLeft: "noAttemptsLeft"
        case .closed: "closed"
        case .forbidden: "forbidden"
        case .rejected: "rejected"
        }
    }

    @Test("decide: each hand-in gives its outcome, and only a new one stores a record, with the flags the teacher sees", arguments: table)
    func decide(_ row: (Case, String, [SubmissionFlag]?)) {
        let (kind, expected, flags) = row
        let (outcome, write) = SubmissionPlan.decide(kind.request, user: "ana", now: Self.now, facts: kind.facts, receiptID: "rcpt-new")
        #expect(Self.word(outcome) == expected, "\(kind.rawValue): \(outcome)")
        guard let flags else {
            #expect(write == nil, "\(kind.rawValue) writes nothing")
            return
        }
        guard case .insert(let record)? = write, case .created(let created) = outcome else {
            Issue.record("\(kind.rawValue): expected a new record, got \(String(describing: write))")
            return
        }
        #expect(record == created)
        #expect(record.flags == flags, "\(kind.rawValue)")
        #expect(record.receiptID == "rcpt-new" && record.responseCount == 1 && record.user == "ana")
        #expect(record.forced == (kind == .forcedOld))
        #expect(record.receivedAt == Self.now.timeIntervalSince1970)
    }

    @Test("decide: a receipt that left out answers the vault holds is signed again over all of them, same receipt id")
    func amended() throws {
        let statement = ReceiptStatement(
            receiptId: "rcpt-old",
            keyFingerprint: "k",
            user: "ana",
            attemptId: "attempt-1",
            assessmentId: "quiz-1",
            assessmentVersion: 2,
            contentHash: "h",
            submittedAt: "2026-11-20T10:20:00Z",
            receivedAt: "2026-11-20T10:20:01Z",
            timeUsedMs: nil,
            clockMovedBackMs: nil,
            forced: false,
            responses: []
        )
        var existing = Self.existing
        existing.signedReceipt = SignedReceipt(statement: String(decoding: try JSONEncoder().encode(statement), as: UTF8.self), signature: "s")
        var facts = Case.plain.facts
        facts.existing = existing
        let (outcome, write) = SubmissionPlan.decide(Case.plain.request, user: "ana", now: Self.now, facts: facts, receiptID: "rcpt-new")
        guard case .amended(let amended) = outcome, case .amend(let stored)? = write else {
            Issue.record("expected an amended receipt, got \(outcome)")
            return
        }
        #expect(amended == stored && amended.receiptID == "rcpt-old" && amended.responseCount == 1 && amended.signedReceipt == nil)
    }
}

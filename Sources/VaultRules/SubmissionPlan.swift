import Foundation
import VaultAPI
import VaultCore

/// What `POST /v1/submissions` answers.
public enum SubmissionOutcome: Sendable, Equatable {
    case created(SubmissionReceipt)
    case repeated(SubmissionReceipt)
    case outdated(currentVersion: Int)
    case gone
    case missingResponses([String])
    /// The attempt is another user's.
    case forbidden(String)
    case rejected(String)
}

/// A stored submission: the receipt it was given and what the teacher sees.
public struct SubmissionRecord: Sendable, Equatable {
    public var attemptID: String
    public var user: String
    public var assessmentID: String
    public var assessmentVersion: Int
    public var submittedAt: String
    public var forced: Bool
    public var receiptID: String
    public var receivedAt: Double
    public var responseCount: Int
    public var startedAt: String?
    public var timeUsedMilliseconds: Int?
    public var clockMovedBackMilliseconds: Int?

    public init(
        attemptID: String,
        user: String,
        assessmentID: String,
        assessmentVersion: Int,
        submittedAt: String,
        forced: Bool,
        receiptID: String,
        receivedAt: Double,
        responseCount: Int,
        startedAt: String? = nil,
        timeUsedMilliseconds: Int? = nil,
        clockMovedBackMilliseconds: Int? = nil
    ) {
        self.attemptID = attemptID
        self.user = user
        self.assessmentID = assessmentID
        self.assessmentVersion = assessmentVersion
        self.submittedAt = submittedAt
        self.forced = forced
        self.receiptID = receiptID
        self.receivedAt = receivedAt
        self.responseCount = responseCount
        self.startedAt = startedAt
        self.timeUsedMilliseconds = timeUsedMilliseconds
        self.clockMovedBackMilliseconds = clockMovedBackMilliseconds
    }

    public var receipt: SubmissionReceipt {
        SubmissionReceipt(
            receiptId: receiptID,
            attemptId: attemptID,
            assessmentId: assessmentID,
            assessmentVersion: assessmentVersion,
            receivedAt: Timestamp.string(epoch: receivedAt),
            responseCount: responseCount
        )
    }
}

/// What the store holds that a submission's rules depend on.
public struct SubmissionFacts: Sendable {
    public var attemptOwner: String?
    public var existing: SubmissionRecord?
    public var head: AssessmentHead?
    /// The named responses that are stored: id → (attempt, user).
    public var responses: [String: (attemptID: String, user: String)]
    public init(attemptOwner: String?, existing: SubmissionRecord?, head: AssessmentHead?, responses: [String: (attemptID: String, user: String)]) {
        self.attemptOwner = attemptOwner
        self.existing = existing
        self.head = head
        self.responses = responses
    }
}

/// The submission rules: one receipt per attempt, only its owner submits, every named answer must be stored.
public enum SubmissionPlan {
    /// The outcome, and the record to insert when it is `.created` (under a unique key on the attempt: a
    /// concurrent submission of the same attempt makes the insert fail, and the store retries, then finds it).
    public static func decide(
        _ request: SubmissionRequest,
        user: String,
        now: Date,
        facts: SubmissionFacts,
        receiptID: String
    ) -> (outcome: SubmissionOutcome, record: SubmissionRecord?) {
        if let owner = facts.attemptOwner, owner != user {
            return (.forbidden("This attempt belongs to someone else, so it cannot be submitted from this account."), nil)
        }
        if let existing = facts.existing { return (.repeated(existing.receipt), nil) }
        guard let head = facts.head, !head.deleted else { return (.gone, nil) }
        guard Timestamp.milliseconds(request.submittedAt) != nil else { return (.rejected("submitted_at must be an RFC 3339 timestamp."), nil) }
        let force = request.force ?? false
        if request.assessmentVersion != head.currentVersion, !force { return (.outdated(currentVersion: head.currentVersion), nil) }
        let unique = Array(Set(request.responseIds)).sorted()
        let missing = unique.filter { id in
            guard let stored = facts.responses[id] else { return true }
            return stored.attemptID != request.attemptId || stored.user != user
        }
        if !missing.isEmpty { return (.missingResponses(missing), nil) }
        guard facts.attemptOwner != nil, !unique.isEmpty else {
            return (.rejected("This attempt has no answers of yours on the server, so there is nothing to submit. Upload its answers first."), nil)
        }
        let record = SubmissionRecord(
            attemptID: request.attemptId,
            user: user,
            assessmentID: request.assessmentId,
            assessmentVersion: request.assessmentVersion,
            submittedAt: request.submittedAt,
            forced: force && request.assessmentVersion != head.currentVersion,
            receiptID: receiptID,
            receivedAt: (now.timeIntervalSince1970 * 1000).rounded() / 1000,
            responseCount: unique.count,
            startedAt: request.startedAt.flatMap { Timestamp.date($0) == nil ? nil : $0 },
            timeUsedMilliseconds: request.timeUsedMs.map { max(0, $0) },
            clockMovedBackMilliseconds: request.clockMovedBackMs.map { max(0, $0) }
        )
        return (.created(record.receipt), record)
    }
}

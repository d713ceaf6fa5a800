import Foundation
import VaultAPI
import VaultCore

/// What `POST /v1/submissions` answers.
public enum SubmissionOutcome: Sendable, Equatable {
    case created(SubmissionRecord)
    case repeated(SubmissionRecord)
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
    /// The signed statement, once issued (a submission stored before receipts were signed has none yet).
    public var signedReceipt: SignedReceipt?
    /// A sealed exam: when the student unsealed it.
    public var unsealedAt: String?

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
        clockMovedBackMilliseconds: Int? = nil,
        signedReceipt: SignedReceipt? = nil,
        unsealedAt: String? = nil
    ) {
        self.signedReceipt = signedReceipt
        self.unsealedAt = unsealedAt
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
            responseCount: responseCount,
            signed: signedReceipt
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
        if let existing = facts.existing { return (.repeated(existing), nil) }
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
            clockMovedBackMilliseconds: request.clockMovedBackMs.map { max(0, $0) },
            unsealedAt: request.unsealedAt.flatMap { Timestamp.date($0) == nil ? nil : $0 }
        )
        return (.created(record), record)
    }
}

/// What a receipt states besides the submission record, read from the store when it is issued.
public struct ReceiptMaterial: Sendable, Equatable {
    public struct Answer: Sendable, Equatable {
        public var responseID: String
        public var questionID: String
        /// The answer's canonical JSON, as stored.
        public var answer: String
        public init(responseID: String, questionID: String, answer: String) {
            self.responseID = responseID
            self.questionID = questionID
            self.answer = answer
        }
    }
    /// The content hash of the submitted version.
    public var contentHash: String
    /// The attempt's current answers (the latest per question).
    public var answers: [Answer]
    public init(contentHash: String, answers: [Answer]) {
        self.contentHash = contentHash
        self.answers = answers
    }
}

public enum ReceiptRules {
    /// The statement a receipt for `record` makes: every current answer of the attempt by its hash, in question order.
    public static func statement(for record: SubmissionRecord, material: ReceiptMaterial, fingerprint: String) -> ReceiptStatement {
        ReceiptStatement(
            receiptId: record.receiptID,
            keyFingerprint: fingerprint,
            user: record.user,
            attemptId: record.attemptID,
            assessmentId: record.assessmentID,
            assessmentVersion: record.assessmentVersion,
            contentHash: material.contentHash,
            submittedAt: record.submittedAt,
            receivedAt: Timestamp.string(epoch: record.receivedAt),
            timeUsedMs: record.timeUsedMilliseconds,
            clockMovedBackMs: record.clockMovedBackMilliseconds,
            forced: record.forced,
            responses: material.answers.sorted { ($0.questionID, $0.responseID) < ($1.questionID, $1.responseID) }.map {
                ReceiptStatement.Response(
                    responseId: $0.responseID,
                    questionId: $0.questionID,
                    answerSha256: answerDigest(canonicalAnswer: Data($0.answer.utf8))
                )
            }
        )
    }
}

/// A sealed version's secrets, kept by the server: the content key, the start code, and the key wrapped under it.
public struct SealingMaterial: Sendable, Equatable {
    public var contentKey: Data
    public var startCode: String
    public var wrappedKey: WrappedKey
    public init(contentKey: Data, startCode: String, wrappedKey: WrappedKey) {
        self.contentKey = contentKey
        self.startCode = startCode
        self.wrappedKey = wrappedKey
    }
}

extension SealingMaterial {
    /// The wrapped key as a store keeps it (canonical JSON).
    public var wrappedKeyText: String { String(decoding: (try? CanonicalJSON.encode(wrappedKey)) ?? Data(), as: UTF8.self) }

    public init?(stored contentKey: Data, code: String, wrapped: String) {
        guard let wrappedKey = try? JSONDecoder().decode(WrappedKey.self, from: Data(wrapped.utf8)) else { return nil }
        self.init(contentKey: contentKey, startCode: code, wrappedKey: wrappedKey)
    }
}

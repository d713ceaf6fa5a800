import Foundation

/// `GET /v1/server-key`: the server's public keys (raw 32-byte Ed25519 and X25519 keys, base64) and their short
/// fingerprint, which a vault pins at login.
public struct ServerKeyResponse: Codable, Sendable, Equatable {
    public var signingKey: String
    public var agreementKey: String
    public var fingerprint: String
    enum CodingKeys: String, CodingKey {
        case fingerprint
        case signingKey = "signing_key"
        case agreementKey = "agreement_key"
    }
    public init(signingKey: String, agreementKey: String, fingerprint: String) {
        self.signingKey = signingKey
        self.agreementKey = agreementKey
        self.fingerprint = fingerprint
    }
}

/// What a signed receipt states. No answer text: each answer is named by the SHA-256 of its canonical JSON.
public struct ReceiptStatement: Codable, Sendable, Equatable {
    public struct Response: Codable, Sendable, Equatable {
        public var responseId: String
        public var questionId: String
        public var answerSha256: String
        enum CodingKeys: String, CodingKey {
            case responseId = "response_id"
            case questionId = "question_id"
            case answerSha256 = "answer_sha256"
        }
        public init(responseId: String, questionId: String, answerSha256: String) {
            self.responseId = responseId
            self.questionId = questionId
            self.answerSha256 = answerSha256
        }
    }

    public static let format = "vault-receipt-v1"
    public var format: String
    public var receiptId: String
    public var keyFingerprint: String
    public var user: String
    public var attemptId: String
    public var assessmentId: String
    public var assessmentVersion: Int
    public var contentHash: String
    public var submittedAt: String
    public var receivedAt: String
    public var timeUsedMs: Int?
    public var clockMovedBackMs: Int?
    public var forced: Bool
    public var responses: [Response]
    /// The server handed the attempt in when its exam closed, with the answers it held then (absent otherwise): the
    /// student's answers given later are kept for the teacher and not counted, so this receipt may name fewer.
    public var handedInAtClosing: Bool?

    enum CodingKeys: String, CodingKey {
        case format, user, forced, responses
        case handedInAtClosing = "handed_in_at_closing"
        case receiptId = "receipt_id"
        case keyFingerprint = "key_fingerprint"
        case attemptId = "attempt_id"
        case assessmentId = "assessment_id"
        case assessmentVersion = "assessment_version"
        case contentHash = "content_hash"
        case submittedAt = "submitted_at"
        case receivedAt = "received_at"
        case timeUsedMs = "time_used_ms"
        case clockMovedBackMs = "clock_moved_back_ms"
    }

    public init(
        receiptId: String,
        keyFingerprint: String,
        user: String,
        attemptId: String,
        assessmentId: String,
        assessmentVersion: Int,
        contentHash: String,
        submittedAt: String,
        receivedAt: String,
        timeUsedMs: Int?,
        clockMovedBackMs: Int?,
        forced: Bool,
        responses: [Response],
        handedInAtClosing: Bool? = nil
    ) {
        format = Self.format
        self.handedInAtClosing = handedInAtClosing
        self.receiptId = receiptId
        self.keyFingerprint = keyFingerprint
        self.user = user
        self.attemptId = attemptId
        self.assessmentId = assessmentId
        self.assessmentVersion = assessmentVersion
        self.contentHash = contentHash
        self.submittedAt = submittedAt
        self.receivedAt = receivedAt
        self.timeUsedMs = timeUsedMs
        self.clockMovedBackMs = clockMovedBackMs
        self.forced = forced
        self.responses = responses
    }
}

/// One answer named by its response id, question id and the SHA-256 of its canonical JSON: what a submission lists
/// and what a receipt states, so the two sets can be compared.
public typealias SubmittedAnswer = ReceiptStatement.Response

extension ReceiptStatement.Response: Hashable {}

/// A statement and the server's Ed25519 signature over its exact bytes (the canonical JSON, carried as a string so
/// that no re-encoding can change what was signed). This is the file `vault receipts export` writes.
public struct SignedReceipt: Codable, Sendable, Hashable {
    public var statement: String
    public var signature: String
    public init(statement: String, signature: String) {
        self.statement = statement
        self.signature = signature
    }
}

extension SignedReceipt {
    /// The receipt as canonical JSON text: what a store keeps, what the vault keeps, and the file a student exports.
    public var storedText: String { String(decoding: (try? CanonicalJSON.encode(self)) ?? Data(), as: UTF8.self) }

    public init?(storedText: String) {
        guard let value = try? JSONDecoder().decode(SignedReceipt.self, from: Data(storedText.utf8)) else { return nil }
        self = value
    }
}

/// What the teacher's view marks on a submission.
public enum SubmissionFlag: String, Sendable, Codable, CaseIterable, Equatable {
    /// A timed assessment whose submission says nothing of when it started or how long it took.
    case timeMissing = "time_missing"
    /// The time used is above the limit, the student's extra time and the grace: as the device reported it, or as
    /// the server judged it from the first device's start and when each answer was given (or arrived).
    case overTime = "over_time"
    /// A time the attempt reports cannot be true: an answer or the hand-in dated before the attempt's start, or
    /// after it reached the server, by more than the clock tolerance (a device's clock set back or never set).
    case clockDisagrees = "clock_disagrees"
    /// The student already has another attempt on this assessment (a second try, or a vault restored from a copy).
    case secondAttempt = "second_attempt"
    /// The exam was closed when this submission arrived; its attempt started before closing (a student who was
    /// offline). Stored, never lost; the teacher accepts or zeroes it.
    case afterClosing = "after_closing"
    /// An answer given before the hand-in on another device of the student arrived after it and, being the later
    /// answer to its question, replaced one that was handed in: the receipt was signed again over the final set.
    case changedAfterHandIn = "changed_after_hand_in"
    /// Answers given after the hand-in (on another device) arrived: kept for the teacher, not counted.
    case answersAfterHandIn = "answers_after_hand_in"
    /// Handed in under a package the teacher then replaced (a copied stick, issue 68): the device it came from is
    /// revoked, and the hand-in is kept apart from the student's attempt until the teacher accepts or discards it.
    case revokedDevice = "revoked_device"
}

/// `POST /v1/device-keys`: a vault's Ed25519 public key (raw 32 bytes, base64), registered to the signed-in user.
/// A new device adds a key; a key is never replaced or moved to another user.
public struct DeviceKeyRequest: Codable, Sendable, Equatable {
    public var publicKey: String
    enum CodingKeys: String, CodingKey { case publicKey = "public_key" }
    public init(publicKey: String) { self.publicKey = publicKey }
}

public struct DeviceKeyResponse: Codable, Sendable, Equatable {
    public var fingerprint: String
    public init(fingerprint: String) { self.fingerprint = fingerprint }
}

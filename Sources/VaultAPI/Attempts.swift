import Foundation

/// `GET /v1/attempts?assessment=ID`: the caller's own attempts of one assessment as the server holds them, so a
/// second device can continue one. Signed like results (`ServedSignature.attempts`), bound to the user.
public struct AttemptsResponse: Codable, Sendable, Equatable {
    public var attempts: [HeldAttempt]
    public init(attempts: [HeldAttempt]) { self.attempts = attempts }
}

/// One attempt as the server holds it.
public struct HeldAttempt: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable, CaseIterable {
        /// Answers arrived; nothing handed in yet.
        case inProgress = "in_progress"
        /// Handed in: answering it further makes late answers.
        case handedIn = "handed_in"
    }

    /// A current answer (the latest by `answered_at` of its question).
    public struct Answer: Codable, Sendable, Equatable {
        public var responseId: String
        public var questionId: String
        public var answer: JSONValue
        public var answeredAt: String
        enum CodingKeys: String, CodingKey {
            case answer
            case responseId = "response_id"
            case questionId = "question_id"
            case answeredAt = "answered_at"
        }
        public init(responseId: String, questionId: String, answer: JSONValue, answeredAt: String) {
            self.responseId = responseId
            self.questionId = questionId
            self.answer = answer
            self.answeredAt = answeredAt
        }
    }

    public var attemptId: String
    public var assessmentId: String
    /// The version its answers were given on (the latest of them).
    public var assessmentVersion: Int
    /// When its clock started, as the first device recorded it; nil when no device said.
    public var startedAt: String?
    /// The student's extra minutes on this assessment (their deadline is `startedAt` + the limit + these).
    public var extraMinutes: Int
    /// Milliseconds since `startedAt` by the server's clock when it answered: the time used, whatever the clock of
    /// the device that reads it says (a device whose clock is set back must not get the time back). Nil when no
    /// start is known.
    public var elapsedMs: Int?
    public var state: State
    public var answers: [Answer]

    enum CodingKeys: String, CodingKey {
        case state, answers
        case attemptId = "attempt_id"
        case assessmentId = "assessment_id"
        case assessmentVersion = "assessment_version"
        case startedAt = "started_at"
        case extraMinutes = "extra_minutes"
        case elapsedMs = "elapsed_ms"
    }

    public init(
        attemptId: String,
        assessmentId: String,
        assessmentVersion: Int,
        startedAt: String?,
        extraMinutes: Int,
        elapsedMs: Int? = nil,
        state: State,
        answers: [Answer]
    ) {
        self.elapsedMs = elapsedMs
        self.attemptId = attemptId
        self.assessmentId = assessmentId
        self.assessmentVersion = assessmentVersion
        self.startedAt = startedAt
        self.extraMinutes = extraMinutes
        self.state = state
        self.answers = answers
    }
}

/// `POST /v1/given-up`: a vault gave up sending answers (or a hand-in) of an attempt (too large, or failing until its
/// tries ran out) and keeps them as dead letters. The server records it for the teacher's roster ("given up on the
/// device"): what it never received is then not invisible.
public struct GivenUpReport: Codable, Sendable, Equatable {
    public var assessmentId: String
    public var attemptId: String
    /// How many answers (and hand-ins) the vault holds as dead letters for it.
    public var items: Int
    enum CodingKeys: String, CodingKey {
        case items
        case assessmentId = "assessment_id"
        case attemptId = "attempt_id"
    }
    public init(assessmentId: String, attemptId: String, items: Int) {
        self.assessmentId = assessmentId
        self.attemptId = attemptId
        self.items = items
    }
}

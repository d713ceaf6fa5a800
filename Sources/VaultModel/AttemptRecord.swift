import Foundation
import VaultAPI

/// An attempt with everything the screen needs: the document, current answers and flags.
public struct AttemptRecord: Sendable {
    public enum State: String, Sendable, Codable, CaseIterable {
        case inProgress = "in_progress"
        case submitted, synced
    }

    public var id: String
    public var assessment: Assessment
    public var state: State
    public var startedAt: Date
    public var submittedAt: Date?
    public var activeMilliseconds: Int
    public var currentQuestion: Int
    public var flagged: Set<String>
    /// The latest answer per question id.
    public var answers: [String: JSONValue]
    public var expiresAt: Date
    /// The clock of a timed attempt (see `AttemptTime`); unused when untimed.
    public var time: AttemptTime
    /// When this vault continued the attempt after it began on another device (nil: it began here).
    public var continuedAt: Date?

    public var timeLimit: Duration? { assessment.timeLimitSeconds.map { .seconds($0) } }

    public init(
        id: String,
        assessment: Assessment,
        state: State = .inProgress,
        startedAt: Date = Date(),
        submittedAt: Date? = nil,
        activeMilliseconds: Int = 0,
        currentQuestion: Int = 0,
        flagged: Set<String> = [],
        answers: [String: JSONValue] = [:],
        expiresAt: Date = .distantFuture,
        time: AttemptTime = AttemptTime(),
        continuedAt: Date? = nil
    ) {
        self.id = id
        self.assessment = assessment
        self.state = state
        self.startedAt = startedAt
        self.submittedAt = submittedAt
        self.activeMilliseconds = activeMilliseconds
        self.currentQuestion = currentQuestion
        self.flagged = flagged
        self.answers = answers
        self.expiresAt = expiresAt
        self.time = time
        self.continuedAt = continuedAt
    }

    public var unanswered: [Question] { assessment.questions.filter { answers[$0.id] == nil } }
}

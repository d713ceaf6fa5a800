import Foundation

/// `GET /v1/results`: the caller's submitted attempts whose results they may see now.
public struct ResultsResponse: Codable, Sendable, Equatable {
    public var results: [AttemptResult]
    public init(results: [AttemptResult]) { self.results = results }
}

/// The result of one submitted attempt.
public struct AttemptResult: Codable, Sendable, Equatable {
    public struct QuestionResult: Codable, Sendable, Equatable {
        public var questionId: String
        /// Nil while the question waits for the teacher (an essay, a short text without accepted answers).
        public var points: Double?
        public var maxPoints: Double
        /// The correct answer: only once the teacher released the results.
        public var correctAnswer: [JSONValue]?
        /// The teacher's written words on this answer, when they wrote any.
        public var feedback: String?
        enum CodingKeys: String, CodingKey {
            case points, feedback
            case questionId = "question_id"
            case maxPoints = "max_points"
            case correctAnswer = "correct_answer"
        }
        public init(questionId: String, points: Double?, maxPoints: Double, correctAnswer: [JSONValue]? = nil, feedback: String? = nil) {
            self.feedback = feedback
            self.questionId = questionId
            self.points = points
            self.maxPoints = maxPoints
            self.correctAnswer = correctAnswer
        }
    }

    public var attemptId: String
    public var assessmentId: String
    public var assessmentVersion: Int
    public var user: String
    public var released: Bool
    /// The points so far (questions waiting for the teacher count as nothing yet).
    public var score: Double
    public var maxScore: Double
    /// How many questions still wait for the teacher.
    public var pending: Int
    public var questions: [QuestionResult]
    enum CodingKeys: String, CodingKey {
        case user, released, score, pending, questions
        case attemptId = "attempt_id"
        case assessmentId = "assessment_id"
        case assessmentVersion = "assessment_version"
        case maxScore = "max_score"
    }
    public init(
        attemptId: String,
        assessmentId: String,
        assessmentVersion: Int,
        user: String,
        released: Bool,
        score: Double,
        maxScore: Double,
        pending: Int,
        questions: [QuestionResult]
    ) {
        self.attemptId = attemptId
        self.assessmentId = assessmentId
        self.assessmentVersion = assessmentVersion
        self.user = user
        self.released = released
        self.score = score
        self.maxScore = maxScore
        self.pending = pending
        self.questions = questions
    }
}

extension AttemptResult {
    /// Points as people write them: 2 rather than 2.0; 1.5 stays 1.5. Any Double (a hostile server's, a document
    /// stored before points were bounded) prints, none traps: a number no one writes out in full keeps its exponent.
    public static func pointsText(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "?" : value > 0 ? "∞" : "-∞" }
        if abs(value) < 1e15, let whole = Int(exactly: value) { return String(whole) }
        return abs(value) < 1e15 ? String(format: "%.2f", value) : String(format: "%.3g", value)
    }
}

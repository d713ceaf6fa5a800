import Foundation

/// The kinds of question an assessment may hold.
public enum QuestionType: String, Codable, Sendable, CaseIterable {
    case singleChoice = "single_choice"
    case multipleChoice = "multiple_choice"
    case trueFalse = "true_false"
    case numeric
    case shortText = "short_text"
    case essay
}

public struct Choice: Codable, Sendable, Hashable {
    public var id: String
    public var text: String

    public init(id: String, text: String) {
        self.id = id
        self.text = text
    }
}

public struct Question: Codable, Sendable, Hashable {
    public var id: String
    public var type: QuestionType
    public var prompt: String
    public var points: Double?
    public var choices: [Choice]?
    /// Teacher-only: the server strips it before serving.
    public var answerKey: [JSONValue]?
    public var tolerance: Double?
    public var maxLength: Int?
    /// Short text: the answers that score (compared case-folded, trimmed, whitespace collapsed, Unicode NFC). Grading
    /// data: never served.
    public var acceptedAnswers: [String]?
    /// Set by the server: SHA-256 of the canonical served question.
    public var hash: String?

    enum CodingKeys: String, CodingKey {
        case id, type, prompt, points, choices, tolerance, hash
        case answerKey = "answer_key"
        case maxLength = "max_length"
        case acceptedAnswers = "accepted_answers"
    }

    public init(
        id: String,
        type: QuestionType,
        prompt: String,
        points: Double? = nil,
        choices: [Choice]? = nil,
        answerKey: [JSONValue]? = nil,
        tolerance: Double? = nil,
        maxLength: Int? = nil,
        acceptedAnswers: [String]? = nil
    ) {
        self.acceptedAnswers = acceptedAnswers
        self.id = id
        self.type = type
        self.prompt = prompt
        self.points = points
        self.choices = choices
        self.answerKey = answerKey
        self.tolerance = tolerance
        self.maxLength = maxLength
    }
}

/// An assessment as a teacher publishes it, and, with `version`, `content_hash` and question hashes, as served.
public struct Assessment: Codable, Sendable, Hashable {
    public var id: String
    public var title: String
    public var description: String?
    public var timeLimitSeconds: Int?
    public var notAfter: String?
    public var teacherContact: String?
    public var questions: [Question]
    public var version: Int?
    public var contentHash: String?
    /// When students see their results: at submission, or once the teacher releases them (the default).
    public var results: ResultsRelease?

    enum CodingKeys: String, CodingKey {
        case id, title, description, questions, version
        case timeLimitSeconds = "time_limit_seconds"
        case notAfter = "not_after"
        case teacherContact = "teacher_contact"
        case contentHash = "content_hash"
        case results
    }

    public init(
        id: String,
        title: String,
        description: String? = nil,
        timeLimitSeconds: Int? = nil,
        notAfter: String? = nil,
        teacherContact: String? = nil,
        questions: [Question]
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.timeLimitSeconds = timeLimitSeconds
        self.notAfter = notAfter
        self.teacherContact = teacherContact
        self.questions = questions
    }

    public func question(_ id: String) -> Question? { questions.first { $0.id == id } }

    /// What students get: no grading data (answer keys, numeric tolerances).
    public var served: Assessment {
        var copy = self
        for index in copy.questions.indices {
            copy.questions[index].answerKey = nil
            copy.questions[index].tolerance = nil
            copy.questions[index].acceptedAnswers = nil
        }
        return copy
    }
}

/// When an assessment's results reach its students.
public enum ResultsRelease: String, Codable, Sendable, Hashable {
    case onSubmit = "on_submit"
    case afterRelease = "after_release"
}

import Foundation

/// The kinds of question an assessment may hold.
public enum QuestionType: String, Codable, Sendable, CaseIterable {
    case singleChoice = "single_choice"
    case multipleChoice = "multiple_choice"
    case trueFalse = "true_false"
    case numeric
    case shortText = "short_text"
    case essay
    /// Left items numbered, right items lettered; the answer pairs them.
    case matching
    /// Items to put in order.
    case ordering
    /// A prompt with numbered blanks `[1]`, `[2]`, …: text blanks and choice blanks.
    case fillInBlanks = "fill_in_blanks"
}

/// A picture or other file a question shows, carried inside the document (so inside the encrypted vault): the
/// terminal shows its description; the bytes stay with the question for a reader that can show them.
public struct Media: Codable, Sendable, Hashable {
    public var name: String
    public var mimeType: String
    /// The bytes, base64.
    public var data: String
    /// What it shows, in words ("" when the teacher gave none).
    public var alt: String

    enum CodingKeys: String, CodingKey {
        case name, data, alt
        case mimeType = "mime_type"
    }

    public init(name: String, mimeType: String, data: String, alt: String) {
        self.name = name
        self.mimeType = mimeType
        self.data = data
        self.alt = alt
    }
}

/// One blank of a fill-in-the-blanks question, written `[id]` in its prompt.
public struct Blank: Codable, Sendable, Hashable {
    public var id: String
    /// A choice blank's options; a text blank has none.
    public var choices: [Choice]?
    /// Grading data, never served: a text blank's accepted answers.
    public var acceptedAnswers: [String]?
    /// Grading data, never served: a choice blank's right choice id.
    public var answer: String?
    /// Grading data, never served: partial credit of accepted answers (text -> weight in [-1, 1]; an accepted
    /// answer not named here earns full credit).
    public var acceptedAnswerWeights: [String: Double]?
    /// Grading data, never served: a numeric blank (Moodle's NUMERICAL gap): each accepted answer's tolerance; the
    /// student's answer is compared with them as a number ("4.0" and "4,0" are 4).
    public var tolerances: [String: Double]?

    enum CodingKeys: String, CodingKey {
        case id, choices, answer, tolerances
        case acceptedAnswers = "accepted_answers"
        case acceptedAnswerWeights = "accepted_answer_weights"
    }

    public init(
        id: String,
        choices: [Choice]? = nil,
        acceptedAnswers: [String]? = nil,
        answer: String? = nil,
        acceptedAnswerWeights: [String: Double]? = nil
    ) {
        self.acceptedAnswerWeights = acceptedAnswerWeights
        self.id = id
        self.choices = choices
        self.acceptedAnswers = acceptedAnswers
        self.answer = answer
    }
}

public struct Choice: Codable, Sendable, Hashable {
    public var id: String
    public var text: String
    /// Grading data, never served: the share of the question's points this choice earns, in [-1, 1] (a wrong choice
    /// may cost). Without weights a question is scored by its answer key.
    public var weight: Double?

    public init(id: String, text: String, weight: Double? = nil) {
        self.id = id
        self.text = text
        self.weight = weight
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
    /// Short text: partial credit of accepted answers (text -> weight in [-1, 1]; one not named earns full credit).
    /// Grading data: never served.
    public var acceptedAnswerWeights: [String: Double]?
    /// Matching: the items to pair (left numbered, right lettered).
    public var left: [Choice]?
    public var right: [Choice]?
    /// Ordering: the items to put in order.
    public var items: [Choice]?
    /// Fill in the blanks: the blanks of the prompt.
    public var blanks: [Blank]?
    /// Pictures and other files the question shows.
    public var media: [Media]?
    /// Set by the server: SHA-256 of the canonical served question.
    public var hash: String?
    /// The item's own response processing (QTI), which scores it instead of the keys above. Grading data: never
    /// served; the keys stay for showing the right answer.
    public var processing: ResponseProcessing?

    enum CodingKeys: String, CodingKey {
        case id, type, prompt, points, choices, tolerance, hash, left, right, items, blanks, media
        case answerKey = "answer_key"
        case maxLength = "max_length"
        case acceptedAnswers = "accepted_answers"
        case acceptedAnswerWeights = "accepted_answer_weights"
        case processing = "response_processing"
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
    /// A sealed exam: downloadable ahead, readable only with the start code (or, online, after `opens_at`).
    public var sealed: Bool?
    public var opensAt: String?
    /// On a sealed served document: how many questions the ciphertext holds (the questions list is empty).
    public var questionCount: Int?
    /// How many submitted attempts a student may make (nil: 1).
    public var attempts: Int?
    /// On a sealed served document: the questions, encrypted, and the key wrapped under the start code.
    public var sealedContent: SealedContent?

    enum CodingKeys: String, CodingKey {
        case id, title, description, questions, version
        case timeLimitSeconds = "time_limit_seconds"
        case notAfter = "not_after"
        case teacherContact = "teacher_contact"
        case contentHash = "content_hash"
        case results, sealed, attempts
        case opensAt = "opens_at"
        case questionCount = "question_count"
        case sealedContent = "sealed_content"
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

    /// Submitted attempts a student may make.
    public var attemptLimit: Int { attempts ?? 1 }
    /// How many questions the document has, sealed or not.
    public var totalQuestions: Int { questionCount ?? questions.count }

    /// What students get: no grading data (answer keys, numeric tolerances, accepted answers, weights).
    public var served: Assessment {
        var copy = self
        func unweighted(_ choices: [Choice]?) -> [Choice]? { choices?.map { Choice(id: $0.id, text: $0.text) } }
        for index in copy.questions.indices {
            copy.questions[index].answerKey = nil
            copy.questions[index].tolerance = nil
            copy.questions[index].acceptedAnswers = nil
            copy.questions[index].acceptedAnswerWeights = nil
            copy.questions[index].processing = nil
            copy.questions[index].choices = unweighted(copy.questions[index].choices)
            copy.questions[index].left = unweighted(copy.questions[index].left)
            copy.questions[index].right = unweighted(copy.questions[index].right)
            copy.questions[index].items = unweighted(copy.questions[index].items)
            copy.questions[index].blanks = copy.questions[index].blanks?.map { Blank(id: $0.id, choices: unweighted($0.choices)) }
        }
        return copy
    }
}

/// When an assessment's results reach its students.
public enum ResultsRelease: String, Codable, Sendable, Hashable {
    case onSubmit = "on_submit"
    case afterRelease = "after_release"
}

/// The sealed part of a served document. `ciphertext`: AES-256-GCM (nonce | ciphertext | tag, base64) of the canonical
/// JSON of the served questions, with `id|version|content_hash` as associated data; `content_hash` is the hash of the
/// document as it reads once unsealed. `signature`: the server's Ed25519 signature over the canonical JSON of the
/// sealed document without it, so a changed ciphertext or header is refused at download, before any code is typed.
public struct SealedContent: Codable, Sendable, Hashable {
    public var ciphertext: String
    public var wrappedKey: WrappedKey
    public var signature: String?
    enum CodingKeys: String, CodingKey {
        case ciphertext, signature
        case wrappedKey = "wrapped_key"
    }
    public init(ciphertext: String, wrappedKey: WrappedKey, signature: String? = nil) {
        self.ciphertext = ciphertext
        self.wrappedKey = wrappedKey
        self.signature = signature
    }
}

/// The content key wrapped under a key derived from the start code (PBKDF2-HMAC-SHA512, `iterations`, `salt`), as
/// AES-256-GCM (nonce | ciphertext | tag, base64) with `id|version` as associated data.
public struct WrappedKey: Codable, Sendable, Hashable {
    public var salt: String
    public var iterations: Int
    public var sealed: String
    public init(salt: String, iterations: Int, sealed: String) {
        self.salt = salt
        self.iterations = iterations
        self.sealed = sealed
    }
}

/// `GET /v1/assessments/{id}/key`: a sealed version's content key, to an authenticated student once `opens_at` passed.
public struct SealedKeyResponse: Codable, Sendable, Equatable {
    public var id: String
    public var version: Int
    public var contentKey: String
    enum CodingKeys: String, CodingKey {
        case id, version
        case contentKey = "content_key"
    }
    public init(id: String, version: Int, contentKey: String) {
        self.id = id
        self.version = version
        self.contentKey = contentKey
    }
}

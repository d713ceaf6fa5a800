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

/// One blank of a fill-in-the-blanks question, written `[id]` in its prompt: a choice blank or a text blank.
public struct Blank: Sendable, Hashable {
    public var id: String
    public var kind: Kind

    public enum Kind: Sendable, Hashable {
        /// Options to pick from; grading data: the right option's id.
        case choice(choices: [Choice], answer: String?)
        /// Typed text. Grading data: the accepted answers (none: the teacher scores it); their partial credit (text ->
        /// weight in [-1, 1]; an accepted answer not named earns full credit); for a numeric blank (Moodle's NUMERICAL
        /// gap) each accepted answer's tolerance, the student's answer compared with them as a number ("4.0" and
        /// "4,0" are 4).
        case text(accepted: [String], weights: [String: Double]?, tolerances: [String: Double]?)
    }

    public init(id: String, kind: Kind) {
        self.id = id
        self.kind = kind
    }

    /// A choice blank when `choices` are given, else a text blank.
    public init(
        id: String,
        choices: [Choice]? = nil,
        acceptedAnswers: [String]? = nil,
        answer: String? = nil,
        acceptedAnswerWeights: [String: Double]? = nil,
        tolerances: [String: Double]? = nil
    ) {
        self.id = id
        if let choices {
            kind = .choice(choices: choices, answer: answer)
        } else {
            kind = .text(accepted: acceptedAnswers ?? [], weights: acceptedAnswerWeights, tolerances: tolerances)
        }
    }

    /// A choice blank's options; none for a text blank.
    public var options: [Choice] {
        switch kind {
        case .choice(let choices, _): choices
        case .text: []
        }
    }

    /// The answer a released result shows: the right option, or the first accepted text.
    public var rightAnswer: String? {
        switch kind {
        case .choice(_, let answer): answer
        case .text(let accepted, _, _): accepted.first
        }
    }

    /// What students get: the options without weights or the right one; a text blank as it is typed.
    public var served: Blank {
        switch kind {
        case .choice(let choices, _): Blank(id: id, kind: .choice(choices: choices.map(\.served), answer: nil))
        case .text: Blank(id: id, kind: .text(accepted: [], weights: nil, tolerances: nil))
        }
    }
}

extension Blank: Codable {
    enum CodingKeys: String, CodingKey {
        case id, choices, answer, tolerances
        case acceptedAnswers = "accepted_answers"
        case acceptedAnswerWeights = "accepted_answer_weights"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            choices: try container.decodeIfPresent([Choice].self, forKey: .choices),
            acceptedAnswers: try container.decodeIfPresent([String].self, forKey: .acceptedAnswers),
            answer: try container.decodeIfPresent(String.self, forKey: .answer),
            acceptedAnswerWeights: try container.decodeIfPresent([String: Double].self, forKey: .acceptedAnswerWeights),
            tolerances: try container.decodeIfPresent([String: Double].self, forKey: .tolerances)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        switch kind {
        case .choice(let choices, let answer):
            try container.encode(choices, forKey: .choices)
            try container.encodeIfPresent(answer, forKey: .answer)
        case .text(let accepted, let weights, let tolerances):
            if !accepted.isEmpty { try container.encode(accepted, forKey: .acceptedAnswers) }
            try container.encodeIfPresent(weights, forKey: .acceptedAnswerWeights)
            try container.encodeIfPresent(tolerances, forKey: .tolerances)
        }
    }
}

public struct Choice: Codable, Sendable, Hashable {
    public var id: String
    public var text: String
    /// Grading data, never served: the share of the question's points this choice earns, in [-1, 1] (a wrong choice
    /// may cost). Without weights a question is scored by its answer key.
    public var weight: Double?
    /// Keeps its place when the question's choices are shuffled ("None of the above" stays last).
    public var fixed: Bool?

    public init(id: String, text: String, weight: Double? = nil, fixed: Bool? = nil) {
        self.id = id
        self.text = text
        self.weight = weight
        self.fixed = fixed
    }

    /// What a student gets of it: no weight (its place is kept, for the server's draw).
    public var served: Choice { Choice(id: id, text: text, fixed: fixed) }
}

/// A question: what every type has (id, prompt, points, media, the server's hash, the item's own processing) and its
/// body, whose case is its type and holds that type's fields and no other's.
public struct Question: Sendable, Hashable {
    public var id: String
    public var prompt: String
    public var points: Double?
    public var body: QuestionBody
    /// Pictures and other files the question shows.
    public var media: [Media]?
    /// Set by the server: SHA-256 of the canonical served question.
    public var hash: String?
    /// The item's own response processing (QTI), which scores it instead of the keys of its body. Grading data: never
    /// served; the keys stay for showing the right answer.
    public var processing: ResponseProcessing?
    /// Keeps its place in its section when the section's order is shuffled.
    public var fixed: Bool?
    /// Whether its choices (options, items) are shuffled for each student; nil: as the assessment's `shuffle_choices`.
    public var shuffle: Bool?
    /// On a student's own served question: the lists shown in that student's order, each with the place every shown
    /// entry has in the author's list ("choices": [2, 0, 1]). The question's hash is the author's order's.
    public var shownOrder: [String: [Int]]?
    /// A template item's instances (QTI `templateProcessing`, drawn with different seeds at import): each student
    /// gets one, by their draw, as the question itself (its own numbers, keys and hash). Never in a student's own
    /// document.
    public var variants: [Question]?

    /// The question's type, as the wire and the teacher name it.
    public var type: QuestionType { body.type }

    public init(id: String, prompt: String, points: Double? = nil, body: QuestionBody) {
        self.id = id
        self.prompt = prompt
        self.points = points
        self.body = body
    }

    /// A question from the wire's flat fields (tests, fixtures and benchmarks write questions this way): the fields
    /// `type` does not have are not kept, as when a document is read.
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
        let fields = QuestionFields(
            choices: choices,
            answerKey: answerKey,
            tolerance: tolerance,
            maxLength: maxLength,
            acceptedAnswers: acceptedAnswers
        )
        self.init(id: id, prompt: prompt, points: points, body: QuestionBody(type, fields))
    }

    /// The body's fields as the wire spells them (nil where the type has none).
    public var fields: QuestionFields { body.fields }

    /// What students get of it: no grading data.
    public var served: Question {
        var copy = self
        copy.processing = nil
        copy.body = body.served
        copy.variants = variants?.map(\.served)
        return copy
    }
}

/// A question whose document gives it a list its type does not have (an essay with choices): its items would be
/// lost, so the document is not read.
public struct QuestionShapeError: Error, Sendable, Equatable, CustomStringConvertible {
    public let questionID: String
    public let type: QuestionType
    /// The list, in words ("choices", "left or right items").
    public let field: String
    public var description: String { "question \(questionID) is \(type.rawValue) and cannot have \(field)" }
}

extension Question: Codable {
    enum CodingKeys: String, CodingKey {
        case id, type, prompt, points, hash, media
        case processing = "response_processing"
        case fixed, shuffle, variants
        case shownOrder = "shown_order"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        fixed = try container.decodeIfPresent(Bool.self, forKey: .fixed)
        shuffle = try container.decodeIfPresent(Bool.self, forKey: .shuffle)
        shownOrder = try container.decodeIfPresent([String: [Int]].self, forKey: .shownOrder)
        variants = try container.decodeIfPresent([Question].self, forKey: .variants)
        prompt = try container.decode(String.self, forKey: .prompt)
        points = try container.decodeIfPresent(Double.self, forKey: .points)
        media = try container.decodeIfPresent([Media].self, forKey: .media)
        hash = try container.decodeIfPresent(String.self, forKey: .hash)
        processing = try container.decodeIfPresent(ResponseProcessing.self, forKey: .processing)
        let type = try container.decode(QuestionType.self, forKey: .type)
        let fields = try QuestionFields(from: decoder)
        if let foreign = fields.foreignLists(for: type) { throw QuestionShapeError(questionID: id, type: type, field: foreign) }
        body = QuestionBody(type, fields)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encode(prompt, forKey: .prompt)
        try container.encodeIfPresent(points, forKey: .points)
        try container.encodeIfPresent(media, forKey: .media)
        try container.encodeIfPresent(hash, forKey: .hash)
        try container.encodeIfPresent(processing, forKey: .processing)
        try container.encodeIfPresent(fixed, forKey: .fixed)
        try container.encodeIfPresent(shuffle, forKey: .shuffle)
        try container.encodeIfPresent(shownOrder, forKey: .shownOrder)
        try container.encodeIfPresent(variants, forKey: .variants)
        try fields.encode(to: encoder)
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
    /// Pools and order: every question in exactly one section; each student gets `select` of a section's questions,
    /// shuffled where the section says so. Nil: every question, in the author's order.
    public var sections: [Section]?
    /// Shuffles the choices, matching options and ordering items of every question for each student (a question's
    /// own `shuffle` decides for it).
    public var shuffleChoices: Bool?

    enum CodingKeys: String, CodingKey {
        case id, title, description, questions, version, sections
        case shuffleChoices = "shuffle_choices"
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
        copy.questions = questions.map(\.served)
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

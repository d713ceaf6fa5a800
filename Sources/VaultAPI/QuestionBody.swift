import Foundation

/// What a question is made of beyond its prompt, one case per type with that type's fields. A new type is a new case:
/// every place that treats types differently switches over the body, so the compiler names each one to fill in.
///
/// The wire keeps the flat form (`type` beside the fields); `QuestionFields` is that form, and the two tables below
/// (`init(_:_:)` and `fields`) are the only place that maps one to the other.
public enum QuestionBody: Sendable, Hashable {
    case singleChoice(Choices)
    case multipleChoice(Choices)
    case trueFalse(TrueFalse)
    case numeric(Numeric)
    case shortText(ShortText)
    case essay(Essay)
    /// Left items numbered, right items lettered; the answer pairs them.
    case matching(Matching)
    /// Items to put in order.
    case ordering(Ordering)
    /// A prompt with numbered blanks `[1]`, `[2]`, …: text blanks and choice blanks.
    case fillInBlanks(FillInBlanks)

    /// Single or multiple choice: the choices and, for the teacher, the keyed choice ids.
    public struct Choices: Sendable, Hashable {
        public var choices: [Choice]
        /// Grading data: the right choice ids.
        public var answerKey: [JSONValue]?
        public init(choices: [Choice], answerKey: [JSONValue]? = nil) {
            self.choices = choices
            self.answerKey = answerKey
        }
    }

    public struct TrueFalse: Sendable, Hashable {
        /// Grading data: one true or false.
        public var answerKey: [JSONValue]?
        public init(answerKey: [JSONValue]? = nil) { self.answerKey = answerKey }
    }

    public struct Numeric: Sendable, Hashable {
        /// Grading data: the right number.
        public var answerKey: [JSONValue]?
        /// Grading data: how far from it still scores.
        public var tolerance: Double?
        public init(answerKey: [JSONValue]? = nil, tolerance: Double? = nil) {
            self.answerKey = answerKey
            self.tolerance = tolerance
        }
    }

    public struct ShortText: Sendable, Hashable {
        public var maxLength: Int?
        /// Grading data: the answers that score (compared case-folded, trimmed, whitespace collapsed, Unicode NFC);
        /// none: the teacher scores it.
        public var acceptedAnswers: [String]
        /// Grading data: partial credit of accepted answers (text -> weight in [-1, 1]; one not named earns full credit).
        public var acceptedAnswerWeights: [String: Double]?
        public init(maxLength: Int? = nil, acceptedAnswers: [String] = [], acceptedAnswerWeights: [String: Double]? = nil) {
            self.maxLength = maxLength
            self.acceptedAnswers = acceptedAnswers
            self.acceptedAnswerWeights = acceptedAnswerWeights
        }
    }

    public struct Essay: Sendable, Hashable {
        public var maxLength: Int?
        public init(maxLength: Int? = nil) { self.maxLength = maxLength }
    }

    public struct Matching: Sendable, Hashable {
        /// Numbered for the student.
        public var left: [Choice]
        /// Lettered for the student.
        public var right: [Choice]
        /// Grading data: the right pairs `[left, right]`.
        public var answerKey: [JSONValue]?
        public init(left: [Choice], right: [Choice], answerKey: [JSONValue]? = nil) {
            self.left = left
            self.right = right
            self.answerKey = answerKey
        }
    }

    public struct Ordering: Sendable, Hashable {
        public var items: [Choice]
        /// Grading data: the item ids in the right order.
        public var answerKey: [JSONValue]?
        public init(items: [Choice], answerKey: [JSONValue]? = nil) {
            self.items = items
            self.answerKey = answerKey
        }
    }

    public struct FillInBlanks: Sendable, Hashable {
        public var blanks: [Blank]
        public init(blanks: [Blank]) { self.blanks = blanks }
    }

    public var type: QuestionType {
        switch self {
        case .singleChoice: .singleChoice
        case .multipleChoice: .multipleChoice
        case .trueFalse: .trueFalse
        case .numeric: .numeric
        case .shortText: .shortText
        case .essay: .essay
        case .matching: .matching
        case .ordering: .ordering
        case .fillInBlanks: .fillInBlanks
        }
    }

    /// The body of a `type` question from the wire's fields; the fields that type does not have are not kept (a list
    /// it does not have is refused before, by `QuestionFields.foreignLists`).
    public init(_ type: QuestionType, _ fields: QuestionFields) {
        switch type {
        case .singleChoice: self = .singleChoice(Choices(choices: fields.choices ?? [], answerKey: fields.answerKey))
        case .multipleChoice: self = .multipleChoice(Choices(choices: fields.choices ?? [], answerKey: fields.answerKey))
        case .trueFalse: self = .trueFalse(TrueFalse(answerKey: fields.answerKey))
        case .numeric: self = .numeric(Numeric(answerKey: fields.answerKey, tolerance: fields.tolerance))
        case .shortText:
            self = .shortText(
                ShortText(
                    maxLength: fields.maxLength,
                    acceptedAnswers: fields.acceptedAnswers ?? [],
                    acceptedAnswerWeights: fields.acceptedAnswerWeights
                )
            )
        case .essay: self = .essay(Essay(maxLength: fields.maxLength))
        case .matching: self = .matching(Matching(left: fields.left ?? [], right: fields.right ?? [], answerKey: fields.answerKey))
        case .ordering: self = .ordering(Ordering(items: fields.items ?? [], answerKey: fields.answerKey))
        case .fillInBlanks: self = .fillInBlanks(FillInBlanks(blanks: fields.blanks ?? []))
        }
    }

    /// The body as the wire's flat fields.
    public var fields: QuestionFields {
        switch self {
        case .singleChoice(let body), .multipleChoice(let body): QuestionFields(choices: body.choices, answerKey: body.answerKey)
        case .trueFalse(let body): QuestionFields(answerKey: body.answerKey)
        case .numeric(let body): QuestionFields(answerKey: body.answerKey, tolerance: body.tolerance)
        case .shortText(let body):
            QuestionFields(
                maxLength: body.maxLength,
                acceptedAnswers: body.acceptedAnswers.isEmpty ? nil : body.acceptedAnswers,
                acceptedAnswerWeights: body.acceptedAnswerWeights
            )
        case .essay(let body): QuestionFields(maxLength: body.maxLength)
        case .matching(let body): QuestionFields(answerKey: body.answerKey, left: body.left, right: body.right)
        case .ordering(let body): QuestionFields(answerKey: body.answerKey, items: body.items)
        case .fillInBlanks(let body): QuestionFields(blanks: body.blanks)
        }
    }

    /// What students get: no answer keys, tolerances, accepted answers or weights.
    public var served: QuestionBody {
        func unweighted(_ choices: [Choice]) -> [Choice] { choices.map(\.served) }
        return switch self {
        case .singleChoice(let body): .singleChoice(Choices(choices: unweighted(body.choices)))
        case .multipleChoice(let body): .multipleChoice(Choices(choices: unweighted(body.choices)))
        case .trueFalse: .trueFalse(TrueFalse())
        case .numeric: .numeric(Numeric())
        case .shortText(let body): .shortText(ShortText(maxLength: body.maxLength))
        case .essay: self
        case .matching(let body): .matching(Matching(left: unweighted(body.left), right: unweighted(body.right)))
        case .ordering(let body): .ordering(Ordering(items: unweighted(body.items)))
        case .fillInBlanks(let body):
            .fillInBlanks(FillInBlanks(blanks: body.blanks.map(\.served)))
        }
    }

    /// The body without the keys a question's hash leaves out (answer keys, accepted answers and their weights); a
    /// served body has none of them already.
    var unkeyed: QuestionBody {
        var fields = fields
        fields.answerKey = nil
        fields.acceptedAnswers = nil
        fields.acceptedAnswerWeights = nil
        return QuestionBody(type, fields)
    }

    /// A choice question's choices; none for the other types.
    public var choices: [Choice] {
        switch self {
        case .singleChoice(let body), .multipleChoice(let body): body.choices
        case .trueFalse, .numeric, .shortText, .essay, .matching, .ordering, .fillInBlanks: []
        }
    }

    /// Every item the body shows: choices, left and right items, items to order, blanks' choices.
    public var shownItems: [Choice] {
        switch self {
        case .singleChoice(let body), .multipleChoice(let body): body.choices
        case .matching(let body): body.left + body.right
        case .ordering(let body): body.items
        case .fillInBlanks(let body): body.blanks.flatMap(\.options)
        case .trueFalse, .numeric, .shortText, .essay: []
        }
    }

    /// The answer key of a type that has one.
    public var answerKey: [JSONValue]? {
        switch self {
        case .singleChoice(let body), .multipleChoice(let body): body.answerKey
        case .trueFalse(let body): body.answerKey
        case .numeric(let body): body.answerKey
        case .matching(let body): body.answerKey
        case .ordering(let body): body.answerKey
        case .shortText, .essay, .fillInBlanks: nil
        }
    }
}

/// A question's type-specific fields as the wire spells them, every one optional: how a document reads and writes a
/// body (`QuestionBody.init(_:_:)`, `QuestionBody.fields`). Code that works with questions uses the body.
public struct QuestionFields: Codable, Sendable, Hashable {
    public var choices: [Choice]?
    public var answerKey: [JSONValue]?
    public var tolerance: Double?
    public var maxLength: Int?
    public var acceptedAnswers: [String]?
    public var acceptedAnswerWeights: [String: Double]?
    public var left: [Choice]?
    public var right: [Choice]?
    public var items: [Choice]?
    public var blanks: [Blank]?

    enum CodingKeys: String, CodingKey {
        case choices, tolerance, left, right, items, blanks
        case answerKey = "answer_key"
        case maxLength = "max_length"
        case acceptedAnswers = "accepted_answers"
        case acceptedAnswerWeights = "accepted_answer_weights"
    }

    public init(
        choices: [Choice]? = nil,
        answerKey: [JSONValue]? = nil,
        tolerance: Double? = nil,
        maxLength: Int? = nil,
        acceptedAnswers: [String]? = nil,
        acceptedAnswerWeights: [String: Double]? = nil,
        left: [Choice]? = nil,
        right: [Choice]? = nil,
        items: [Choice]? = nil,
        blanks: [Blank]? = nil
    ) {
        self.choices = choices
        self.answerKey = answerKey
        self.tolerance = tolerance
        self.maxLength = maxLength
        self.acceptedAnswers = acceptedAnswers
        self.acceptedAnswerWeights = acceptedAnswerWeights
        self.left = left
        self.right = right
        self.items = items
        self.blanks = blanks
    }

    /// The lists a `type` question cannot have (its items would be lost), in words; nil when there are none.
    func foreignLists(for type: QuestionType) -> String? {
        let own = QuestionBody(type, self).fields
        let foreign = [
            ("choices", choices != nil && own.choices == nil),
            ("left or right items", (left != nil || right != nil) && own.left == nil),
            ("items", items != nil && own.items == nil),
            ("blanks", blanks != nil && own.blanks == nil),
        ]
        return foreign.first { $0.1 }?.0
    }
}

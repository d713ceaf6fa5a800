import VaultAPI

extension Question {
    /// Tests write a question's fields in the wire's flat form: setting one rebuilds the body, as reading a document
    /// would (a field the question's type does not have is not kept).
    public var wire: QuestionFields {
        get { fields }
        set { body = QuestionBody(type, newValue) }
    }

    /// The same fields under another type, as a document with another `type` would read.
    public mutating func retype(_ type: QuestionType) { body = QuestionBody(type, fields) }
}

extension Blank {
    /// A blank's fields as the wire spells them, for tests that check what a reader made.
    public var choices: [Choice]? { if case .choice(let choices, _) = kind { choices } else { nil } }
    public var answer: String? { if case .choice(_, let answer) = kind { answer } else { nil } }
    public var acceptedAnswers: [String]? { if case .text(let accepted, _, _) = kind, !accepted.isEmpty { accepted } else { nil } }
    public var acceptedAnswerWeights: [String: Double]? { if case .text(_, let weights, _) = kind { weights } else { nil } }
    public var tolerances: [String: Double]? { if case .text(_, _, let tolerances) = kind { tolerances } else { nil } }
}

import Foundation

/// A part of an assessment: its questions, how many of them each student gets (`select`; all when nil) and whether
/// their order is shuffled for each student (a question marked `fixed` keeps its place). Sections keep their order.
public struct Section: Codable, Sendable, Hashable {
    public var id: String
    public var title: String?
    public var select: Int?
    public var shuffle: Bool?
    public var questions: [String]

    public init(id: String, title: String? = nil, select: Int? = nil, shuffle: Bool? = nil, questions: [String]) {
        self.id = id
        self.title = title
        self.select = select
        self.shuffle = shuffle
        self.questions = questions
    }

    /// How many of its questions each student gets.
    public var count: Int { min(select ?? questions.count, questions.count) }
}

extension Assessment {
    /// Whether each student gets a document of their own (a draw): a section that selects or shuffles, or a question
    /// whose choices are shuffled. False for a document that says nothing of it, whose served bytes stay as they are.
    public var drawsPerStudent: Bool {
        if let sections, sections.contains(where: { $0.shuffle == true || $0.count < $0.questions.count }) { return true }
        if questions.contains(where: { ($0.variants?.count ?? 0) > 1 }) { return true }
        return questions.contains { $0.shufflesChoices(default: shuffleChoices ?? false) && !$0.body.orderableLists.isEmpty }
    }

    /// The document with every shuffle turned off (sections, questions, the assessment's choices); selections stay.
    public var withoutShuffling: Assessment {
        var copy = self
        copy.shuffleChoices = nil
        copy.sections = sections?.map { section in
            var section = section
            section.shuffle = nil
            return section
        }
        for index in copy.questions.indices { copy.questions[index].shuffle = nil }
        return copy
    }

    /// How many questions each student gets: what the sections select (a pool gives `select` of its questions),
    /// never more than the document's own count.
    public var questionsPerStudent: Int {
        guard let sections else { return totalQuestions }
        return min(totalQuestions, sections.map(\.count).reduce(0, +))
    }

    /// The sections as a student's draw walks them: the document's, or one holding every question in order.
    public var effectiveSections: [Section] {
        sections ?? [Section(id: "all", questions: questions.map(\.id))]
    }
}

extension Question {
    /// Whether this question's lists are shuffled for each student, `default` being the assessment's choice.
    public func shufflesChoices(default: Bool) -> Bool { shuffle ?? `default` }

    /// The question with its lists back in the author's order (undoing `shownOrder`), without the fields of the draw:
    /// what its hash covers, so a student's own order hashes as the author's. A `shownOrder` that is not a
    /// permutation of its list is left as it is (the hash then does not match, and the document is refused).
    public var inAuthorOrder: Question {
        var copy = self
        copy.fixed = nil
        copy.shuffle = nil
        copy.shownOrder = nil
        var body = body
        for (name, positions) in shownOrder ?? [:] {
            guard let shown = body.orderableLists[name], positions.count == shown.count,
                Set(positions) == Set(0..<shown.count)
            else { return self }
            var author = shown
            for (index, position) in positions.enumerated() { author[position] = shown[index] }
            body = body.replacing(list: name, with: author)
        }
        for (name, list) in body.orderableLists where list.contains(where: { $0.fixed != nil }) {
            body = body.replacing(list: name, with: list.map { Choice(id: $0.id, text: $0.text, weight: $0.weight) })
        }
        copy.body = body
        return copy
    }
}

extension QuestionBody {
    /// The lists a draw may put in a student's own order, by name: a choice question's choices, a matching question's
    /// options (the lettered right side; the numbered left stays), an ordering question's items, a choice blank's
    /// options ("blank:<id>").
    public var orderableLists: [String: [Choice]] {
        switch self {
        case .singleChoice(let body), .multipleChoice(let body): ["choices": body.choices]
        case .matching(let body): ["right": body.right]
        case .ordering(let body): ["items": body.items]
        case .fillInBlanks(let body):
            Dictionary(
                body.blanks.compactMap { blank in blank.options.isEmpty ? nil : ("blank:\(blank.id)", blank.options) },
                uniquingKeysWith: { first, _ in first }
            )
        case .trueFalse, .numeric, .shortText, .essay: [:]
        }
    }

    /// The body with the list `name` replaced by `items` (the same entries in another order); unchanged for a name it
    /// does not have.
    public func replacing(list name: String, with items: [Choice]) -> QuestionBody {
        switch self {
        case .singleChoice(var body) where name == "choices":
            body.choices = items
            return .singleChoice(body)
        case .multipleChoice(var body) where name == "choices":
            body.choices = items
            return .multipleChoice(body)
        case .matching(var body) where name == "right":
            body.right = items
            return .matching(body)
        case .ordering(var body) where name == "items":
            body.items = items
            return .ordering(body)
        case .fillInBlanks(var body) where name.hasPrefix("blank:"):
            let id = String(name.dropFirst("blank:".count))
            for index in body.blanks.indices where body.blanks[index].id == id {
                if case .choice(_, let answer) = body.blanks[index].kind { body.blanks[index].kind = .choice(choices: items, answer: answer) }
            }
            return .fillInBlanks(body)
        default:
            return self
        }
    }
}

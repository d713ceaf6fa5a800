import Foundation

/// Checks an assessment document against the format's rules. Used by the server on publish and by the client on
/// download (a hostile or broken server must not get a malformed document into the vault).
public enum AssessmentValidator {
    public static let maxDocumentBytes = 10 * 1024 * 1024
    public static let maxQuestions = 2_000
    public static let maxPromptCharacters = 100_000

    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }

    public static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
    }

    static func isValidItemID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
    }

    /// Throws the first problem found, in a sentence a teacher can act on.
    public static func validate(_ assessment: Assessment, requireAnswerKeyAbsent: Bool = false) throws {
        func fail(_ message: String) throws -> Never { throw Problem(message: message) }
        guard isValidID(assessment.id) else { try fail("The id must be 1 to 64 characters of a-z, 0-9 and '-'.") }
        guard !assessment.title.trimmingCharacters(in: .whitespaces).isEmpty, assessment.title.count <= 500 else {
            try fail("The title must be between 1 and 500 characters.")
        }
        guard !assessment.questions.isEmpty else { try fail("An assessment needs at least one question.") }
        guard assessment.questions.count <= maxQuestions else { try fail("An assessment may hold at most \(maxQuestions) questions.") }
        if let limit = assessment.timeLimitSeconds, limit < 1 || limit > 7 * 24 * 3600 {
            try fail("time_limit_seconds must be between 1 and 604800.")
        }
        if let attempts = assessment.attempts, attempts < 1 || attempts > 100 {
            try fail("attempts must be between 1 and 100.")
        }
        if let notAfter = assessment.notAfter, Timestamp.date(notAfter) == nil {
            try fail("not_after must be an RFC 3339 date such as 2026-12-31T23:59:59Z.")
        }
        if let opensAt = assessment.opensAt, Timestamp.date(opensAt) == nil {
            try fail("opens_at must be an RFC 3339 date such as 2026-12-31T09:00:00Z.")
        }
        var seen = Set<String>()
        for question in assessment.questions {
            let name = "Question \(question.id)"
            guard isValidItemID(question.id) else { try fail("Question ids must be 1 to 64 letters, digits, '-' or '_'.") }
            guard seen.insert(question.id).inserted else { try fail("\(name) appears twice.") }
            guard !question.prompt.isEmpty, question.prompt.count <= maxPromptCharacters else {
                try fail("\(name) needs a prompt of at most \(maxPromptCharacters) characters.")
            }
            if let points = question.points, Numbers.points(points) == nil {
                try fail(
                    "\(name) is worth \(AttemptResult.pointsText(points)) points; a question is worth more than 0 and at most \(pointsLimit) points."
                )
            }
            if requireAnswerKeyAbsent, question.body.answerKey != nil { try fail("\(name) carries an answer key, which must never be served.") }
            try checkBody(question, name: name, fail: fail)
            try checkWeights(question.body, name: name, served: requireAnswerKeyAbsent, fail: fail)
            if let processing = question.processing {
                if requireAnswerKeyAbsent { try fail("\(name) carries its response processing, which must never be served.") }
                try checkProcessing(processing, question: question, name: name, fail: fail)
            }
            if let variants = question.variants {
                guard !variants.isEmpty, variants.count <= 50 else {
                    try fail("\(name) has \(variants.count) instances; a template item may have 1 to 50.")
                }
                for variant in variants {
                    guard variant.id == question.id, variant.type == question.type, variant.variants == nil, !variant.prompt.isEmpty,
                        variant.prompt.count <= maxPromptCharacters
                    else { try fail("\(name) has an instance of another id or type.") }
                    try checkBody(variant, name: name, fail: fail)
                }
            }
            if let shown = question.shownOrder {
                let lists = question.body.orderableLists
                for (list, positions) in shown {
                    guard let items = lists[list], positions.count == items.count, Set(positions) == Set(0..<items.count) else {
                        try fail("\(name) has a shown order that is not an order of its \(list).")
                    }
                }
            }
        }
        if let sections = assessment.sections { try checkSections(sections, questions: assessment.questions.map(\.id), fail: fail) }
    }

    /// Pools: every question in exactly one section, each named once; a section selects at least one and at most
    /// as many questions as it holds.
    static func checkSections(_ sections: [Section], questions: [String], fail: (String) throws -> Never) throws {
        guard !sections.isEmpty, sections.count <= maxQuestions else { try fail("sections must list between 1 and \(maxQuestions) sections.") }
        var sectionIDs = Set<String>()
        var placed = [String: String]()
        let known = Set(questions)
        for section in sections {
            guard isValidItemID(section.id) else { try fail("Section ids must be 1 to 64 letters, digits, '-' or '_'.") }
            guard sectionIDs.insert(section.id).inserted else { try fail("Section \(section.id) appears twice.") }
            if let title = section.title, title.count > 500 { try fail("Section \(section.id) has a title over 500 characters.") }
            guard !section.questions.isEmpty else { try fail("Section \(section.id) lists no questions.") }
            for id in section.questions {
                guard known.contains(id) else { try fail("Section \(section.id) names question \(id), which the assessment does not have.") }
                if let other = placed.updateValue(section.id, forKey: id) {
                    try fail(
                        other == section.id
                            ? "Section \(section.id) names question \(id) twice."
                            : "Question \(id) is in two sections (\(other) and \(section.id)); a question belongs to one section."
                    )
                }
            }
            if let select = section.select, select < 1 || select > section.questions.count {
                try fail(
                    "Section \(section.id) selects \(select) of its \(section.questions.count) questions; it can give each student from 1 to \(section.questions.count)."
                )
            }
        }
        if let missing = questions.first(where: { placed[$0] == nil }) {
            try fail("Question \(missing) is in no section; when an assessment has sections, every question belongs to one.")
        }
    }

    /// The rules of each type's own fields.
    static func checkBody(_ question: Question, name: String, fail: (String) throws -> Never) throws {
        switch question.body {
        case .singleChoice(let body), .multipleChoice(let body):
            let choices = body.choices
            guard choices.count >= 2, choices.count <= 100 else { try fail("\(name) needs between 2 and 100 choices.") }
            let ids = choices.map(\.id)
            guard Set(ids).count == ids.count, ids.allSatisfy(isValidItemID), choices.allSatisfy({ !$0.text.isEmpty }) else {
                try fail("\(name) has choices with missing or repeated ids or empty texts.")
            }
            if let key = body.answerKey {
                let keyIDs = key.compactMap(\.stringValue)
                let single: Bool = if case .singleChoice = question.body { true } else { false }
                guard keyIDs.count == key.count, !keyIDs.isEmpty, keyIDs.allSatisfy(ids.contains), !single || keyIDs.count == 1 else {
                    try fail("\(name) has an answer key that does not name its choices.")
                }
            }
        case .trueFalse(let body):
            if let key = body.answerKey, key.count != 1 || key[0].boolValue == nil {
                try fail("\(name) needs an answer key of one true or false.")
            }
        case .numeric(let body):
            if let key = body.answerKey, key.isEmpty || key.contains(where: { $0.numberValue == nil }) {
                try fail("\(name) needs numbers in its answer key.")
            }
            if let key = body.answerKey, key.contains(where: { !isReasonable($0.numberValue ?? 0) }) {
                try fail("\(name) has an answer key beyond \(magnitudeLimit).")
            }
            if let tolerance = body.tolerance, !(tolerance >= 0 && tolerance <= Numbers.maxMagnitude) {
                try fail("\(name) needs a tolerance from 0 to \(magnitudeLimit).")
            }
        case .shortText(let body):
            try checkMaxLength(body.maxLength, name: name, fail: fail)
        case .essay(let body):
            try checkMaxLength(body.maxLength, name: name, fail: fail)
        case .matching(let body):
            let (left, right) = (body.left, body.right)
            guard !left.isEmpty, left.count <= 26, right.count >= 2, right.count <= 26, Self.itemsAreValid(left), Self.itemsAreValid(right)
            else { try fail("\(name) needs 1 to 26 left items and 2 to 26 right items, each with its own id and a text.") }
            if let key = body.answerKey {
                let pairs = key.compactMap(AnswerRules.pair)
                guard pairs.count == key.count, !pairs.isEmpty, Set(pairs.map(\.left)).count == pairs.count,
                    pairs.allSatisfy({ pair in left.contains { $0.id == pair.left } && right.contains { $0.id == pair.right } })
                else { try fail("\(name) has an answer key that is not pairs of its left and right items.") }
            }
        case .ordering(let body):
            guard body.items.count >= 2, body.items.count <= 26, Self.itemsAreValid(body.items) else {
                try fail("\(name) needs 2 to 26 items, each with its own id and a text.")
            }
            if let key = body.answerKey {
                let ids = key.compactMap(\.stringValue)
                guard ids.count == body.items.count, Set(ids) == Set(body.items.map(\.id)) else {
                    try fail("\(name) has an answer key that is not its items in order.")
                }
            }
        case .fillInBlanks(let body):
            let blanks = body.blanks
            guard !blanks.isEmpty, blanks.count <= 50, Set(blanks.map(\.id)).count == blanks.count else {
                try fail("\(name) needs 1 to 50 blanks with distinct ids.")
            }
            for blank in blanks {
                guard isValidItemID(blank.id), question.prompt.contains("[\(blank.id)]") else {
                    try fail("\(name) has a blank \(blank.id) that its prompt does not show as [\(blank.id)].")
                }
                if case .choice(let choices, let answer) = blank.kind {
                    guard choices.count >= 2, Self.itemsAreValid(choices) else { try fail("\(name): blank \(blank.id) needs at least 2 choices.") }
                    if let answer, !choices.contains(where: { $0.id == answer }) {
                        try fail("\(name): blank \(blank.id)'s answer is not one of its choices.")
                    }
                }
            }
        }
    }

    static func checkMaxLength(_ limit: Int?, name: String, fail: (String) throws -> Never) throws {
        if let limit, limit < 1 || limit > 1_000_000 { try fail("\(name) has a max_length outside 1 to 1,000,000.") }
    }

    /// Partial credit: weights in [-1, 1], on choices and blank choices only, accepted-answer weights naming accepted
    /// answers; none at all in a served document (they are grading data).
    static func checkWeights(_ body: QuestionBody, name: String, served: Bool, fail: (String) throws -> Never) throws {
        var weighted: [Choice] = []
        var answerWeights: [[String: Double]] = []
        switch body {
        case .singleChoice(let choices), .multipleChoice(let choices): weighted = choices.choices
        case .shortText(let text):
            answerWeights = [text.acceptedAnswerWeights].compactMap { $0 }
            if let weights = text.acceptedAnswerWeights, !Set(weights.keys).isSubset(of: Set(text.acceptedAnswers)) {
                try fail("\(name) weighs an answer that is not one of its accepted answers.")
            }
        case .matching(let matching):
            if (matching.left + matching.right).contains(where: { $0.weight != nil }) {
                try fail("\(name): only choices and accepted answers carry weights.")
            }
        case .ordering(let ordering):
            if ordering.items.contains(where: { $0.weight != nil }) { try fail("\(name): only choices and accepted answers carry weights.") }
        case .fillInBlanks(let fill):
            weighted = fill.blanks.flatMap(\.options)
            for blank in fill.blanks {
                guard case .text(let accepted, let weights, let tolerances) = blank.kind else { continue }
                answerWeights += [weights].compactMap { $0 }
                if let tolerances {
                    if served { try fail("\(name): blank \(blank.id) carries tolerances, which are grading data and must never be served.") }
                    guard Set(tolerances.keys).isSubset(of: Set(accepted)), tolerances.keys.allSatisfy({ Double($0) != nil }),
                        tolerances.values.allSatisfy({ isReasonable($0) && $0 >= 0 })
                    else { try fail("\(name): blank \(blank.id)'s tolerances must be 0 or more, for accepted answers that are numbers.") }
                }
                if let weights, !Set(weights.keys).isSubset(of: Set(accepted)) {
                    try fail("\(name): blank \(blank.id) weighs an answer that is not one of its accepted answers.")
                }
            }
        case .trueFalse, .numeric, .essay: break
        }
        if served, weighted.contains(where: { $0.weight != nil }) || !answerWeights.isEmpty {
            try fail("\(name) carries weights, which are grading data and must never be served.")
        }
        let all = weighted.compactMap(\.weight) + answerWeights.flatMap(\.values)
        guard all.allSatisfy({ $0.isFinite && $0 >= -1 && $0 <= 1 }) else { try fail("\(name) has a weight outside -1 to 1.") }
    }

    /// Response processing within the format's bounds: at most `ResponseProcessing.maxDepth` deep and `maxNodes` in
    /// all, its numbers bounded, bound to responses it declares. Whether the server can evaluate it (the operators it
    /// knows, the work it takes) is the evaluator's to say: `PublishCheck` (VaultScoring) adds that at publish.
    static func checkProcessing(_ processing: ResponseProcessing, question: Question, name: String, fail: (String) throws -> Never) throws {
        var nodes = 0
        for rule in processing.rules {
            let shape = rule.shape
            nodes += shape.count
            guard shape.depth <= ResponseProcessing.maxDepth else {
                try fail("\(name)'s response processing is nested more than \(ResponseProcessing.maxDepth) deep.")
            }
        }
        let declared = processing.responses + processing.outcomes + (processing.templates ?? [])
        let tables = declared.map { ($0.mapping?.entries.count ?? 0) + ($0.lookup?.entries.count ?? 0) + ($0.correct?.count ?? 0) }
        guard nodes + tables.reduce(0, +) <= ResponseProcessing.maxNodes, declared.count <= 100 else {
            try fail("\(name)'s response processing is larger than \(ResponseProcessing.maxNodes) parts.")
        }
        if let weight = processing.weight, !(weight > 0 && weight <= 1_000) { try fail("\(name)'s weight must be above 0 and at most 1,000.") }
        for variable in declared {
            if let maximum = variable.normalMaximum, Numbers.points(maximum) == nil {
                try fail(
                    "\(name)'s \(variable.identifier) has a normal maximum of \(AttemptResult.pointsText(maximum)); it must be above 0 and at most \(pointsLimit)."
                )
            }
            if let mapping = variable.mapping {
                let numbers = mapping.entries.map(\.value) + [mapping.defaultValue] + [mapping.lowerBound, mapping.upperBound].compactMap { $0 }
                guard numbers.allSatisfy(isReasonable) else {
                    try fail("\(name)'s \(variable.identifier) maps answers to numbers beyond \(magnitudeLimit).")
                }
            }
            if let table = variable.lookup, !table.entries.map(\.source).allSatisfy(isReasonable) {
                try fail("\(name)'s \(variable.identifier) looks up numbers beyond \(magnitudeLimit).")
            }
        }
        let responses = Set(processing.responses.map(\.identifier))
        switch processing.binding {
        case .whole(let response), .swapped(let response):
            guard responses.contains(response) else { try fail("\(name)'s response processing does not declare \(response).") }
        case .blanks(let targets):
            guard case .fillInBlanks(let body) = question.body else { try fail("\(name)'s response processing names blanks it does not have.") }
            let blanks = Set(body.blanks.map(\.id))
            guard targets.keys.allSatisfy(blanks.contains), targets.values.allSatisfy({ responses.contains($0.response) }) else {
                try fail("\(name)'s response processing names blanks or responses it does not have.")
            }
        }
    }

    static let pointsLimit = "10,000"
    static let magnitudeLimit = "±1,000,000,000,000"

    /// Finite and within ±`Numbers.maxMagnitude`.
    static func isReasonable(_ value: Double) -> Bool { value.isFinite && abs(value) <= Numbers.maxMagnitude }

    /// Items of a matching or ordering question, or a blank's choices: distinct valid ids, texts not empty.
    static func itemsAreValid(_ items: [Choice]) -> Bool {
        Set(items.map(\.id)).count == items.count && items.allSatisfy { isValidItemID($0.id) && !$0.text.isEmpty }
    }
}

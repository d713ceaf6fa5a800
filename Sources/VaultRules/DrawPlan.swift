import Foundation
import VaultAPI
import VaultModel

/// One student's draw of one assessment, as the server keeps it: the questions they get, in their order, and the
/// order of each shuffled list by entry ids (question id -> list name -> ids). Ids, not positions, so a later
/// version that keeps those questions and choices keeps the student's draw.
public struct Draw: Codable, Sendable, Equatable {
    public var questions: [String]
    public var lists: [String: [String: [String]]]
    /// A template item's instance each student got (question id -> index into its `variants`).
    public var variants: [String: Int]?

    public init(questions: [String], lists: [String: [String: [String]]] = [:], variants: [String: Int]? = nil) {
        self.questions = questions
        self.lists = lists
        self.variants = variants
    }

    /// The question as this student was asked it: their instance of a template item, else the question.
    public func asked(_ question: Question) -> Question {
        guard let index = variants?[question.id], let instances = question.variants, instances.indices.contains(index) else { return question }
        var instance = instances[index]
        instance.id = question.id
        instance.fixed = question.fixed
        instance.shuffle = question.shuffle
        instance.media = question.media
        return instance
    }
}

/// Whose draw of which assessment.
public struct DrawKey: Hashable, Sendable {
    public var assessmentID: String
    public var user: String
    public init(assessmentID: String, user: String) {
        self.assessmentID = assessmentID
        self.user = user
    }
}

/// The draw as a store keeps it: the student's seed (so a later version draws its new questions the same way on
/// every device), the version it was made for, and the draw.
public struct StoredDraw: Sendable, Equatable {
    public var seed: Int64
    public var version: Int
    public var draw: Draw

    public init(seed: Int64, version: Int, draw: Draw) {
        self.seed = seed
        self.version = version
        self.draw = draw
    }

    /// The draw's stored text (canonical JSON).
    public func drawText() throws -> String { String(decoding: try CanonicalJSON.encode(draw), as: UTF8.self) }

    /// From a store's row; throws on text that is not a draw.
    public init(seed: Int64, version: Int, drawText: String) throws {
        self.init(seed: seed, version: version, draw: try JSONDecoder().decode(Draw.self, from: Data(drawText.utf8)))
    }

    /// A new student's seed: random, never derived from who they are (a change of the pool must not reorder anyone
    /// else's draw, and a name must not predict an order).
    public static func newSeed() -> Int64 { Int64.random(in: 1...Int64.max) }
}

/// Pools and each student's order: which questions a student gets and in which order, the order of their choices,
/// and their own served document. Pure: the store keeps the draw, made once per student and assessment.
public enum DrawPlan {
    /// The draw for `document` (the teacher's, with its answer keys) from `seed`. What `previous` drew (for an earlier
    /// version) stays where the document still has it: its questions, in its order, with its choice orders; new
    /// questions and choices are drawn from the seed to fill what is missing.
    public static func draw(_ document: Assessment, seed: Int64, previous: Draw? = nil) -> Draw {
        var generator = SplitMix64(seed: UInt64(bitPattern: seed))
        let byID = Dictionary(document.questions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var questions: [String] = []
        for section in document.effectiveSections {
            let pool = section.questions.filter { byID[$0] != nil }
            let inPool = Set(pool)
            var chosen = Array((previous?.questions.filter(inPool.contains) ?? []).prefix(section.count))
            if chosen.count < section.count {
                let taken = Set(chosen)
                chosen += shuffled(pool.filter { !taken.contains($0) }, using: &generator).prefix(section.count - chosen.count)
            }
            let drawn = Set(chosen)
            let inAuthorOrder = pool.filter(drawn.contains)
            guard section.shuffle == true else {
                questions += inAuthorOrder
                continue
            }
            let fixed = Set(inAuthorOrder.filter { byID[$0]?.fixed == true })
            questions += arranged(inAuthorOrder, fixed: fixed, previous: previous?.questions, using: &generator)
        }
        // A template item: each student one of its instances (kept from the earlier draw while it has as many).
        var variants: [String: Int] = [:]
        for id in questions {
            guard let count = byID[id]?.variants?.count, count > 1 else { continue }
            if let kept = previous?.variants?[id], kept < count {
                variants[id] = kept
            } else {
                variants[id] = Int(generator.next(below: UInt64(count)))
            }
        }
        var lists: [String: [String: [String]]] = [:]
        let shuffleChoices = document.shuffleChoices ?? false
        for id in questions {
            guard let question = byID[id].map({ Draw(questions: [], variants: variants).asked($0) }),
                question.shufflesChoices(default: shuffleChoices)
            else { continue }
            for (name, items) in question.body.orderableLists.sorted(by: { $0.key < $1.key }) where items.count > 1 {
                let ids = items.map(\.id)
                var order = arranged(
                    ids,
                    fixed: Set(items.filter { $0.fixed == true }.map(\.id)),
                    previous: previous?.lists[id]?[name],
                    using: &generator
                )
                // Items to put in order are never shown already in the right order.
                if name == "items", let key = question.body.answerKey?.compactMap(\.stringValue), order == key {
                    order = nudged(order, fixed: Set(items.filter { $0.fixed == true }.map(\.id)))
                }
                lists[id, default: [:]][name] = order
            }
        }
        return Draw(questions: questions, lists: lists, variants: variants.isEmpty ? nil : variants)
    }

    /// The teacher's `document` as one student was asked it: only the questions they drew (their maximum, their
    /// results, the questions the teacher grades for them), in the author's order.
    public static func asked(_ document: Assessment, draw: Draw?) -> Assessment {
        guard let draw else { return document }
        let drawn = Set(draw.questions)
        var copy = document
        copy.questions = document.questions.filter { drawn.contains($0.id) }.map(draw.asked)
        return copy
    }

    /// `served` (the stored served document, every question in the author's order) as this student gets it: only
    /// their questions, in their order, their lists in their order with `shown_order` beside them, sections reduced to
    /// what they drew, without the fields of the draw; its content hash set again (question hashes stay the
    /// author's order's).
    public static func apply(_ draw: Draw, to served: Assessment) throws -> Assessment {
        var document = served
        let byID = Dictionary(served.questions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        document.questions = draw.questions.compactMap { id in
            byID[id].map { question in
                var own = ownOrder(draw.asked(question), lists: draw.lists[id] ?? [:])
                own.variants = nil
                return own
            }
        }
        let drawn = document.questions.map(\.id)
        document.sections = served.sections.map { sections in
            sections.compactMap { section in
                let members = Set(section.questions)
                let own = drawn.filter(members.contains)
                return own.isEmpty ? nil : Section(id: section.id, title: section.title, questions: own)
            }
        }
        document.shuffleChoices = nil
        document.contentHash = nil
        document.contentHash = try ServedDocument.contentHash(document)
        return document
    }

    /// A question with its lists in the draw's order (an entry the draw does not name keeps the author's place after
    /// those it does), `shown_order` saying where each entry stands in the author's list, and no field of the draw.
    static func ownOrder(_ question: Question, lists: [String: [String]]) -> Question {
        var copy = question
        copy.fixed = nil
        copy.shuffle = nil
        var shown: [String: [Int]] = [:]
        for (name, items) in question.body.orderableLists {
            var positions = Array(items.indices)
            if let ids = lists[name] {
                let named = ids.compactMap { id in items.firstIndex { $0.id == id } }
                let rest = items.indices.filter { !named.contains($0) }
                positions = named + rest
            }
            let reordered = positions.map { items[$0] }.map { Choice(id: $0.id, text: $0.text, weight: $0.weight) }
            copy.body = copy.body.replacing(list: name, with: reordered)
            if positions != Array(items.indices) { shown[name] = positions }
        }
        copy.shownOrder = shown.isEmpty ? nil : shown
        return copy
    }

    /// Where a student's own order differs from the author's, the letters of `answer` as they saw them beside the
    /// source's: "their b) = c) in the source" (the teacher's answer sheet). Nil when the student saw the author's
    /// order or the answer names no lettered entry.
    public static func lettersNote(_ answer: JSONValue, question: Question, lists: [String: [String]]?) -> String? {
        guard let lists, !lists.isEmpty else { return nil }
        let letters = (0..<26).map { String(UnicodeScalar(UInt8(97 + $0))) }
        func pair(_ id: String, list name: String) -> String? {
            guard let author = question.body.orderableLists[name]?.map(\.id), let theirs = lists[name],
                let source = author.firstIndex(of: id), let own = theirs.firstIndex(of: id), own < 26, source < 26, own != source
            else { return nil }
            return "their \(letters[own])) = \(letters[source])) in the source"
        }
        var notes: [String] = []
        switch (question.body, answer) {
        case (.singleChoice, .string(let id)):
            notes = [pair(id, list: "choices")].compactMap { $0 }
        case (.multipleChoice, .array(let ids)), (.ordering, .array(let ids)):
            let name = question.type == .ordering ? "items" : "choices"
            notes = ids.compactMap { $0.stringValue.flatMap { pair($0, list: name) } }
        case (.matching, .array(let pairs)):
            notes = pairs.compactMap(AnswerRules.pair).compactMap { pair($0.right, list: "right") }
        default:
            notes = []
        }
        return notes.isEmpty ? nil : notes.joined(separator: "; ")
    }

    /// `ids` with the `fixed` ones in their places and the others in `previous`'s order (those it names) followed by
    /// the rest, shuffled.
    static func arranged(_ ids: [String], fixed: Set<String>, previous: [String]?, using generator: inout SplitMix64) -> [String] {
        let movable = ids.filter { !fixed.contains($0) }
        let kept = (previous ?? []).filter(Set(movable).contains)
        let keptSet = Set(kept)
        var order = (kept + shuffled(movable.filter { !keptSet.contains($0) }, using: &generator)).makeIterator()
        return ids.map { fixed.contains($0) ? $0 : (order.next() ?? $0) }
    }

    /// The first two movable entries swapped (an order that must differ from `order`).
    static func nudged(_ order: [String], fixed: Set<String>) -> [String] {
        let movable = order.indices.filter { !fixed.contains(order[$0]) }
        guard movable.count >= 2 else { return order }
        var copy = order
        copy.swapAt(movable[0], movable[1])
        return copy
    }

    /// Fisher-Yates by the seeded generator: the same order for the same seed on every machine and Swift release.
    static func shuffled<T>(_ values: [T], using generator: inout SplitMix64) -> [T] {
        var copy = values
        guard copy.count > 1 else { return copy }
        for index in stride(from: copy.count - 1, to: 0, by: -1) {
            let other = Int(generator.next(below: UInt64(index + 1)))
            copy.swapAt(index, other)
        }
        return copy
    }
}

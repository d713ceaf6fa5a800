import Foundation
import Synchronization
import VaultAPI

/// A value in QTI response processing: NULL, one value, or a container of them.
public enum ProcessingValue: Hashable, Sendable {
    case null
    case single(Base)
    case multiple([Base])
    case ordered([Base])

    public enum Base: Hashable, Sendable {
        case identifier(String)
        case string(String)
        case integer(Int)
        case float(Double)
        case boolean(Bool)
        /// An unordered pair, kept with its two identifiers sorted so that "A B" equals "B A".
        case pair(String, String)
        case directedPair(String, String)

        /// `text` read as `type`; nil when it is not one (or the type is one no terminal item holds).
        public init?(_ text: String, as type: BaseType?) {
            let trimmed = Self.trimmed(text)
            switch type ?? .identifier {
            case .identifier, .intOrIdentifier, .uri:
                guard !trimmed.isEmpty else { return nil }
                self = .identifier(trimmed)
            case .string: self = .string(trimmed)
            case .integer:
                guard let value = Int(trimmed) else { return nil }
                self = .integer(value)
            case .float:
                guard let value = Double(trimmed), value.isFinite else { return nil }
                self = .float(value)
            case .boolean:
                switch trimmed.lowercased() {
                case "true", "1": self = .boolean(true)
                case "false", "0": self = .boolean(false)
                default: return nil
                }
            case .pair, .directedPair:
                let parts = trimmed.split(whereSeparator: \.isWhitespace).map(String.init)
                guard parts.count == 2 else { return nil }
                self = type == .pair ? .pair(min(parts[0], parts[1]), max(parts[0], parts[1])) : .directedPair(parts[0], parts[1])
            case .point, .duration, .file:
                return nil
            }
        }

        /// `text` without white space at either end, without Foundation when there is none (most values: a bridged
        /// trim was a fifth of scoring).
        static func trimmed(_ text: String) -> String {
            guard let first = text.utf8.first, let last = text.utf8.last else { return text }
            // ASCII that is not white space at both ends: nothing to look up.
            func plain(_ byte: UInt8) -> Bool { byte < 0x80 && byte > 0x20 }
            if plain(first), plain(last) { return text }
            let scalars = text.unicodeScalars
            guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
            return String(scalars[start...end])
        }

        /// As QTI writes it: "A", "3", "2.5", "true", "A B".
        public var written: String {
            switch self {
            case .identifier(let value), .string(let value): value
            case .integer(let value): "\(value)"
            case .float(let value): value == value.rounded() && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
            case .boolean(let value): value ? "true" : "false"
            case .pair(let a, let b), .directedPair(let a, let b): "\(a) \(b)"
            }
        }

        public var number: Double? {
            switch self {
            case .integer(let value): Double(value)
            case .float(let value): value
            default: nil
            }
        }

        var text: String? {
            switch self {
            case .identifier(let value), .string(let value): value
            default: nil
            }
        }

        /// Equal as QTI compares values: numbers by value, texts exactly (or without case), pairs by their parts.
        func same(as other: Base, caseSensitive: Bool = true) -> Bool {
            if let left = number, let right = other.number { return left == right }
            if !caseSensitive, let left = text, let right = other.text { return left.lowercased() == right.lowercased() }
            return self == other
        }
    }

    public var values: [Base] {
        switch self {
        case .null: []
        case .single(let value): [value]
        case .multiple(let values), .ordered(let values): values
        }
    }

    var isNull: Bool {
        switch self {
        case .null: true
        case .single(.string(let text)): text.isEmpty
        case .multiple(let values), .ordered(let values): values.isEmpty
        default: false
        }
    }

    var number: Double? {
        if case .single(let value) = self { return value.number }
        return nil
    }

    var boolean: Bool? {
        if case .single(.boolean(let value)) = self { return value }
        return nil
    }
}

/// Evaluates an item's own response processing (`ResponseProcessing`) over a student's answer, as the QTI
/// specification defines each rule and operator: the server's scoring of items whose processing is written out.
/// Bounded by work, not only by steps: the validator caps the rules' size and depth; every evaluation stops after
/// `budget` steps, after `workBudget` units of work (a comparison, a value made; `contains` of n values in m costs
/// n x m), and at a container of more than `maxContainer` values. An evaluation stopped there scores nothing (the
/// teacher grades it), and a publish refuses an item whose own answers already run out of it (`fitsBudget`).
public struct ResponseEvaluator {
    typealias Base = ProcessingValue.Base
    /// The rules evaluated.
    public static let rules: Set<String> = [
        "responseCondition", "responseIf", "responseElseIf", "responseElse", "setOutcomeValue", "exitResponse",
        "lookupOutcomeValue", "responseProcessingFragment",
    ]
    /// The expressions evaluated. Any other (patternMatch, durationLT/GTE, mapResponsePoint, inside, random,
    /// customOperator, mathOperator, statsOperator, …) is refused at import and named.
    public static let expressions: Set<String> = [
        "variable", "correct", "default", "baseValue", "null", "mapResponse", "isNull", "match", "member", "contains",
        "equal", "equalRounded", "lt", "lte", "gt", "gte", "and", "or", "not", "sum", "subtract", "product", "divide",
        "integerDivide", "integerModulus", "power", "round", "truncate", "integerToFloat", "index", "multiple", "ordered",
        "containerSize", "delete", "stringMatch", "substring", "fieldValue", "anyN", "max", "min", "mathConstant",
        "mathOperator", "gcd", "lcm", "statsOperator", "repeat",
    ]
    /// The rules of a template item's `templateProcessing`, run once when it is published.
    public static let templateRules: Set<String> = [
        "templateCondition", "templateIf", "templateElseIf", "templateElse", "setTemplateValue", "setCorrectResponse",
        "setDefaultValue", "exitTemplate", "templateConstraint",
    ]
    /// Expressions only a template's processing may use.
    public static let randomExpressions: Set<String> = ["randomInteger", "randomFloat", "random"]

    /// The deepest and largest rules a document may hold (the format's bounds, `ResponseProcessing`).
    public static var maxDepth: Int { ResponseProcessing.maxDepth }
    public static var maxNodes: Int { ResponseProcessing.maxNodes }
    /// Steps one evaluation may take.
    static let budget = 50_000
    /// Work one evaluation may do (an upper bound on comparisons and values made: the heaviest rules charged just
    /// under it scored in 0.5 ms on this project's benchmark machine, `VaultBench --only import`).
    public static let workBudget = 1_000_000
    /// The most values one container may hold.
    public static let maxContainer = 10_000

    /// Counts the answers scored by rules while it is set (`$meter.withValue`): how a test sees that results are read
    /// from what was kept, not scored again.
    @TaskLocal public static var meter: Meter?

    /// A count of evaluations, shared by the tasks that carry it.
    public final class Meter: Sendable {
        private let evaluations = Mutex(0)
        public init() {}
        public var value: Int { evaluations.withLock { $0 } }
        func count() { evaluations.withLock { $0 += 1 } }
    }

    /// The first element of `processing` that is not evaluated here, or nil.
    public static func unsupported(in nodes: [ProcessingNode]) -> String? {
        for node in nodes {
            if !rules.contains(node.name), !expressions.contains(node.name) { return node.name }
            if let inner = unsupported(in: node.arguments) { return inner }
        }
        return nil
    }

    /// The outcome `SCORE` after processing `answer` (nil: not answered), 0 when the rules leave it unset or not a
    /// number; nil when the evaluation ran out of its work budget (it could not be scored: the teacher grades it).
    public static func score(_ processing: ResponseProcessing, answer: JSONValue?) -> Double? {
        meter?.count()
        var evaluator = ResponseEvaluator(processing)
        evaluator.bind(answer)
        guard let outcomes = evaluator.finish() else { return nil }
        return outcomes[processing.scoreOutcome]?.number ?? 0
    }

    /// Every outcome after processing `answer` (none when the evaluation ran out of its work budget).
    public static func outcomes(_ processing: ResponseProcessing, answer: JSONValue?) -> [String: ProcessingValue] {
        var evaluator = ResponseEvaluator(processing)
        evaluator.bind(answer)
        return evaluator.finish()?.dictionary ?? [:]
    }

    /// Whether the item's own answers (none, its correct responses, its mappings' best) are scored within the work
    /// budget: a publish refuses one that is not, since every student's hand-in would run out of it too.
    public static func fitsBudget(_ processing: ResponseProcessing) -> Bool {
        var unanswered = ResponseEvaluator(processing)
        guard unanswered.finish() != nil else { return false }
        return candidates(processing).allSatisfy { responses in
            var evaluator = ResponseEvaluator(processing)
            evaluator.responses = SmallMap(responses)
            return evaluator.finish() != nil
        }
    }

    /// The most `SCORE` the rules give to the declared correct responses, or to each mapping's best values (an item
    /// without a correct response); nil when neither scores.
    public static func best(_ processing: ResponseProcessing) -> Double? {
        let scores = candidates(processing).map { responses in
            var evaluator = ResponseEvaluator(processing)
            evaluator.responses = SmallMap(responses)
            return evaluator.finish()?[processing.scoreOutcome]?.number ?? 0
        }
        let most = scores.max() ?? 0
        return most > 0 ? most : nil
    }

    /// The answers `best` tries: the declared correct responses, and each mapping's best values.
    static func candidates(_ processing: ResponseProcessing) -> [[String: ProcessingValue]] {
        var correct: [String: ProcessingValue] = [:]
        var mapped: [String: ProcessingValue] = [:]
        for response in processing.responses {
            let right = value(of: response.correct, for: response)
            let top = response.mapping.flatMap { bestMapped($0, for: response) }
            correct[response.identifier] = right ?? top
            mapped[response.identifier] = top ?? right
        }
        // Without a mapping the two are one answer: evaluated once.
        return processing.responses.contains { $0.mapping != nil } ? [correct, mapped] : [correct]
    }

    /// A mapping's best answer: its highest key (one value), or every key worth something (a container).
    static func bestMapped(_ mapping: ValueMapping, for response: ProcessingVariable) -> ProcessingValue? {
        let entries = mapping.entries.filter { $0.value > 0 }
        if response.cardinality == .single {
            return entries.max { $0.value < $1.value }.flatMap { Base($0.key, as: response.baseType) }.map(ProcessingValue.single)
        }
        let values = entries.compactMap { Base($0.key, as: response.baseType) }
        return values.isEmpty ? nil : container(values, response.cardinality)
    }

    /// The outcomes after the rules; nil when they ran out of the work budget (or steps) before they were done.
    mutating func finish() -> SmallMap<ProcessingValue>? {
        do {
            try run(rules)
        } catch Stop.budget {
            return nil
        } catch {}
        return outcomes
    }

    // An item has a handful of variables: looked up by a scan, not by hashing (hashing was a third of scoring).
    let declarations: Declarations
    let binding: ResponseBinding
    let rules: [ProcessingNode]
    var responses = SmallMap<ProcessingValue>()
    var outcomes = SmallMap<ProcessingValue>()
    var templates = SmallMap<ProcessingValue>()
    var steps = 0
    /// Work done so far (`charge`).
    var work = 0
    /// Drawing values (a template's processing): the generator; nil in response processing, where nothing is random.
    var random: SplitMix64?
    var instance = TemplateInstance()

    enum Stop: Error { case exit, budget, constraint }

    /// What a template item's processing drew: its variables, and the correct responses and defaults it set.
    public struct TemplateInstance: Sendable {
        public var templates: [String: ProcessingValue] = [:]
        public var correct: [String: ProcessingValue] = [:]
        public var defaults: [String: ProcessingValue] = [:]
    }

    /// Runs a template item's `templateProcessing` once, with values drawn from `seed` (the same seed, the same
    /// instance: a revision of the item keeps its numbers). A `templateConstraint` not met draws again, at most 100
    /// times; nil when it is never met.
    public static func instantiate(_ processing: ResponseProcessing, templateRules: [ProcessingNode], seed: UInt64) -> TemplateInstance? {
        var generator = SplitMix64(seed: seed)
        for _ in 0..<100 {
            var evaluator = ResponseEvaluator(processing)
            evaluator.random = generator
            do {
                try evaluator.run(templateRules)
            } catch Stop.constraint {
                generator = evaluator.random ?? generator
                generator.advance()
                continue
            } catch {}
            evaluator.instance.templates = evaluator.templates.dictionary
            return evaluator.instance
        }
        return nil
    }

    init(_ processing: ResponseProcessing) {
        declarations = Declarations(processing: processing)
        for template in processing.templates ?? [] {
            templates[template.identifier] = Self.value(of: template.defaultValue, for: template) ?? .null
        }
        binding = processing.binding
        rules = processing.rules
        for outcome in processing.outcomes {
            outcomes[outcome.identifier] = Self.value(of: outcome.defaultValue, for: outcome) ?? Self.initial(outcome)
        }
    }

    /// A numeric single outcome with no default starts at 0; any other at NULL.
    static func initial(_ outcome: ProcessingVariable) -> ProcessingValue {
        guard outcome.cardinality == .single else { return .null }
        switch outcome.baseType {
        case .integer: return .single(.integer(0))
        case .float: return .single(.float(0))
        default: return .null
        }
    }

    /// Texts (a default, a correct response) as a value of `variable`'s cardinality and type; nil when there are none.
    static func value(of texts: [String]?, for variable: ProcessingVariable) -> ProcessingValue? {
        guard let texts, !texts.isEmpty else { return nil }
        let values = texts.compactMap { Base($0, as: variable.baseType) }
        return container(values, variable.cardinality)
    }

    static func container(_ values: [Base], _ cardinality: Cardinality) -> ProcessingValue {
        switch cardinality {
        case .single, .record: values.first.map(ProcessingValue.single) ?? .null
        case .multiple: values.isEmpty ? .null : .multiple(values)
        case .ordered: values.isEmpty ? .null : .ordered(values)
        }
    }

    // MARK: The student's answer into the responses

    mutating func bind(_ answer: JSONValue?) {
        guard let answer else { return }
        switch binding {
        case .whole(let response), .swapped(let response):
            guard let declaration = declarations[response] else { return }
            var answer = answer
            if case .swapped = binding, case .array(let pairs) = answer {
                answer = .array(pairs.map { pair in pair.arrayValue.map { .array($0.reversed()) } ?? pair })
            }
            let values: [Base]
            switch answer {
            case .array(let items): values = items.compactMap { Self.base(of: $0, as: declaration.baseType) }
            default: values = Self.base(of: answer, as: declaration.baseType).map { [$0] } ?? []
            }
            responses[response] = Self.container(values, declaration.cardinality)
        case .blanks(let targets):
            guard case .object(let filled) = answer else { return }
            var collected = SmallMap<[Base]>()
            // In blank order ("2" before "10"), without Foundation's locale-aware compare on every answer scored.
            for (blank, target) in targets.sorted(by: { (Int($0.key) ?? .max, $0.key) < (Int($1.key) ?? .max, $1.key) }) {
                guard let declaration = declarations[target.response], let value = filled[blank]?.stringValue else { continue }
                let base: Base?
                if let gap = target.gap {
                    let word = value.trimmingCharacters(in: .whitespacesAndNewlines)
                    base = word.isEmpty ? nil : (declaration.baseType == .pair ? .pair(min(word, gap), max(word, gap)) : .directedPair(word, gap))
                } else {
                    base = Base(value, as: declaration.baseType)
                }
                if let base { collected[target.response] = (collected[target.response] ?? []) + [base] }
            }
            for (response, values) in collected.pairs {
                responses[response] = Self.container(values, declarations[response]?.cardinality ?? .single)
            }
        }
    }

    /// One part of an answer as a value: a text read as the type, a number, a pair given as [left, right].
    static func base(of value: JSONValue, as type: BaseType?) -> Base? {
        switch value {
        case .string(let text): return Base(text, as: type)
        case .number(let number):
            switch type {
            case .integer: return abs(number) < 1e15 ? Int(exactly: number).map(Base.integer) : nil
            case .float: return number.isFinite ? .float(number) : nil
            default:
                return number.isFinite ? Base(abs(number) < 1e15 ? Int(exactly: number).map { "\($0)" } ?? "\(number)" : "\(number)", as: type) : nil
            }
        case .array(let parts):
            let texts = parts.compactMap(\.stringValue)
            guard texts.count == 2, parts.count == 2 else { return nil }
            return Base("\(texts[0]) \(texts[1])", as: type == .pair ? .pair : .directedPair)
        default: return nil
        }
    }

    // MARK: Rules

    mutating func step() throws {
        steps += 1
        if steps > Self.budget { throw Stop.budget }
        try charge(1)
    }

    /// Counts `units` of work (saturating: a product of two huge counts is still over the budget).
    mutating func charge(_ units: Int) throws {
        work = work.addingReportingOverflow(max(0, units)).overflow ? .max : work + max(0, units)
        if work > Self.workBudget { throw Stop.budget }
    }

    /// The bytes of declared values (what reading them costs).
    static func length(_ values: [String]?) -> Int { (values ?? []).reduce(0) { $0 + $1.utf8.count } }

    /// Counts `a` x `b` units (a comparison of every value of one container with every value of another).
    mutating func charge(_ a: Int, times b: Int) throws {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        try charge(overflow ? .max : product)
    }

    /// Appends `more` to `values`, refusing a container past `maxContainer` before it is made.
    mutating func append(_ more: [Base], to values: inout [Base]) throws {
        guard values.count + more.count <= Self.maxContainer else { throw Stop.budget }
        try charge(more.count)
        values += more
    }

    mutating func run(_ rules: [ProcessingNode]) throws { try run(rules[...]) }

    mutating func run(_ rules: ArraySlice<ProcessingNode>) throws {
        for rule in rules {
            try step()
            switch rule.name {
            case "responseCondition":
                branches: for branch in rule.arguments {
                    switch branch.name {
                    case "responseIf", "responseElseIf":
                        guard let condition = branch.arguments.first else { continue }
                        if try evaluate(condition).boolean == true {
                            try run(branch.arguments.dropFirst())
                            break branches
                        }
                    case "responseElse":
                        try run(branch.arguments)
                        break branches
                    default: continue
                    }
                }
            case "setOutcomeValue":
                guard let identifier = rule.attribute("identifier"), let expression = rule.arguments.first else { continue }
                outcomes[identifier] = coerce(try evaluate(expression), to: declarations[identifier])
            case "lookupOutcomeValue":
                guard let identifier = rule.attribute("identifier"), let expression = rule.arguments.first,
                    let declaration = declarations[identifier], let table = declaration.lookup
                else { continue }
                let source = try evaluate(expression).number
                try charge(table.entries.count)
                outcomes[identifier] = Self.lookup(source, in: table, for: declaration)
            case "exitResponse":
                throw Stop.exit
            case "responseProcessingFragment":
                try run(rule.arguments)
            case "templateCondition":
                branches: for branch in rule.arguments {
                    switch branch.name {
                    case "templateIf", "templateElseIf":
                        guard let condition = branch.arguments.first else { continue }
                        if try evaluate(condition).boolean == true {
                            try run(branch.arguments.dropFirst())
                            break branches
                        }
                    case "templateElse":
                        try run(branch.arguments)
                        break branches
                    default: continue
                    }
                }
            case "setTemplateValue", "setCorrectResponse", "setDefaultValue":
                guard random != nil, let identifier = rule.attribute("identifier"), let expression = rule.arguments.first else { continue }
                let value = coerce(try evaluate(expression), to: declarations[identifier])
                switch rule.name {
                case "setTemplateValue": templates[identifier] = value
                case "setCorrectResponse": instance.correct[identifier] = value
                default: instance.defaults[identifier] = value
                }
            case "templateConstraint":
                guard random != nil, let expression = rule.arguments.first else { continue }
                if try evaluate(expression).boolean != true { throw Stop.constraint }
            case "exitTemplate":
                throw Stop.exit
            default:
                continue
            }
        }
    }

    /// A value as the outcome it is set to holds it (an integer outcome set from a float keeps its whole part).
    func coerce(_ value: ProcessingValue, to declaration: ProcessingVariable?) -> ProcessingValue {
        guard let declaration, declaration.cardinality == .single, case .single(let base) = value else { return value }
        switch (declaration.baseType, base) {
        case (.float, .integer(let number)): return .single(.float(Double(number)))
        case (.integer, .float(let number)):
            return number.isFinite && abs(number) < 1e15 ? .single(.integer(Int(saturating: number))) : .null
        default: return value
        }
    }

    static func lookup(_ source: Double?, in table: LookupTable, for declaration: ProcessingVariable) -> ProcessingValue {
        func target(_ text: String?) -> ProcessingValue {
            text.flatMap { Base($0, as: declaration.baseType) }.map(ProcessingValue.single) ?? .null
        }
        guard let source else { return target(table.defaultValue) }
        switch table.kind {
        case .match:
            return target(table.entries.first { $0.source == source.rounded(.towardZero) }?.target ?? table.defaultValue)
        case .interpolation:
            let entry = table.entries.first { $0.includeBoundary ? source >= $0.source : source > $0.source }
            return target(entry?.target ?? table.defaultValue)
        }
    }

    // MARK: Expressions

    mutating func evaluate(_ node: ProcessingNode) throws -> ProcessingValue {
        try step()
        let arguments = node.arguments
        switch node.name {
        case "variable":
            let identifier = node.attribute("identifier") ?? ""
            return responses[identifier] ?? outcomes[identifier] ?? templates[identifier] ?? .null
        case "randomInteger":
            guard var generator = random, let low = Int(integer: node.attribute("min") ?? "0", templates),
                let high = Int(integer: node.attribute("max") ?? "", templates), high >= low, high - low < 1_000_000_000
            else { return .null }
            let step = max(1, Int(node.attribute("step") ?? "1") ?? 1)
            let value = low + step * Int(generator.next(below: UInt64((high - low) / step + 1)))  // numbers-check: integers, high - low < 1e9
            random = generator
            return .single(.integer(value))
        case "randomFloat":
            guard var generator = random, let low = Double(node.attribute("min") ?? "0"), let high = Double(node.attribute("max") ?? ""),
                high >= low, low.isFinite, high.isFinite
            else { return .null }
            let value = low + (high - low) * Double(generator.next(below: 1 << 53)) / Double(1 << 53)
            random = generator
            return .single(.float(value))
        case "random":
            let values = try argument(0, of: node).values
            guard var generator = random, !values.isEmpty else { return .null }
            let value = values[Int(generator.next(below: UInt64(values.count)))]
            random = generator
            return .single(value)
        // A value read from the item's text costs its length each time it is read (a 20,000-character value
        // repeated 1,000 times was charged 2,000 units and took seconds: found by Tests/Fuzz/targets/scoring_budget).
        case "correct":
            guard let declaration = declarations[node.attribute("identifier") ?? ""] else { return .null }
            try charge(Self.length(declaration.correct))
            return Self.value(of: declaration.correct, for: declaration) ?? .null
        case "default":
            guard let declaration = declarations[node.attribute("identifier") ?? ""] else { return .null }
            try charge(Self.length(declaration.defaultValue))
            return Self.value(of: declaration.defaultValue, for: declaration) ?? .null
        case "baseValue":
            let type = node.attribute("baseType").flatMap(BaseType.init(rawValue:))
            try charge(node.text?.utf8.count ?? 0)
            return Base(node.text ?? "", as: type).map(ProcessingValue.single) ?? .null
        case "null":
            return .null
        case "mapResponse":
            let identifier = node.attribute("identifier") ?? ""
            // Each value given against the ones before it and against the mapping's entries.
            let given = (responses[identifier] ?? .null).values.count
            try charge(given, times: given + (declarations[identifier]?.mapping?.entries.count ?? 0))
            return mapResponse(identifier)
        case "isNull":
            return .single(.boolean(try argument(0, of: node).isNull))
        case "match":
            let (left, right) = (try argument(0, of: node), try argument(1, of: node))
            guard !left.isNull, !right.isNull else { return .null }
            try charge(left.values.count, times: right.values.count)
            return .single(.boolean(Self.matches(left, right)))
        case "member":
            let (value, container) = (try argument(0, of: node), try argument(1, of: node))
            guard case .single(let one) = value, !container.isNull else { return .null }
            try charge(container.values.count)
            return .single(.boolean(container.values.contains { $0.same(as: one) }))
        case "contains":
            let (container, part) = (try argument(0, of: node), try argument(1, of: node))
            guard !container.isNull, !part.isNull else { return .null }
            try charge(container.values.count, times: part.values.count)
            return .single(.boolean(Self.contains(container, part)))
        case "delete":
            let (value, container) = (try argument(0, of: node), try argument(1, of: node))
            guard case .single(let one) = value, !container.isNull else { return .null }
            try charge(container.values.count * 2)
            let kept = container.values.filter { !$0.same(as: one) }
            if case .ordered = container { return kept.isEmpty ? .null : .ordered(kept) }
            return kept.isEmpty ? .null : .multiple(kept)
        case "containerSize":
            return .single(.integer(try argument(0, of: node).values.count))
        case "index":
            guard case .ordered(let values) = try argument(0, of: node) else { return .null }
            let text = node.attribute("n") ?? ""
            let position =
                Int(text) ?? (responses[text] ?? outcomes[text] ?? templates[text])?.number.flatMap { $0.isFinite ? Int(exactly: $0.rounded()) : nil }
            guard let position, position >= 1, position <= values.count else { return .null }
            return .single(values[position - 1])
        case "multiple", "ordered":
            var values: [Base] = []
            for argument in arguments { try append(try evaluate(argument).values, to: &values) }
            if values.isEmpty { return .null }
            return node.name == "multiple" ? .multiple(values) : .ordered(values)
        case "equal":
            return try compareNumbers(node) { a, b in Self.equal(a, b, node) }
        case "equalRounded":
            return try compareNumbers(node) { a, b in Self.equalRounded(a, b, node) }
        case "lt": return try compareNumbers(node) { $0 < $1 }
        case "lte": return try compareNumbers(node) { $0 <= $1 }
        case "gt": return try compareNumbers(node) { $0 > $1 }
        case "gte": return try compareNumbers(node) { $0 >= $1 }
        case "and", "or":
            var sawNull = false
            let decisive = node.name == "or"
            for argument in arguments {
                guard let value = try evaluate(argument).boolean else {
                    sawNull = true
                    continue
                }
                if value == decisive { return .single(.boolean(decisive)) }
            }
            return sawNull || arguments.isEmpty ? .null : .single(.boolean(!decisive))
        case "not":
            return (try argument(0, of: node).boolean).map { .single(.boolean(!$0)) } ?? .null
        case "anyN":
            guard let least = Int(node.attribute("min") ?? ""), let most = Int(node.attribute("max") ?? "") else { return .null }
            var (yes, unknown) = (0, 0)
            for argument in arguments {
                switch try evaluate(argument).boolean {
                case true?: yes += 1
                case false?: break
                case nil: unknown += 1
                }
            }
            if yes > most || yes + unknown < least { return .single(.boolean(false)) }
            if yes >= least, yes + unknown <= most { return .single(.boolean(true)) }
            return .null
        case "sum", "product", "max", "min":
            return try aggregate(node)
        case "subtract", "divide", "power", "integerDivide", "integerModulus":
            return try arithmetic(node)
        case "round", "truncate":
            guard let value = try argument(0, of: node).number, value.isFinite, abs(value) < 1e15 else { return .null }
            return .single(.integer(Int(saturating: node.name == "round" ? (value + 0.5).rounded(.down) : value)))
        case "integerToFloat":
            return (try argument(0, of: node).number).map { .single(.float($0)) } ?? .null
        case "stringMatch", "substring":
            guard case .single(let first) = try argument(0, of: node), case .single(let second) = try argument(1, of: node),
                var left = first.text, var right = second.text
            else { return .null }
            try charge(left.utf8.count + right.utf8.count)
            // A search for one text inside another costs up to the product of their lengths (a 100,000-character
            // answer searched three times for a 200,000-character value stalled the server for minutes): charged
            // before it runs, so an answer that would take that long is left for the teacher at once.
            if node.name == "substring" || node.attribute("substring") == "true" {
                try charge(left.utf8.count, times: right.utf8.count)
            }
            if node.attribute("caseSensitive") == "false" {
                left = left.lowercased()
                right = right.lowercased()
            }
            if node.name == "substring" { return .single(.boolean(right.contains(left))) }
            return .single(.boolean(node.attribute("substring") == "true" ? left.contains(right) : left == right))
        case "mathConstant":
            switch node.attribute("name") {
            case "pi": return .single(.float(Double.pi))
            case "e": return .single(.float(M_E))
            default: return .null
            }
        case "mathOperator":
            var numbers: [Double] = []
            for argument in arguments {
                guard let number = try evaluate(argument).number else { return .null }
                numbers.append(number)
            }
            guard let x = numbers.first else { return .null }
            let y = numbers.count > 1 ? numbers[1] : .nan
            let result: Double? =
                switch node.attribute("name") ?? "" {
                case "sin": sin(x)
                case "cos": cos(x)
                case "tan": tan(x)
                case "sec": 1 / cos(x)
                case "csc": 1 / sin(x)
                case "cot": 1 / tan(x)
                case "asin": asin(x)
                case "acos": acos(x)
                case "atan": atan(x)
                case "atan2": atan2(x, y)
                case "asec": acos(1 / x)
                case "acsc": asin(1 / x)
                case "acot": atan(1 / x)
                case "sinh": sinh(x)
                case "cosh": cosh(x)
                case "tanh": tanh(x)
                case "sech": 1 / cosh(x)
                case "csch": 1 / sinh(x)
                case "coth": 1 / tanh(x)
                case "log": log10(x)
                case "ln": log(x)
                case "exp": exp(x)
                case "abs": abs(x)
                case "signum": x > 0 ? 1 : x < 0 ? -1 : 0
                case "floor": x.rounded(.down)
                case "ceil": x.rounded(.up)
                case "toDegrees": x * 180 / .pi
                case "toRadians": x * .pi / 180
                default: nil
                }
            return result.map(Self.finite) ?? .null
        case "gcd", "lcm":
            var numbers: [Int] = []
            for argument in arguments {
                let value = try evaluate(argument)
                if value.isNull { return .null }
                try charge(value.values.count)
                for base in value.values {
                    guard case .integer(let number) = base, number != .min else { return .null }
                    numbers.append(abs(number))
                }
            }
            guard var result = numbers.first else { return .null }
            for number in numbers.dropFirst() {
                if node.name == "gcd" {
                    result = Self.gcd(result, number)
                } else {
                    let divisor = Self.gcd(result, number)
                    guard divisor != 0 else { return .single(.integer(0)) }
                    let (value, overflow) = (result / divisor).multipliedReportingOverflow(by: number)
                    if overflow { return .null }
                    result = value
                }
            }
            return .single(.integer(result))
        case "statsOperator":
            let numbers = try argument(0, of: node).values.compactMap(\.number)
            try charge(numbers.count * 2)
            guard !numbers.isEmpty else { return .null }
            let count = Double(numbers.count)
            let mean = numbers.reduce(0, +) / count
            let squares = numbers.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
            switch node.attribute("name") ?? "" {
            case "mean": return Self.finite(mean)
            case "popVariance": return Self.finite(squares / count)
            case "popSD": return Self.finite((squares / count).squareRoot())
            case "sampleVariance": return numbers.count > 1 ? Self.finite(squares / (count - 1)) : .null
            case "sampleSD": return numbers.count > 1 ? Self.finite((squares / (count - 1)).squareRoot()) : .null
            default: return .null
            }
        case "repeat":
            // Its expressions, numberRepeats times over (at most 1,000), as one ordered container.
            guard let times = Int(integer: node.attribute("numberRepeats") ?? "", templates), times >= 1, times <= 1_000 else { return .null }
            var values: [Base] = []
            for _ in 0..<times {
                for argument in arguments { try append(try evaluate(argument).values, to: &values) }
            }
            return values.isEmpty ? .null : .ordered(values)
        case "fieldValue":
            // Records come only from custom operators, which are not evaluated: a field is never there.
            return .null
        default:
            return .null
        }
    }

    mutating func argument(_ index: Int, of node: ProcessingNode) throws -> ProcessingValue {
        let arguments = node.arguments
        return index < arguments.count ? try evaluate(arguments[index]) : .null
    }

    mutating func compareNumbers(_ node: ProcessingNode, _ compare: (Double, Double) -> Bool) throws -> ProcessingValue {
        guard let left = try argument(0, of: node).number, let right = try argument(1, of: node).number else { return .null }
        return .single(.boolean(compare(left, right)))
    }

    /// `equal` with its tolerance mode: exact, absolute (t0 below, t1 above) or relative (percentages).
    static func equal(_ a: Double, _ b: Double, _ node: ProcessingNode) -> Bool {
        let tolerances = (node.attribute("tolerance") ?? "").split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        let below = tolerances.first ?? 0
        let above = tolerances.count > 1 ? tolerances[1] : below
        let (low, high): (Double, Double)
        switch node.attribute("toleranceMode") ?? "exact" {
        case "absolute": (low, high) = (a - below, a + above)
        case "relative": (low, high) = (a * (1 - below / 100), a * (1 + above / 100))
        default: return a == b
        }
        let lowOK = node.attribute("includeLowerBound") == "false" ? b > low : b >= low
        let highOK = node.attribute("includeUpperBound") == "false" ? b < high : b <= high
        return lowOK && highOK
    }

    /// `equalRounded`: both rounded to `figures` significant figures (or decimal places) first.
    static func equalRounded(_ a: Double, _ b: Double, _ node: ProcessingNode) -> Bool {
        guard let figures = Int(node.attribute("figures") ?? ""), figures >= 0, figures <= 15 else { return false }
        func rounded(_ value: Double) -> Double {
            guard value != 0, value.isFinite else { return value }
            let places = node.attribute("roundingMode") == "decimalPlaces" ? figures : figures - Int(saturating: log10(abs(value)).rounded(.down)) - 1
            let scale = pow(10, Double(places))
            return (value * scale).rounded(.toNearestOrAwayFromZero) / scale
        }
        return rounded(a) == rounded(b)
    }

    mutating func aggregate(_ node: ProcessingNode) throws -> ProcessingValue {
        var numbers: [Base] = []
        for argument in node.arguments {
            let value = try evaluate(argument)
            if value.isNull { return .null }
            try append(value.values, to: &numbers)
        }
        guard !numbers.isEmpty, numbers.allSatisfy({ $0.number != nil }) else { return .null }
        let integers = numbers.compactMap { if case .integer(let value) = $0 { value } else { nil } }
        let doubles = numbers.compactMap(\.number)
        switch node.name {
        case "max", "min":
            if integers.count == numbers.count, let pick = node.name == "max" ? integers.max() : integers.min() { return .single(.integer(pick)) }
            return .single(.float(node.name == "max" ? doubles.max()! : doubles.min()!))
        default:
            if integers.count == numbers.count {
                var total = node.name == "sum" ? 0 : 1
                for value in integers {
                    let (next, overflow) = node.name == "sum" ? total.addingReportingOverflow(value) : total.multipliedReportingOverflow(by: value)
                    if overflow { return .null }
                    total = next
                }
                return .single(.integer(total))
            }
            let total = node.name == "sum" ? doubles.reduce(0, +) : doubles.reduce(1, *)
            return total.isFinite ? .single(.float(total)) : .null
        }
    }

    mutating func arithmetic(_ node: ProcessingNode) throws -> ProcessingValue {
        guard case .single(let first) = try argument(0, of: node), case .single(let second) = try argument(1, of: node),
            let a = first.number, let b = second.number
        else { return .null }
        switch node.name {
        case "subtract":
            if case .integer(let x) = first, case .integer(let y) = second {
                let (value, overflow) = x.subtractingReportingOverflow(y)
                return overflow ? .null : .single(.integer(value))
            }
            return .single(.float(a - b))
        case "divide":
            return b == 0 ? .null : Self.finite(a / b)
        case "power":
            return Self.finite(pow(a, b))
        default:
            // integerDivide and integerModulus take integers only.
            guard case .integer(let x) = first, case .integer(let y) = second, y != 0, !(x == .min && y == -1) else { return .null }
            if node.name == "integerModulus" { return .single(.integer(x % y)) }
            let quotient = x / y
            return .single(.integer((x % y != 0 && (x < 0) != (y < 0)) ? quotient - 1 : quotient))
        }
    }

    static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    static func finite(_ value: Double) -> ProcessingValue { value.isFinite ? .single(.float(value)) : .null }

    /// `match`: the same cardinality and the same values (in order for an ordered container).
    static func matches(_ left: ProcessingValue, _ right: ProcessingValue) -> Bool {
        switch (left, right) {
        case (.single(let a), .single(let b)): return a.same(as: b)
        case (.ordered(let a), .ordered(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.same(as: $1) }
        case (.multiple(let a), .multiple(let b)): return a.count == b.count && contains(left, right)
        default: return false
        }
    }

    /// `contains`: every value of `part` in `container` as often (a multiple), or `part` as an unbroken run of
    /// `container` (an ordered).
    static func contains(_ container: ProcessingValue, _ part: ProcessingValue) -> Bool {
        let whole = container.values
        let wanted = part.values
        if case .ordered = container {
            guard wanted.count <= whole.count else { return false }
            return (0...(whole.count - wanted.count)).contains { start in
                wanted.indices.allSatisfy { whole[start + $0].same(as: wanted[$0]) }
            }
        }
        var remaining = whole
        for value in wanted {
            guard let index = remaining.firstIndex(where: { $0.same(as: value) }) else { return false }
            remaining.remove(at: index)
        }
        return true
    }

    /// `mapResponse`: each distinct value given mapped once (unmapped: the default), summed, within the bounds.
    func mapResponse(_ identifier: String) -> ProcessingValue {
        guard let declaration = declarations[identifier], let mapping = declaration.mapping else { return .null }
        let keys = mapping.entries.map { (entry: $0, key: Base($0.key, as: declaration.baseType)) }
        var distinct: [Base] = []
        for value in (responses[identifier] ?? .null).values where !distinct.contains(where: { $0.same(as: value) }) {
            distinct.append(value)
        }
        var total = 0.0
        for value in distinct {
            let entry = keys.first { candidate in
                guard let key = candidate.key else { return false }
                return value.same(as: key, caseSensitive: candidate.entry.caseSensitive)
            }
            total += entry?.entry.value ?? mapping.defaultValue
        }
        if let lower = mapping.lowerBound { total = max(lower, total) }
        if let upper = mapping.upperBound { total = min(upper, total) }
        return .single(.float(total))
    }
}

extension Int {
    /// An attribute that is a number or names a template variable holding one (QTI's integerOrVariableRef).
    fileprivate init?(integer text: String, _ templates: SmallMap<ProcessingValue>) {
        if let value = Int(text) {
            self = value
        } else if let number = templates[text]?.number, number.isFinite, abs(number) < 1e15 {
            self = Int(saturating: number)
        } else {
            return nil
        }
    }
}

/// An item's declared variables, found where they are declared (responses first, then outcomes, then template
/// variables): nothing copied for an evaluation.
struct Declarations {
    let processing: ResponseProcessing

    subscript(identifier: String) -> ProcessingVariable? {
        if let found = processing.responses.first(where: { $0.identifier == identifier }) { return found }
        if let found = processing.outcomes.first(where: { $0.identifier == identifier }) { return found }
        return processing.templates?.first { $0.identifier == identifier }
    }
}

/// A map of a few entries, found by a scan: an item's variables (a response, an outcome or two).
struct SmallMap<Value> {
    private(set) var keys: [String] = []
    private(set) var values: [Value] = []

    init() {}
    init(_ dictionary: [String: Value]) {
        for (key, value) in dictionary { self[key] = value }
    }

    subscript(key: String) -> Value? {
        get { keys.firstIndex(of: key).map { values[$0] } }
        set {
            if let index = keys.firstIndex(of: key) {
                if let newValue {
                    values[index] = newValue
                } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    var pairs: Zip2Sequence<[String], [Value]> { zip(keys, values) }
    var dictionary: [String: Value] { Dictionary(zip(keys, values), uniquingKeysWith: { first, _ in first }) }
}

extension SmallMap: Sendable where Value: Sendable {}

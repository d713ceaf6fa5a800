import Foundation

/// An item's own response processing as its author wrote it (IMS QTI `responseProcessing`, the standard templates
/// written out the same way), kept in the teacher's document and evaluated by the server when it scores
/// (`ResponseEvaluator`). Grading data: never served, never hashed.
public struct ResponseProcessing: Codable, Sendable, Hashable {
    /// The item's response variables: what the student's answer fills.
    public var responses: [ProcessingVariable]
    /// The item's outcome variables; `SCORE` is the question's points.
    public var outcomes: [ProcessingVariable]
    /// The rules, as written: `responseCondition`, `setOutcomeValue`, `exitResponse`, `lookupOutcomeValue`.
    public var rules: [ProcessingNode]
    /// Where each part of the student's answer goes.
    public var binding: ResponseBinding
    /// A template item's variables, with the values drawn for it when it was published (its `defaultValue`).
    public var templates: [ProcessingVariable]?
    /// The test's weight on the item: its `SCORE` times this is the question's score.
    public var weight: Double?

    public init(
        responses: [ProcessingVariable],
        outcomes: [ProcessingVariable],
        rules: [ProcessingNode],
        binding: ResponseBinding,
        templates: [ProcessingVariable]? = nil
    ) {
        self.responses = responses
        self.outcomes = outcomes
        self.rules = rules
        self.binding = binding
        self.templates = templates
    }
}

extension ResponseProcessing {
    /// The deepest and largest rules a document may hold: bounds of the format, checked at publish
    /// (`AssessmentValidator`); what the rules may use and cost is the evaluator's (VaultScoring).
    public static let maxDepth = 48
    public static let maxNodes = 5_000

    /// The outcome that is the item's score: `SCORE`, or an item's only numeric outcome when it names it otherwise
    /// (the IMS calculation samples use `SCORE0`).
    public var scoreOutcome: String {
        if outcomes.contains(where: { $0.identifier == "SCORE" }) { return "SCORE" }
        let numeric = outcomes.filter { $0.cardinality == .single && ($0.baseType == .float || $0.baseType == .integer) }
        return numeric.count == 1 ? numeric[0].identifier : "SCORE"
    }
}

/// How many values a variable holds.
public enum Cardinality: String, Codable, Sendable, Hashable {
    case single, multiple, ordered, record
}

/// What kind of value a variable holds.
public enum BaseType: String, Codable, Sendable, Hashable {
    case identifier, boolean, integer, float, string, point, pair, directedPair, duration, file, uri, intOrIdentifier
}

/// A declared response or outcome variable.
public struct ProcessingVariable: Codable, Sendable, Hashable {
    public var identifier: String
    public var cardinality: Cardinality
    public var baseType: BaseType?
    /// Its value before processing (an outcome's `defaultValue`).
    public var defaultValue: [String]?
    /// A response's `correctResponse`.
    public var correct: [String]?
    /// A response's `mapping`.
    public var mapping: ValueMapping?
    /// An outcome's `normalMaximum`.
    public var normalMaximum: Double?
    /// An outcome's `matchTable` or `interpolationTable`, for `lookupOutcomeValue`.
    public var lookup: LookupTable?

    enum CodingKeys: String, CodingKey {
        case identifier, cardinality, correct, mapping, lookup
        case baseType = "base_type"
        case defaultValue = "default_value"
        case normalMaximum = "normal_maximum"
    }

    public init(
        identifier: String,
        cardinality: Cardinality,
        baseType: BaseType?,
        defaultValue: [String]? = nil,
        correct: [String]? = nil,
        mapping: ValueMapping? = nil,
        normalMaximum: Double? = nil,
        lookup: LookupTable? = nil
    ) {
        self.identifier = identifier
        self.cardinality = cardinality
        self.baseType = baseType
        self.defaultValue = defaultValue
        self.correct = correct
        self.mapping = mapping
        self.normalMaximum = normalMaximum
        self.lookup = lookup
    }
}

/// A response's `mapping`: each key's value, summed over the distinct values given, within its bounds.
public struct ValueMapping: Codable, Sendable, Hashable {
    public struct Entry: Codable, Sendable, Hashable {
        public var key: String
        public var value: Double
        /// QTI compares a mapped string with case unless the entry says `caseSensitive="false"`.
        public var caseSensitive: Bool
        enum CodingKeys: String, CodingKey {
            case key, value
            case caseSensitive = "case_sensitive"
        }
        public init(key: String, value: Double, caseSensitive: Bool = true) {
            self.key = key
            self.value = value
            self.caseSensitive = caseSensitive
        }
    }
    public var entries: [Entry]
    public var defaultValue: Double
    public var lowerBound: Double?
    public var upperBound: Double?

    enum CodingKeys: String, CodingKey {
        case entries
        case defaultValue = "default_value"
        case lowerBound = "lower_bound"
        case upperBound = "upper_bound"
    }

    public init(entries: [Entry], defaultValue: Double = 0, lowerBound: Double? = nil, upperBound: Double? = nil) {
        self.entries = entries
        self.defaultValue = defaultValue
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }
}

/// An outcome's lookup table: a `matchTable` (an integer source picks a target) or an `interpolationTable` (the first
/// entry whose source the value reaches).
public struct LookupTable: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable, Hashable {
        case match, interpolation
    }
    public struct Entry: Codable, Sendable, Hashable {
        public var source: Double
        public var target: String
        public var includeBoundary: Bool
        enum CodingKeys: String, CodingKey {
            case source, target
            case includeBoundary = "include_boundary"
        }
        public init(source: Double, target: String, includeBoundary: Bool = true) {
            self.source = source
            self.target = target
            self.includeBoundary = includeBoundary
        }
    }
    public var kind: Kind
    public var entries: [Entry]
    public var defaultValue: String?
    enum CodingKeys: String, CodingKey {
        case kind, entries
        case defaultValue = "default_value"
    }
    public init(kind: Kind, entries: [Entry], defaultValue: String? = nil) {
        self.kind = kind
        self.entries = entries
        self.defaultValue = defaultValue
    }
}

/// One element of the rules as written: its QTI 2 name (`responseCondition`, `match`, `baseValue`, …), attributes,
/// text and children. `ResponseEvaluator.operators` says which names are evaluated; an importer refuses an item with
/// any other, and the validator a document.
public struct ProcessingNode: Codable, Sendable, Hashable {
    public var name: String
    public var attributes: [String: String]?
    public var text: String?
    public var children: [ProcessingNode]?

    public init(name: String, attributes: [String: String]? = nil, text: String? = nil, children: [ProcessingNode]? = nil) {
        self.name = name
        self.attributes = attributes?.isEmpty == true ? nil : attributes
        self.text = text
        self.children = children?.isEmpty == true ? nil : children
    }

    public func attribute(_ name: String) -> String? { attributes?[name] }
    public var arguments: [ProcessingNode] { children ?? [] }

    /// The deepest chain of children under and including this node, and how many nodes there are in all.
    public var shape: (depth: Int, count: Int) {
        var depth = 0
        var count = 1
        for child in arguments {
            let inner = child.shape
            depth = max(depth, inner.depth)
            count += inner.count
        }
        return (depth + 1, count)
    }
}

/// Where the student's answer goes: the whole answer into one response, or each blank of a fill-in-the-blanks
/// question into its own response (a gap-match gap adds the pair "word gap" to its response).
public enum ResponseBinding: Codable, Sendable, Hashable {
    case whole(response: String)
    /// A matching question shown the other way round (the item's second set numbered, its first lettered): each
    /// answered pair [left, right] is the item's pair "right left".
    case swapped(response: String)
    case blanks([String: BlankTarget])

    public struct BlankTarget: Codable, Sendable, Hashable {
        public var response: String
        /// A gap-match blank: the gap's identifier (the answer is the pair "word gap").
        public var gap: String?
        public init(response: String, gap: String? = nil) {
            self.response = response
            self.gap = gap
        }
    }

    enum CodingKeys: String, CodingKey {
        case response, blanks, swapped
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let blanks = try container.decodeIfPresent([String: BlankTarget].self, forKey: .blanks) {
            self = .blanks(blanks)
        } else if try container.decodeIfPresent(Bool.self, forKey: .swapped) == true {
            self = .swapped(response: try container.decode(String.self, forKey: .response))
        } else {
            self = .whole(response: try container.decode(String.self, forKey: .response))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .whole(let response): try container.encode(response, forKey: .response)
        case .swapped(let response):
            try container.encode(response, forKey: .response)
            try container.encode(true, forKey: .swapped)
        case .blanks(let blanks): try container.encode(blanks, forKey: .blanks)
        }
    }
}

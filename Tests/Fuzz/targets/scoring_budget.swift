import Foundation
import VaultAPI
import VaultScoring

// An item's own response processing, built from the input's bytes (operators, attributes, values up to 200,000
// characters, containers up to thousands of values), scored over an answer also built from them (up to 100,000
// characters): every evaluation ends within its deadline, however the rules are written. The work budget is what
// bounds it (issue 70: `substring` was charged the sum of two lengths while it costs their product, and one answer
// held the server for six minutes); an operator charged less than it costs shows here as a slow input.

/// One evaluation, on this fuzzing build (coverage and AddressSanitizer, about 20 times slower than a release
/// build, where the heaviest rules within the budget take 0.5 ms): far above what the budget allows, far below a
/// cost that grows with the product of two lengths.
let deadline = Duration.seconds(1)

/// Reads the input a byte at a time; past its end, zeros.
struct Bytes {
    let data: [UInt8]
    var offset = 0
    mutating func next() -> UInt8 {
        defer { offset += 1 }
        return offset < data.count ? data[offset] : 0
    }
    mutating func pick<T>(_ options: [T]) -> T { options[Int(next()) % options.count] }
    var done: Bool { offset >= data.count }
}

/// Sizes that matter for cost: small, and large enough that a quadratic operator shows.
func size(_ bytes: inout Bytes) -> Int { bytes.pick([0, 1, 3, 40, 1_000, 20_000, 100_000, 200_000]) }

func text(_ bytes: inout Bytes) -> String {
    let length = size(&bytes)
    let unit = bytes.pick(["a", "ab", "ba", "A", "1", " ", "é", "a b"])
    // A different last character: a search for it in a long run of the unit nearly matches at every position.
    return String(repeating: unit, count: max(0, length / unit.count)) + bytes.pick(["", "", "b", "z"])
}

let expressions = Array(ResponseEvaluator.expressions).sorted()
let sized = [
    "substring", "stringMatch", "contains", "member", "match", "equal", "index", "delete", "repeat", "multiple", "ordered",
    "containerSize", "anyN", "sum", "max", "min", "mapResponse",
]
let attributeNames = [
    "identifier", "baseType", "caseSensitive", "substring", "cardinality", "n", "min", "max", "numberRepeats", "name",
    "toleranceMode", "tolerance", "figures", "roundingMode", "fieldIdentifier", "includeLowerBound",
]
let attributeValues = [
    "RESPONSE", "SCORE", "string", "integer", "float", "identifier", "true", "false", "3", "1000", "100000", "exact",
    "absolute", "significantFigures", "mean", "pi", "x",
]

func node(_ bytes: inout Bytes, depth: Int) -> ProcessingNode {
    if depth > 6 || bytes.done || (depth > 0 && bytes.next() % 2 == 0) {
        return bytes.pick([
            ProcessingNode(name: "variable", attributes: ["identifier": "RESPONSE"]),
            ProcessingNode(name: "baseValue", attributes: ["baseType": "string"], text: text(&bytes)),
            ProcessingNode(name: "baseValue", attributes: ["baseType": "integer"], text: String(size(&bytes))),
            ProcessingNode(name: "correct", attributes: ["identifier": "RESPONSE"]),
        ])
    }
    // Half the time an operator whose cost grows with the size of its values, over the response and a long value:
    // where an operator charged less than it costs shows first.
    let name = bytes.next() % 2 == 0 ? bytes.pick(sized) : bytes.pick(expressions)
    var attributes: [String: String] = [:]
    for _ in 0..<Int(bytes.next() % 3) { attributes[bytes.pick(attributeNames)] = bytes.pick(attributeValues) }
    let children = (0..<Int(bytes.next() % 4)).map { _ in node(&bytes, depth: depth + 1) }
    return ProcessingNode(name: name, attributes: attributes, text: name == "baseValue" ? text(&bytes) : nil, children: children)
}

func answer(_ bytes: inout Bytes) -> JSONValue? {
    switch bytes.next() % 5 {
    case 0: return nil
    case 1: return .string(text(&bytes))
    case 2: return .number(Double(Int(bytes.next()) - 100))
    default: return .array((0..<min(size(&bytes), 5_000)).map { index in .string(bytes.pick(["a", "b", "c", "\(index)"])) })
    }
}

/// A rule's shape in a line: names, attributes, the lengths of values.
func describe(_ node: ProcessingNode) -> String {
    let attributes = (node.attributes ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    let text = node.text.map { " \($0.count) characters" } ?? ""
    return node.name + (attributes.isEmpty ? "" : "[\(attributes.joined(separator: ","))]") + text + "("
        + node.arguments.map(describe).joined(separator: ", ") + ")"
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var bytes = Bytes(data: Array(UnsafeBufferPointer(start: start, count: count)))
    let cardinality = bytes.pick([Cardinality.single, .multiple, .ordered])
    let base = bytes.pick([BaseType.string, .identifier, .integer, .float])
    let correct = (0..<Int(bytes.next() % 3)).map { _ in text(&bytes) }
    let rules = (0..<1 + Int(bytes.next() % 3)).map { _ in
        ProcessingNode(
            name: "setOutcomeValue",
            attributes: ["identifier": "SCORE"],
            children: [node(&bytes, depth: 0)]
        )
    }
    let processing = ResponseProcessing(
        responses: [ProcessingVariable(identifier: "RESPONSE", cardinality: cardinality, baseType: base, correct: correct)],
        outcomes: [ProcessingVariable(identifier: "SCORE", cardinality: .single, baseType: .float)],
        rules: rules,
        binding: .whole(response: "RESPONSE")
    )
    let given = answer(&bytes)
    let clock = ContinuousClock()
    let took = clock.measure { _ = ResponseEvaluator.score(processing, answer: given) }
    require(
        took < deadline,
        "scoring took \(took) (rules \(rules.map(describe)), answer of \(String(describing: given).count) characters): an operator is charged less than it costs"
    )
    return 0
}

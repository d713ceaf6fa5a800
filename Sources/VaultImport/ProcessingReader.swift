import Foundation
import VaultAPI
import VaultScoring

/// An item's response processing, read for the server to evaluate as written (`ResponseEvaluator`): its own rules, or
/// the standard template it names written out as the rules the specification gives for it. Its points are the item's
/// own: `SCORE`'s `normalMaximum`, else the most its rules give the correct response (or the mapping's best answer).
enum ProcessingReader {
    typealias Skip = ItemSkip

    /// The item's rules; nil when it has no response processing (then its keys score it, all or nothing).
    static func rules(of item: MarkupElement) throws -> [ProcessingNode]? {
        guard let processing = item.child("responseProcessing") else { return nil }
        if !processing.children.isEmpty {
            let rules = try processing.children.map { try node($0, depth: 1) }
            if let unknown = ResponseEvaluator.unsupported(in: rules) {
                throw ItemSkip(reason: "its response processing uses <\(unknown)>, which the server does not evaluate")
            }
            return rules
        }
        guard let location = processing.attributes["template"] ?? processing.attributes["templateLocation"] else { return nil }
        var name = location.lastIndex(of: "/").map { String(location[location.index(after: $0)...]) } ?? location
        if name.hasSuffix(".xml") { name.removeLast(4) }
        switch name {
        case "match_correct", "CC2_match", "CC2_match_basic": return matchCorrect
        case "map_response", "CC2_map_response": return mapResponse
        default: throw ItemSkip(reason: "its response processing template \(name) is not one the server evaluates")
        }
    }

    /// The rules go with the question, whose points become the item's.
    static func attach(
        _ rules: [ProcessingNode]?,
        of item: MarkupElement,
        binding: ResponseBinding,
        templates: [ProcessingVariable]?,
        to question: inout Question
    ) throws {
        let maximum = try normalMaximum(of: item)
        guard let rules else {
            question.points = maximum ?? 1
            return
        }
        let processing = ResponseProcessing(
            responses: item.all("responseDeclaration").map(variable),
            outcomes: item.all("outcomeDeclaration").map(variable),
            rules: rules,
            binding: binding,
            templates: templates
        )
        let declared = Set(processing.responses.map(\.identifier))
        let bound: [String] =
            switch binding {
            case .whole(let response), .swapped(let response): [response]
            case .blanks(let targets): targets.values.map(\.response)
            }
        if let missing = bound.first(where: { !declared.contains($0) }) {
            throw ItemSkip(reason: "its interaction answers \(missing.isEmpty ? "a response" : missing), which the item does not declare")
        }
        // Rules that run out of the evaluator's work budget on the item's own answers would on every hand-in too (the
        // standard templates, written out by us, never do: not evaluated here, as most items use them).
        guard rules == matchCorrect || rules == mapResponse || ResponseEvaluator.fitsBudget(processing) else {
            throw ItemSkip(reason: "its response processing takes more work to score than a question may (containers of more than 10,000 values)")
        }
        question.processing = processing
        // match_correct gives 1 or 0: nothing to evaluate (it was a third of a package's import).
        let points = maximum ?? (rules == matchCorrect ? 1 : ResponseEvaluator.best(processing) ?? 1)
        guard Numbers.points(points) != nil else { throw tooMany(AttemptResult.pointsText(points)) }
        question.points = points
    }

    /// `SCORE`'s `normalMaximum`, when the item gives one above 0; an item whose maximum is more than a question may
    /// be worth (`normalMaximum="1e19"`) is left out, named.
    static func normalMaximum(of item: MarkupElement) throws -> Double? {
        let score = item.all("outcomeDeclaration").first { $0.attributes["identifier"] == "SCORE" }
        guard let text = score?.attributes["normalMaximum"], let value = Double(text), value > 0 else { return nil }
        guard let points = Numbers.points(value) else { throw tooMany(text) }
        return points
    }

    /// An item worth more than a question may be.
    static func tooMany(_ points: String) -> ItemSkip {
        ItemSkip(reason: "it is worth \(points) points, more than the 10,000 a question may be worth")
    }

    /// A response or outcome declaration.
    static func variable(_ element: MarkupElement) -> ProcessingVariable {
        func values(_ name: String) -> [String]? {
            let found = (element.child(name)?.all("value") ?? []).map { ImportSupport.trimmed($0.text) }
            return found.isEmpty ? nil : found
        }
        let mapping = element.child("mapping").map { mapping in
            ValueMapping(
                entries: mapping.all("mapEntry").compactMap { entry in
                    guard let key = entry.attributes["mapKey"], let value = Double(entry.attributes["mappedValue"] ?? ""), value.isFinite else {
                        return nil
                    }
                    return ValueMapping.Entry(key: key, value: value, caseSensitive: entry.attributes["caseSensitive"] != "false")
                },
                defaultValue: Double(mapping.attributes["defaultValue"] ?? "") ?? 0,
                lowerBound: mapping.attributes["lowerBound"].flatMap(Double.init),
                upperBound: mapping.attributes["upperBound"].flatMap(Double.init)
            )
        }
        var lookup: LookupTable?
        if let table = element.child("matchTable") {
            lookup = LookupTable(
                kind: .match,
                entries: table.all("matchTableEntry").compactMap { entry in
                    guard let source = Double(entry.attributes["sourceValue"] ?? ""), let target = entry.attributes["targetValue"] else { return nil }
                    return .init(source: source, target: target)
                },
                defaultValue: table.attributes["defaultValue"]
            )
        } else if let table = element.child("interpolationTable") {
            lookup = LookupTable(
                kind: .interpolation,
                entries: table.all("interpolationTableEntry").compactMap { entry in
                    guard let source = Double(entry.attributes["sourceValue"] ?? ""), let target = entry.attributes["targetValue"] else { return nil }
                    return .init(source: source, target: target, includeBoundary: entry.attributes["includeBoundary"] != "false")
                },
                defaultValue: table.attributes["defaultValue"]
            )
        }
        return ProcessingVariable(
            identifier: element.attributes["identifier"] ?? "",
            cardinality: element.attributes["cardinality"].flatMap(Cardinality.init(rawValue:)) ?? .single,
            baseType: element.attributes["baseType"].flatMap(BaseType.init(rawValue:)),
            defaultValue: values("defaultValue"),
            correct: values("correctResponse"),
            mapping: mapping,
            normalMaximum: element.attributes["normalMaximum"].flatMap(Double.init),
            lookup: lookup
        )
    }

    /// One element of the rules, its text kept where it has no elements inside (a base value).
    static func node(_ element: MarkupElement, depth: Int) throws -> ProcessingNode {
        guard depth <= ResponseEvaluator.maxDepth else {
            throw ItemSkip(reason: "its response processing is nested more than \(ResponseEvaluator.maxDepth) deep")
        }
        let text = element.children.isEmpty ? ImportSupport.trimmed(element.text) : ""
        return ProcessingNode(
            name: element.name,
            attributes: element.attributes,
            text: text.isEmpty ? nil : text,
            children: try element.children.map { try node($0, depth: depth + 1) }
        )
    }

    // MARK: The standard templates, as the specification writes them

    static func set(_ value: ProcessingNode) -> ProcessingNode {
        ProcessingNode(name: "setOutcomeValue", attributes: ["identifier": "SCORE"], children: [value])
    }

    static func number(_ text: String) -> ProcessingNode { ProcessingNode(name: "baseValue", attributes: ["baseType": "float"], text: text) }

    static let response = ProcessingNode(name: "variable", attributes: ["identifier": "RESPONSE"])

    /// match_correct: 1 when the response matches the correct response, else 0.
    static let matchCorrect: [ProcessingNode] = [
        ProcessingNode(
            name: "responseCondition",
            children: [
                ProcessingNode(
                    name: "responseIf",
                    children: [
                        ProcessingNode(name: "match", children: [response, ProcessingNode(name: "correct", attributes: ["identifier": "RESPONSE"])]),
                        set(number("1")),
                    ]
                ),
                ProcessingNode(name: "responseElse", children: [set(number("0"))]),
            ]
        )
    ]

    /// map_response: 0 when not answered, else the response mapped.
    static let mapResponse: [ProcessingNode] = [
        ProcessingNode(
            name: "responseCondition",
            children: [
                ProcessingNode(name: "responseIf", children: [ProcessingNode(name: "isNull", children: [response]), set(number("0"))]),
                ProcessingNode(
                    name: "responseElse",
                    children: [set(ProcessingNode(name: "mapResponse", attributes: ["identifier": "RESPONSE"]))]
                ),
            ]
        )
    ]
}

import Foundation
import VaultAPI
import VaultScoring

/// A template item (QTI `templateDeclaration` and `templateProcessing`: numbers drawn at random when it is shown),
/// drawn once when it is published: its processing runs with a generator seeded by the item's identifier, the values
/// are written into its text (`printedVariable`, MathML identifiers of math variables, `templateInline`/`templateBlock`
/// shown or hidden) and the correct responses it sets replace the declared ones. Every student sees the same numbers,
/// and its response processing reads the same values.
enum TemplateReader {
    typealias Skip = ItemSkip

    /// Draws `item` in place; its template variables with their values, or nil when it is not a template item.
    static func instantiate(_ item: MarkupElement, instance: UInt64 = 0) throws -> [ProcessingVariable]? {
        let declared = item.all("templateDeclaration").map(ProcessingReader.variable)
        let processing = item.child("templateProcessing")
        guard !declared.isEmpty || processing != nil else { return nil }
        let rules = try (processing?.children ?? []).map { try ProcessingReader.node($0, depth: 1) }
        let allowed = ResponseEvaluator.rules.union(ResponseEvaluator.expressions).union(ResponseEvaluator.templateRules)
            .union(ResponseEvaluator.randomExpressions)
        if let unknown = firstName(in: rules, notIn: allowed) {
            throw ItemSkip(reason: "its template processing uses <\(unknown)>, which is not evaluated here")
        }
        let responses = item.all("responseDeclaration")
        let context = ResponseProcessing(
            responses: responses.map(ProcessingReader.variable),
            outcomes: item.all("outcomeDeclaration").map(ProcessingReader.variable),
            rules: [],
            binding: .whole(response: ""),
            templates: declared
        )
        guard let drawn = ResponseEvaluator.instantiate(context, templateRules: rules, seed: seed(item) &+ instance) else {
            throw ItemSkip(reason: "its template's constraint is never met, so it has no values to show")
        }
        for declaration in responses {
            guard let identifier = declaration.attributes["identifier"] else { continue }
            if let correct = drawn.correct[identifier] { replaceValues(of: declaration, named: "correctResponse", with: correct) }
            if let value = drawn.defaults[identifier] { replaceValues(of: declaration, named: "defaultValue", with: value) }
        }
        let values = drawn.templates
        let math = Set(declared.map(\.identifier)).intersection(
            item.all("templateDeclaration").filter { $0.attributes["mathVariable"] == "true" }.compactMap { $0.attributes["identifier"] }
        )
        if let body = item.child("itemBody") { write(values, math: math, into: body) }
        return declared.map { variable in
            var drawn = variable
            drawn.defaultValue = values[variable.identifier].map { $0.values.map(\.written) }
            return drawn
        }
    }

    /// How many instances of a template item are drawn at import (different seeds); each student gets one.
    static let instances: UInt64 = 8

    /// Whether `item` draws values (a template item).
    static func isTemplate(_ item: MarkupElement) -> Bool {
        !item.all("templateDeclaration").isEmpty || item.child("templateProcessing") != nil
    }

    /// The same item, the same numbers: FNV-1a of its identifier and title (and the instance's number added).
    static func seed(_ item: MarkupElement) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in ((item.attributes["identifier"] ?? "") + "\u{0}" + (item.attributes["title"] ?? "")).utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    static func firstName(in nodes: [ProcessingNode], notIn allowed: Set<String>) -> String? {
        for node in nodes {
            if !allowed.contains(node.name) { return node.name }
            if let inner = firstName(in: node.arguments, notIn: allowed) { return inner }
        }
        return nil
    }

    /// A declaration's `correctResponse` (or `defaultValue`) made `value`'s values.
    static func replaceValues(of declaration: MarkupElement, named name: String, with value: ProcessingValue) {
        let replacement = MarkupElement(name: name, attributes: [:])
        for base in value.values {
            let element = MarkupElement(name: "value", attributes: [:])
            element.text = base.written
            element.contents = [.text(base.written)]
            replacement.children.append(element)
            replacement.contents.append(.element(element))
        }
        declaration.children.removeAll { $0.name == name }
        declaration.contents.removeAll { if case .element(let element) = $0 { element.name == name } else { false } }
        declaration.children.append(replacement)
        declaration.contents.append(.element(replacement))
    }

    /// The drawn values written into the text.
    static func write(_ values: [String: ProcessingValue], math: Set<String>, into element: MarkupElement) {
        var contents: [MarkupElement.Content] = []
        for content in element.contents {
            guard case .element(let child) = content else {
                contents.append(content)
                continue
            }
            switch child.name {
            case "printedVariable":
                let value = values[child.attributes["identifier"] ?? ""] ?? .null
                contents.append(.text(printed(value, format: child.attributes["format"], delimiter: child.attributes["delimiter"] ?? ";")))
            case "templateInline", "templateBlock":
                let value = values[child.attributes["templateIdentifier"] ?? ""] ?? .null
                let matches = value.values.contains { $0.written == child.attributes["identifier"] }
                guard matches == (child.attributes["showHide"] ?? "show" == "show") else { continue }
                write(values, math: math, into: child)
                contents.append(content)
            case "mi" where math.contains(child.text.trimmingCharacters(in: .whitespacesAndNewlines)):
                let written = printed(values[child.text.trimmingCharacters(in: .whitespacesAndNewlines)] ?? .null, format: nil, delimiter: ",")
                child.text = written
                child.contents = [.text(written)]
                contents.append(content)
            default:
                write(values, math: math, into: child)
                contents.append(content)
            }
        }
        element.contents = contents
        element.children = contents.compactMap { if case .element(let child) = $0 { child } else { nil } }
    }

    /// A value as `printedVariable` shows it: a number in its C format when the format is a plain one ("%.2f").
    static func printed(_ value: ProcessingValue, format: String?, delimiter: String) -> String {
        value.values.map { base in
            if let format, let number = base.number,
                format.range(of: #"^%[-+ 0#]{0,3}[0-9]{0,2}(\.[0-9]{1,2})?[dfeEgGi]$"#, options: .regularExpression) != nil
            {
                if format.hasSuffix("d") || format.hasSuffix("i") {
                    return String(format: String(format.dropLast()) + "ld", Int(saturating: number.rounded()))
                }
                return String(format: format, number)
            }
            return base.written
        }.joined(separator: delimiter)
    }
}

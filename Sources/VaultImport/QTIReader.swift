import Foundation
import VaultAPI

/// IMS QTI 2.1, 2.2 and 3.0 items (3.0's `qti-` names are read as 2.x's). Interactions read: choice (single and
/// multiple), textEntry, extendedText, inlineChoice, match and associate, order, gapMatch; response processing by
/// the standard templates (match_correct, map_response, map_response_point) with correctResponse and mapping.
/// Skipped and named: hotspot, graphic, drawing, upload, media, slider, position, custom interactions, and custom
/// response processing, which a terminal cannot take or we cannot score the same way.
enum QTIReader {
    struct Skip: Error { var reason: String }

    static let unsupported: Set<String> = [
        "hotspotInteraction", "graphicOrderInteraction", "graphicAssociateInteraction", "graphicGapMatchInteraction",
        "selectPointInteraction", "positionObjectInteraction", "drawingInteraction", "uploadInteraction", "mediaInteraction",
        "sliderInteraction", "customInteraction", "portableCustomInteraction", "hottextInteraction", "endAttemptInteraction",
    ]

    static let read: Set<String> = [
        "choiceInteraction", "textEntryInteraction", "extendedTextInteraction", "inlineChoiceInteraction", "matchInteraction",
        "associateInteraction", "orderInteraction", "gapMatchInteraction",
    ]

    /// One item into a question, or a reason it was skipped.
    static func question(_ item: MarkupElement, missingAlt: inout Int, notes: inout [String]) throws -> Question {
        guard item.name == "assessmentItem" else { throw Skip(reason: "it is not an assessment item (<\(item.name)>)") }
        if let processing = item.child("responseProcessing"), processing.attributes["template"] == nil, !processing.children.isEmpty {
            throw Skip(reason: "it scores by custom response processing, which cannot be scored the same way here")
        }
        guard let body = item.child("itemBody") else { throw Skip(reason: "it has no item body") }
        let interactions = body.descendants.filter { $0.name.hasSuffix("Interaction") }
        if let other = interactions.first(where: { !read.contains($0.name) }) {
            throw Skip(reason: "a \(other.name) cannot be taken in a terminal")
        }
        guard !interactions.isEmpty else { throw Skip(reason: "it has no interaction (a text, not a question)") }
        let declarations = Dictionary(
            item.all("responseDeclaration").map { ($0.attributes["identifier"] ?? "", $0) },
            uniquingKeysWith: { first, _ in first }
        )
        func declaration(_ interaction: MarkupElement) -> MarkupElement? { declarations[interaction.attributes["responseIdentifier"] ?? ""] }
        let points =
            item.all("outcomeDeclaration").first { $0.attributes["identifier"] == "SCORE" }
            .flatMap { $0.child("defaultValue")?.value("value") }.flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil } ?? 1
        // Inline blanks (text entries and inline choices in the sentence) make one fill-in-the-blanks question.
        if interactions.allSatisfy({ $0.name == "textEntryInteraction" || $0.name == "inlineChoiceInteraction" }),
            interactions.count > 1
                || interactions.first?.name == "inlineChoiceInteraction"
        {
            return try blanks(body, interactions: interactions, declaration: declaration, points: points, missingAlt: &missingAlt)
        }
        guard interactions.count == 1, let interaction = interactions.first else {
            throw Skip(reason: "it has several interactions of different kinds")
        }
        var prompt = prose(body, missingAlt: &missingAlt)
        if let own = interaction.child("prompt") {
            let text = prose(own, missingAlt: &missingAlt)
            prompt = prompt.isEmpty ? text : prompt + "\n" + text
        }
        guard !prompt.isEmpty else { throw Skip(reason: "it has no question text") }
        let declared = declaration(interaction)
        let correct = values(declared?.child("correctResponse"))
        var question = Question(id: "q", type: .essay, prompt: prompt, points: points)
        switch interaction.name {
        case "choiceInteraction":
            let choices = interaction.descendants.filter { $0.name == "simpleChoice" }.map {
                Choice(id: $0.attributes["identifier"] ?? "", text: prose($0, missingAlt: &missingAlt))
            }
            let single = (interaction.attributes["maxChoices"] ?? "1") == "1"
            var key = correct
            if key.isEmpty, let mapping = declared?.child("mapping") {
                key = mapping.all("mapEntry").filter { (Double($0.attributes["mappedValue"] ?? "") ?? 0) > 0 }.compactMap { $0.attributes["mapKey"] }
            }
            guard choices.count >= 2, !key.isEmpty else { throw Skip(reason: "its choices have no correct response") }
            question.type = single ? .singleChoice : .multipleChoice
            question.answerKey = (single ? Array(key.prefix(1)) : key).map { .string($0) }
            // map_response: each choice's mapped value as its share of the most the mapping can give.
            if correct.isEmpty, let mapping = declared?.child("mapping") {
                let values = Self.mappedValues(mapping)
                let positive = values.values.filter { $0 > 0 }
                let most = Double(mapping.attributes["upperBound"] ?? "") ?? (single ? positive.max() ?? 1 : positive.reduce(0, +))
                let fallback = Double(mapping.attributes["defaultValue"] ?? "") ?? 0
                question.choices = choices.map { choice in
                    Choice(id: choice.id, text: choice.text, weight: min(1, max(-1, (values[choice.id] ?? fallback) / max(most, 0.000_001))))
                }
            } else {
                question.choices = choices
            }
        case "textEntryInteraction":
            var accepted = correct
            if let mapping = declared?.child("mapping") {
                accepted += mapping.all("mapEntry").filter { (Double($0.attributes["mappedValue"] ?? "") ?? 0) > 0 }.compactMap {
                    $0.attributes["mapKey"]
                }
                if mapping.all("mapEntry").contains(where: { $0.attributes["caseSensitive"] == "true" }) {
                    notes.append("\"\(item.attributes["title"] ?? "item")\": answers are compared without regard to case here.")
                }
            }
            question.type = .shortText
            question.maxLength = Int(interaction.attributes["expectedLength"] ?? "").map { max($0 * 4, 200) } ?? 200
            question.acceptedAnswers = Self.unique(accepted)
            question.acceptedAnswerWeights = declared?.child("mapping").flatMap { Self.answerWeights($0, except: correct) }
        case "extendedTextInteraction":
            question.type = .essay
            question.maxLength = 20_000
        case "matchInteraction", "associateInteraction":
            let sets = interaction.all("simpleMatchSet")
            let left: [MarkupElement]
            let right: [MarkupElement]
            if sets.count == 2 {
                left = sets[0].all("simpleAssociableChoice")
                right = sets[1].all("simpleAssociableChoice")
            } else {
                // associate: one list paired with itself.
                left = interaction.all("simpleAssociableChoice")
                right = left
            }
            let pairs = correct.compactMap { value -> JSONValue? in
                let parts = value.split(separator: " ").map(String.init)
                return parts.count == 2 ? .array([.string(parts[0]), .string(parts[1])]) : nil
            }
            guard !left.isEmpty, right.count >= 2, !pairs.isEmpty else { throw Skip(reason: "its pairs have no correct response") }
            question.type = .matching
            question.left = left.map { Choice(id: $0.attributes["identifier"] ?? "", text: prose($0, missingAlt: &missingAlt)) }
            question.right = right.map { Choice(id: $0.attributes["identifier"] ?? "", text: prose($0, missingAlt: &missingAlt)) }
            question.answerKey = pairs
        case "orderInteraction":
            let items = interaction.descendants.filter { $0.name == "simpleChoice" }.map {
                Choice(id: $0.attributes["identifier"] ?? "", text: prose($0, missingAlt: &missingAlt))
            }
            guard items.count >= 2, correct.count == items.count else { throw Skip(reason: "its order has no correct response") }
            question.type = .ordering
            question.items = items
            question.answerKey = correct.map { .string($0) }
        case "gapMatchInteraction":
            let words = interaction.all("gapText").map { Choice(id: $0.attributes["identifier"] ?? "", text: prose($0, missingAlt: &missingAlt)) }
            var answers: [String: String] = [:]
            for value in correct {
                let parts = value.split(separator: " ").map(String.init)
                if parts.count == 2 { answers[parts[1]] = parts[0] }
            }
            var blanks: [Blank] = []
            var text = ""
            walk(interaction, into: &text, missingAlt: &missingAlt) { element in
                if element.name == "gapText" || element.name == "prompt" { return "" }
                guard element.name == "gap" else { return nil }
                let id = "\(blanks.count + 1)"
                blanks.append(Blank(id: id, choices: words, answer: answers[element.attributes["identifier"] ?? ""]))
                return "[\(id)]"
            }
            guard words.count >= 2, !blanks.isEmpty else { throw Skip(reason: "its gaps have no words to fill them") }
            question.type = .fillInBlanks
            question.prompt = ImportSupport.tidy(prompt.isEmpty ? text : prompt + "\n" + text)
            question.blanks = blanks
        default:
            throw Skip(reason: "a \(interaction.name) cannot be taken in a terminal")
        }
        return question
    }

    /// A sentence with text entries and inline choices in it: each becomes a numbered blank.
    static func blanks(
        _ body: MarkupElement,
        interactions: [MarkupElement],
        declaration: (MarkupElement) -> MarkupElement?,
        points: Double,
        missingAlt: inout Int
    ) throws -> Question {
        var blanks: [Blank] = []
        var text = ""
        walk(body, into: &text, missingAlt: &missingAlt) { element in
            guard element.name == "textEntryInteraction" || element.name == "inlineChoiceInteraction" else { return nil }
            let id = "\(blanks.count + 1)"
            let declared = declaration(element)
            let correct = values(declared?.child("correctResponse"))
            if element.name == "inlineChoiceInteraction" {
                let choices = element.all("inlineChoice").map {
                    Choice(id: $0.attributes["identifier"] ?? "", text: $0.text.trimmingCharacters(in: .whitespacesAndNewlines))
                }
                blanks.append(Blank(id: id, choices: choices, answer: correct.first))
            } else {
                var accepted = correct
                accepted += (declared?.child("mapping")?.all("mapEntry") ?? []).filter { (Double($0.attributes["mappedValue"] ?? "") ?? 0) > 0 }
                    .compactMap { $0.attributes["mapKey"] }
                blanks.append(
                    Blank(
                        id: id,
                        acceptedAnswers: accepted.isEmpty ? nil : Self.unique(accepted),
                        acceptedAnswerWeights: declared?.child("mapping").flatMap { Self.answerWeights($0, except: correct) }
                    )
                )
            }
            return "[\(id)]"
        }
        guard !blanks.isEmpty else { throw Skip(reason: "its blanks could not be read") }
        return Question(id: "q", type: .fillInBlanks, prompt: ImportSupport.tidy(text), points: points).with { $0.blanks = blanks }
    }

    /// Each text once, in order of first appearance.
    static func unique(_ texts: [String]) -> [String] {
        var seen = Set<String>()
        return texts.filter { seen.insert($0).inserted }
    }

    /// A mapping's `mapKey` -> `mappedValue`.
    static func mappedValues(_ mapping: MarkupElement) -> [String: Double] {
        var values: [String: Double] = [:]
        for entry in mapping.all("mapEntry") {
            if let key = entry.attributes["mapKey"], let value = Double(entry.attributes["mappedValue"] ?? "") { values[key] = values[key] ?? value }
        }
        return values
    }

    /// Partial credit of mapped text answers: each positive value as a share of the largest; the correct response
    /// and full-value answers earn full credit (left out). Nil when every accepted answer earns full credit.
    static func answerWeights(_ mapping: MarkupElement, except correct: [String]) -> [String: Double]? {
        let values = mappedValues(mapping).filter { $0.value > 0 }
        guard let most = values.values.max(), most > 0 else { return nil }
        let partial = values.filter { !correct.contains($0.key) && $0.value < most }.mapValues { $0 / most }
        return partial.isEmpty ? nil : partial
    }

    /// The `<value>`s of a correctResponse.
    static func values(_ element: MarkupElement?) -> [String] {
        (element?.all("value") ?? []).map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// The text of an element (interactions left out), as the student reads it.
    static func prose(_ element: MarkupElement, missingAlt: inout Int) -> String {
        var text = ""
        // A text entry inside a sentence shows where the answer goes; other interactions are asked on their own.
        walk(element, into: &text, missingAlt: &missingAlt) {
            $0.name == "textEntryInteraction" ? "_____" : $0.name.hasSuffix("Interaction") || $0.name == "prompt" ? "" : nil
        }
        return ImportSupport.tidy(text)
    }

    /// Walks text and elements in order; `replace` gives the text for an element it handles (nil: walk into it).
    /// Paragraphs, line breaks and list items are kept; an image is its alt text.
    static func walk(_ element: MarkupElement, into text: inout String, missingAlt: inout Int, replace: (MarkupElement) -> String?) {
        for content in element.contents {
            switch content {
            case .text(let string):
                text += String(string.map { $0 == "\n" || $0 == "\r\n" ? " " : $0 })
            case .element(let child):
                if let replacement = replace(child) {
                    text += replacement
                    continue
                }
                switch child.name {
                case "br": text += "\n"
                case "img", "object":
                    let alt = (child.attributes["alt"] ?? child.text).trimmingCharacters(in: .whitespacesAndNewlines)
                    if alt.isEmpty { missingAlt += 1 }
                    text += alt.isEmpty ? "[Picture with no description]" : "[Picture: \(alt)]"
                case "li":
                    text += "\n- "
                    walk(child, into: &text, missingAlt: &missingAlt, replace: replace)
                case "p", "div", "ul", "ol", "h1", "h2", "h3", "h4", "table", "tr":
                    text += "\n"
                    walk(child, into: &text, missingAlt: &missingAlt, replace: replace)
                    text += "\n"
                default:
                    walk(child, into: &text, missingAlt: &missingAlt, replace: replace)
                }
            }
        }
    }
}

extension Question {
    fileprivate func with(_ change: (inout Question) -> Void) -> Question {
        var copy = self
        change(&copy)
        return copy
    }
}

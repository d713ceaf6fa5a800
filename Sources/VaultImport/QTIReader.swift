import Foundation
import VaultAPI

/// IMS QTI 2.1, 2.2 and 3.0 items (3.0's `qti-` names are read as 2.x's). Interactions read: choice (single and
/// multiple), textEntry, extendedText, inlineChoice, match and associate, order, gapMatch; response processing by
/// the item's own rules or a standard template written out (`ProcessingReader`), scored on the server as written.
/// Skipped and named: hotspot, graphic, drawing, upload, media, slider, position, custom interactions, and rules
/// with an operator the server does not evaluate.
enum QTIReader {
    static let unsupported: Set<String> = [
        "hotspotInteraction", "graphicOrderInteraction", "graphicAssociateInteraction", "graphicGapMatchInteraction",
        "selectPointInteraction", "positionObjectInteraction", "drawingInteraction", "uploadInteraction", "mediaInteraction",
        "sliderInteraction", "customInteraction", "portableCustomInteraction", "hottextInteraction", "endAttemptInteraction",
    ]

    static let read: Set<String> = [
        "choiceInteraction", "textEntryInteraction", "extendedTextInteraction", "inlineChoiceInteraction", "matchInteraction",
        "associateInteraction", "orderInteraction", "gapMatchInteraction",
    ]

    /// One item into a question, or a reason it was skipped. The item's response processing (a template written
    /// out, or the author's own rules) goes with the question and scores it on the server; its points are the item's.
    /// `instance`: which of a template item's instances (its seed); 0 is the one the teacher sees.
    static func question(_ item: MarkupElement, missingAlt: inout Int, notes: inout [String], instance: UInt64 = 0) throws -> Question {
        guard item.name == "assessmentItem" else { throw ItemSkip(reason: "it is not an assessment item (<\(item.name)>)") }
        // A template item is drawn before anything of it is read.
        let templates = try TemplateReader.instantiate(item, instance: instance)
        func noteDrawn() {
            guard templates != nil else { return }
            notes.append(
                "\"\(item.attributes["title"] ?? "item")\" draws its numbers at random: each student gets one of its instances (up to \(TemplateReader.instances)), the same on every device, scored with their own numbers."
            )
        }
        guard let body = item.child("itemBody") else { throw ItemSkip(reason: "it has no item body") }
        let interactions = body.descendants { $0.name.hasSuffix("Interaction") }
        if let other = interactions.first(where: { !read.contains($0.name) }) {
            throw ItemSkip(reason: "a \(other.name) cannot be taken in a terminal")
        }
        guard !interactions.isEmpty else { throw ItemSkip(reason: "it has no interaction (a text, not a question)") }
        let declarations = Dictionary(
            item.all("responseDeclaration").map { ($0.attributes["identifier"] ?? "", $0) },
            uniquingKeysWith: { first, _ in first }
        )
        func declaration(_ interaction: MarkupElement) -> MarkupElement? { declarations[interaction.attributes["responseIdentifier"] ?? ""] }
        let rules = try ProcessingReader.rules(of: item)
        // Inline blanks (text entries, inline choices and one-answer choices in the sentence) make one
        // fill-in-the-blanks question.
        if interactions.allSatisfy(isBlank),
            interactions.count > 1 || interactions.first?.name == "inlineChoiceInteraction"
        {
            var targets: [String: ResponseBinding.BlankTarget] = [:]
            var question = try blanks(body, declaration: declaration, targets: &targets, missingAlt: &missingAlt)
            try ProcessingReader.attach(rules, of: item, binding: .blanks(targets), templates: templates, to: &question)
            noteDrawn()
            return question
        }
        guard interactions.count == 1, let interaction = interactions.first else {
            throw ItemSkip(reason: "it has \(interactions.count) interactions, and a question here takes one answer of one kind")
        }
        var prompt = prose(body, missingAlt: &missingAlt)
        if let own = interaction.child("prompt") {
            let text = prose(own, missingAlt: &missingAlt)
            prompt = prompt.isEmpty ? text : prompt + "\n" + text
        }
        // No words but the options themselves (a rating scale, a set of pairs): the item's title says what it is.
        if prompt.isEmpty, interaction.name != "gapMatchInteraction", let title = item.attributes["title"] {
            prompt = ImportSupport.tidy(title)
        }
        guard !prompt.isEmpty || interaction.name == "gapMatchInteraction" else { throw ItemSkip(reason: "it has no question text") }
        let response = interaction.attributes["responseIdentifier"] ?? ""
        let declared = declaration(interaction)
        let correct = values(declared?.child("correctResponse"))
        // An item whose rules score it needs no key of ours; the key, when there is one, is what a result shows.
        let scored = rules != nil
        let questionBody: QuestionBody
        var targets: [String: ResponseBinding.BlankTarget] = [:]
        var swapped = false
        switch interaction.name {
        case "choiceInteraction":
            let choices = interaction.descendants { $0.name == "simpleChoice" }.map {
                Self.choice($0, text: prose($0, missingAlt: &missingAlt))
            }
            let single = (interaction.attributes["maxChoices"] ?? "1") == "1"
            var key = correct
            if key.isEmpty, let mapping = declared?.child("mapping") {
                key = mapping.all("mapEntry").filter { (Double($0.attributes["mappedValue"] ?? "") ?? 0) > 0 }.compactMap { $0.attributes["mapKey"] }
            }
            guard choices.count >= 2 else { throw ItemSkip(reason: "it has fewer than two choices") }
            guard scored || !key.isEmpty else { throw ItemSkip(reason: "its choices have no correct response") }
            var shown = choices
            // Without rules (no response processing): map_response's values as each choice's share.
            if !scored, correct.isEmpty, let mapping = declared?.child("mapping") {
                let values = Self.mappedValues(mapping)
                let positive = values.values.filter { $0 > 0 }
                let most = Double(mapping.attributes["upperBound"] ?? "") ?? (single ? positive.max() ?? 1 : positive.reduce(0, +))
                let fallback = Double(mapping.attributes["defaultValue"] ?? "") ?? 0
                shown = choices.map { choice in
                    Choice(
                        id: choice.id,
                        text: choice.text,
                        weight: min(1, max(-1, (values[choice.id] ?? fallback) / max(most, 0.000_001))),
                        fixed: choice.fixed
                    )
                }
            }
            let keyed = QuestionBody.Choices(choices: shown, answerKey: key.isEmpty ? nil : (single ? Array(key.prefix(1)) : key).map { .string($0) })
            questionBody = single ? .singleChoice(keyed) : .multipleChoice(keyed)
        case "textEntryInteraction":
            var accepted = correct
            if let mapping = declared?.child("mapping") {
                accepted += mapping.all("mapEntry").filter { (Double($0.attributes["mappedValue"] ?? "") ?? 0) > 0 }.compactMap {
                    $0.attributes["mapKey"]
                }
            }
            questionBody = .shortText(
                .init(
                    maxLength: Int(interaction.attributes["expectedLength"] ?? "").map { max($0 * 4, 200) } ?? 200,
                    acceptedAnswers: Self.unique(accepted),
                    acceptedAnswerWeights: declared?.child("mapping").flatMap { Self.answerWeights($0, except: correct) }
                )
            )
        case "extendedTextInteraction":
            questionBody = .essay(.init(maxLength: 20_000))
        case "matchInteraction", "associateInteraction":
            let sets = interaction.all("simpleMatchSet")
            var left: [MarkupElement]
            var right: [MarkupElement]
            if sets.count == 2 {
                left = sets[0].all("simpleAssociableChoice")
                right = sets[1].all("simpleAssociableChoice")
            } else {
                // associate: one list paired with itself.
                left = interaction.all("simpleAssociableChoice")
                right = left
            }
            // One thing to pair with several options (a rating scale): shown the other way round, so that the
            // student numbers the one and letters the options.
            swapped = right.count < 2 && left.count >= 2 && sets.count == 2
            if swapped { (left, right) = (right, left) }
            let pairs = correct.compactMap { value -> JSONValue? in
                let parts = value.split(whereSeparator: \.isWhitespace).map(String.init)
                guard parts.count == 2 else { return nil }
                return .array((swapped ? parts.reversed() : parts).map(JSONValue.string))
            }
            guard !left.isEmpty, right.count >= 2 else { throw ItemSkip(reason: "it has nothing to pair") }
            guard scored || !pairs.isEmpty else { throw ItemSkip(reason: "its pairs have no correct response") }
            questionBody = .matching(
                .init(
                    left: left.map { Self.choice($0, text: prose($0, missingAlt: &missingAlt)) },
                    right: right.map { Self.choice($0, text: prose($0, missingAlt: &missingAlt)) },
                    answerKey: pairs.isEmpty ? nil : pairs
                )
            )
        case "orderInteraction":
            let items = interaction.descendants { $0.name == "simpleChoice" }.map {
                Self.choice($0, text: prose($0, missingAlt: &missingAlt))
            }
            guard items.count >= 2 else { throw ItemSkip(reason: "it has fewer than two things to put in order") }
            guard scored || correct.count == items.count else { throw ItemSkip(reason: "its order has no correct response") }
            questionBody = .ordering(.init(items: items, answerKey: correct.count == items.count ? correct.map { .string($0) } : nil))
        case "gapMatchInteraction":
            let words = interaction.all("gapText").map { Self.choice($0, text: prose($0, missingAlt: &missingAlt)) }
            var answers: [String: String] = [:]
            for value in correct {
                let parts = value.split(whereSeparator: \.isWhitespace).map(String.init)
                if parts.count == 2 { answers[parts[1]] = parts[0] }
            }
            var blanks: [Blank] = []
            var text = ""
            walk(interaction, into: &text, missingAlt: &missingAlt) { element in
                if element.name == "gapText" || element.name == "prompt" { return "" }
                guard element.name == "gap" else { return nil }
                let id = "\(blanks.count + 1)"
                let gap = element.attributes["identifier"] ?? ""
                blanks.append(Blank(id: id, choices: words, answer: answers[gap]))
                targets[id] = .init(response: response, gap: gap)
                return "[\(id)]"
            }
            guard words.count >= 2, !blanks.isEmpty else { throw ItemSkip(reason: "its gaps have no words to fill them") }
            prompt = ImportSupport.tidy(prompt.isEmpty ? text : prompt + "\n" + text)
            questionBody = .fillInBlanks(.init(blanks: blanks))
        default:
            throw ItemSkip(reason: "a \(interaction.name) cannot be taken in a terminal")
        }
        var question = Question(id: "q", prompt: prompt, points: 1, body: questionBody)
        // `shuffle="true"`: each student gets their own order of its choices (a `fixed` choice keeps its place).
        if interaction.attributes["shuffle"] == "true" { question.shuffle = true }
        if case .essay = questionBody {
            question.points = try ProcessingReader.normalMaximum(of: item) ?? 1
        } else {
            let binding: ResponseBinding =
                !targets.isEmpty ? .blanks(targets) : swapped ? .swapped(response: response) : .whole(response: response)
            try ProcessingReader.attach(rules, of: item, binding: binding, templates: templates, to: &question)
        }
        noteDrawn()
        return question
    }

    /// An interaction a sentence can hold as a numbered blank: a text entry, an inline choice, a one-answer choice.
    static func isBlank(_ interaction: MarkupElement) -> Bool {
        switch interaction.name {
        case "textEntryInteraction", "inlineChoiceInteraction": true
        case "choiceInteraction": (interaction.attributes["maxChoices"] ?? "1") == "1"
        default: false
        }
    }

    /// A sentence with text entries, inline choices and one-answer choices in it: each becomes a numbered blank, and
    /// `targets` says which response each blank fills.
    static func blanks(
        _ body: MarkupElement,
        declaration: (MarkupElement) -> MarkupElement?,
        targets: inout [String: ResponseBinding.BlankTarget],
        missingAlt: inout Int
    ) throws -> Question {
        var blanks: [Blank] = []
        var text = ""
        var found: [String: ResponseBinding.BlankTarget] = [:]
        walk(body, into: &text, missingAlt: &missingAlt) { element in
            guard isBlank(element) else { return nil }
            let id = "\(blanks.count + 1)"
            found[id] = .init(response: element.attributes["responseIdentifier"] ?? "")
            let declared = declaration(element)
            let correct = values(declared?.child("correctResponse"))
            switch element.name {
            case "inlineChoiceInteraction", "choiceInteraction":
                let options =
                    element.name == "choiceInteraction" ? element.descendants { $0.name == "simpleChoice" } : element.all("inlineChoice")
                var ignored = 0
                let choices = options.map { Self.choice($0, text: prose($0, missingAlt: &ignored)) }
                let prompt = element.child("prompt").map { prose($0, missingAlt: &ignored) } ?? ""
                blanks.append(Blank(id: id, choices: choices, answer: correct.first))
                return element.name == "choiceInteraction" ? "\n\(prompt) [\(id)]\n" : "[\(id)]"
            default:
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
                return "[\(id)]"
            }
        }
        guard !blanks.isEmpty else { throw ItemSkip(reason: "its blanks could not be read") }
        targets = found
        var question = Question(id: "q", prompt: ImportSupport.tidy(text), points: 1, body: .fillInBlanks(.init(blanks: blanks)))
        if body.descendants(where: { isBlank($0) && $0.attributes["shuffle"] == "true" }).count > 0 { question.shuffle = true }
        return question
    }

    /// A choice, an option or an item to order, with its place kept when the author fixed it (`fixed="true"`).
    static func choice(_ element: MarkupElement, text: String) -> Choice {
        Choice(id: element.attributes["identifier"] ?? "", text: text, fixed: element.attributes["fixed"] == "true" ? true : nil)
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
        (element?.all("value") ?? []).map { ImportSupport.trimmed($0.text) }.filter { !$0.isEmpty }
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
    /// White space inside a paragraph is collapsed as a browser does; paragraphs, line breaks, list items and `<pre>`
    /// keep their lines; an image is its alt text; an object shows its fallback content (what the author wrote for a
    /// reader that cannot show it), else its description; feedback, shown only after answering, is left out.
    static func walk(
        _ element: MarkupElement,
        into text: inout String,
        missingAlt: inout Int,
        preformatted: Bool = false,
        replace: (MarkupElement) -> String?
    ) {
        for content in element.contents {
            switch content {
            case .text(let string):
                if preformatted || !string.utf8.contains(where: { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
                    text += string
                } else {
                    var spaced = String.UnicodeScalarView()
                    for scalar in string.unicodeScalars { spaced.append(Self.isSpace(scalar) ? " " : scalar) }
                    text.unicodeScalars.append(contentsOf: spaced)
                }
            case .element(let child):
                if let replacement = replace(child) {
                    text += replacement
                    continue
                }
                switch child.name {
                case "br": text += "\n"
                case "feedbackInline", "feedbackBlock", "modalFeedback", "templateVariable", "stylesheet", "annotation", "annotationXml":
                    continue
                case "math":
                    // MathML: its TeX annotation when it has one (the source the author wrote, which a student can
                    // read: "\sqrt{2}>2", where the presentation tokens alone would say "2 > 2"), else its tokens.
                    if let tex = Self.tex(of: child) {
                        text += " " + tex + " "
                    } else {
                        walk(child, into: &text, missingAlt: &missingAlt, preformatted: preformatted, replace: replace)
                    }
                case "object" where !child.children.isEmpty || !child.text.allSatisfy(\.isWhitespace):
                    walk(child, into: &text, missingAlt: &missingAlt, preformatted: preformatted, replace: replace)
                case "img", "object":
                    let alt = (child.attributes["alt"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                    if alt.isEmpty { missingAlt += 1 }
                    text += alt.isEmpty ? "[Picture with no description]" : "[Picture: \(alt)]"
                case "li":
                    text += "\n- "
                    walk(child, into: &text, missingAlt: &missingAlt, preformatted: preformatted, replace: replace)
                case "pre":
                    text += "\n"
                    walk(child, into: &text, missingAlt: &missingAlt, preformatted: true, replace: replace)
                    text += "\n"
                case "p", "div", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "table", "tr", "blockquote":
                    text += "\n"
                    walk(child, into: &text, missingAlt: &missingAlt, preformatted: preformatted, replace: replace)
                    text += "\n"
                default:
                    walk(child, into: &text, missingAlt: &missingAlt, preformatted: preformatted, replace: replace)
                }
            }
        }
    }

    /// A MathML formula's TeX annotation (`<annotation encoding="application/x-tex">`, SnuggleTeX's, …) without its
    /// display delimiters, or nil.
    static func tex(of math: MarkupElement) -> String? {
        let annotation = math.descendants { $0.name == "annotation" && ($0.attributes["encoding"] ?? "").lowercased().contains("tex") }.first
        guard var tex = annotation.map({ ImportSupport.trimmed($0.text) }), !tex.isEmpty else { return nil }
        for (open, close) in [("\\[", "\\]"), ("\\(", "\\)"), ("$$", "$$")] where tex.hasPrefix(open) && tex.hasSuffix(close) && tex.count >= 4 {
            tex = ImportSupport.trimmed(String(tex.dropFirst(open.count).dropLast(close.count)))
        }
        return tex.isEmpty ? nil : tex.replacingOccurrences(of: "\n", with: " ")
    }

    /// XML's white space (space, tab, line feed, carriage return): one space in running text.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" }
}

extension Question {
    fileprivate func with(_ change: (inout Question) -> Void) -> Question {
        var copy = self
        change(&copy)
        return copy
    }
}

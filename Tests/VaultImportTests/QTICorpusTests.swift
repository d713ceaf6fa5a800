import Foundation
import Testing
import VaultAPI
import VaultImport
import VaultRules
import VaultScoring
import VaultTestSupport

/// The standard's own examples (1EdTech qti-examples, in `../shared/qti-examples/`; SOURCES.md names them): how many
/// publish, and whether those that do score as their authors wrote.
@Suite(.ownThreads)
struct QTICorpusTests {
    static let root = QTIExamples.root

    static func files(_ folder: String, _ suffix: String) throws -> [URL] {
        let directory = root.appendingPathComponent(folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(suffix) }.sorted()
        return names.map { directory.appendingPathComponent($0) }
    }

    static func item(_ name: String) throws -> Question {
        let url = root.appendingPathComponent("items/\(name)")
        return try #require(try AssessmentImporter.read(Data(contentsOf: url), fileName: name).assessment.questions.first)
    }

    /// The answer a student gives who answers as the key says (what a released result shows as right).
    static func rightAnswer(_ question: Question) -> JSONValue? {
        switch question.type {
        case .singleChoice, .trueFalse, .numeric: return question.wire.answerKey?.first
        case .multipleChoice, .matching, .ordering: return question.wire.answerKey.map(JSONValue.array)
        case .shortText: return question.wire.acceptedAnswers?.first.map(JSONValue.string)
        case .fillInBlanks:
            var values: [String: JSONValue] = [:]
            for blank in question.wire.blanks ?? [] {
                guard let right = blank.answer ?? blank.acceptedAnswers?.first else { return nil }
                values[blank.id] = .string(right)
            }
            return .object(values)
        case .essay: return nil
        }
    }

    /// Whether every response the rules read declares a correct response (else "the right answer" is the rules').
    static func declaresCorrect(_ processing: ResponseProcessing) -> Bool {
        processing.responses.allSatisfy { ($0.correct ?? []).isEmpty == false }
    }

    @Test(
        "the 1EdTech example items: at least 90% publish; each one that declares a correct response scores it at its points, and an empty answer what its rules give (0)"
    )
    func corpus() throws {
        let files = try Self.files("items", ".xml")
        #expect(files.count >= 250, "the examples are in ../shared/qti-examples/items (\(files.count) found)")
        var published = 0
        var reasons: [String: Int] = [:]
        var checked = 0
        for file in files {
            let data = try Data(contentsOf: file)
            let result: ImportResult
            do {
                result = try AssessmentImporter.read(data, fileName: file.lastPathComponent)
            } catch let error as ImportError {
                reasons[String(error.message.split(separator: ":").last ?? ""), default: 0] += 1
                continue
            }
            published += 1
            try AssessmentValidator.validate(result.assessment)
            for question in result.assessment.questions {
                let empty = Scoring.points(for: nil, question: question)
                guard let processing = question.processing else { continue }
                // Every example's own rules give an empty answer nothing (those whose SCORE starts at 1 set it to 0
                // in their else branch, as match_correct does).
                #expect(empty == 0, "\(file.lastPathComponent): an empty answer scores \(String(describing: empty)) (\(processing.scoreOutcome))")
                guard Self.declaresCorrect(processing), let right = Self.rightAnswer(question) else { continue }
                let points = Scoring.points(for: right, question: question)
                #expect(
                    points == Scoring.maxPoints(question),
                    "\(file.lastPathComponent): the right answer scores \(String(describing: points)) of \(Scoring.maxPoints(question))"
                )
                checked += 1
            }
        }
        #expect(Double(published) >= 0.9 * Double(files.count), "\(published) of \(files.count) publish; the rest: \(reasons)")
        #expect(checked >= 150, "only \(checked) items were checked against their correct response")
    }

    @Test("the IMS samples score as their authors say: \"york\" 0.5 of 1, three right pairs of four 2.5 of 3, a wrong order 0 (all or nothing)")
    func samples() throws {
        let text = try Self.item("qtiv2p2-examples_items_text_entry.xml")
        #expect(text.points == 1)
        #expect(Scoring.points(for: .string("York"), question: text) == 1)
        #expect(Scoring.points(for: .string("york"), question: text) == 0.5)
        #expect(Scoring.points(for: .string("YORK"), question: text) == 0)
        let match = try Self.item("qtiv2p2-examples_items_match.xml")
        #expect(match.points == 3)
        let pairs: [(String, String)] = [("C", "R"), ("D", "M"), ("P", "T")]
        #expect(Scoring.points(for: .array(pairs.map { .array([.string($0.0), .string($0.1)]) }), question: match) == 2.5)
        let order = try Self.item("qtiv2p2-examples_items_order.xml")
        #expect(order.points == 1)
        #expect(Scoring.points(for: .array(["DriverC", "DriverA", "DriverB"].map(JSONValue.string)), question: order) == 1)
        #expect(Scoring.points(for: .array(["DriverC", "DriverB", "DriverA"].map(JSONValue.string)), question: order) == 0)
    }

    @Test(
        "the BBQs package publishes every item but the upload, the select-point one and the sine rule computed by a computer algebra system; its essay keeps its 20 points"
    )
    func bbqs() throws {
        let package = try #require(try Self.files("packages", ".zip").first { $0.lastPathComponent.contains("BBQs") })
        let result = try AssessmentImporter.read(Data(contentsOf: package), fileName: package.lastPathComponent)
        #expect(result.skipped.count == 3, "\(result.skipped)")
        let reasons = ["uploadInteraction", "selectPointInteraction", "customOperator"]
        #expect(result.skipped.allSatisfy { skipped in reasons.contains { skipped.reason.contains($0) } }, "\(result.skipped)")
        // The sine rule computed with QTI's own math operators is there, with several instances of its numbers
        // (each student gets one: issue 54; the note changed from "drawn once").
        let drawn = result.notes.filter { $0.contains("each student gets one of its instances") }
        #expect(drawn.count == 1, "\(result.notes)")
        let template = try #require(result.assessment.questions.first { ($0.variants?.count ?? 0) > 1 })
        #expect(Set(template.variants?.map(\.prompt) ?? []).count > 1, "instances with different numbers")
        try AssessmentValidator.validate(result.assessment)
        #expect(result.assessment.questions.contains { $0.type == .essay && $0.points == 20 })
    }
}

/// The evaluator on hostile rules: what it cannot compute is NULL, never a crash, and nesting past the limit is refused.
@Suite(.ownThreads)
struct ResponseEvaluatorTests {
    static func seed(_ name: String) throws -> Data {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/corpus/import_readers/\(name)")
        return try Data(contentsOf: url).dropFirst()
    }

    @Test("division by zero, an integer overflow and a power past Double are NULL; 800 values counted; the last rule decides; 400 deep is refused")
    func hostile() throws {
        let question = try #require(try AssessmentImporter.read(Self.seed("qti-processing"), fileName: "f.xml").assessment.questions.first)
        #expect(question.points == 2)
        #expect(Scoring.points(for: .array([.string("A")]), question: question) == 2)
        let processing = try #require(question.processing)
        // Each rule on its own: the NULLs it leaves are NULLs, not a trap.
        var only = processing
        let branch = try #require(processing.rules.first?.arguments.first?.arguments)
        for (index, expected) in [(1, nil), (2, nil), (3, nil)] as [(Int, Double?)] {
            only.rules = [
                ProcessingNode(name: "responseCondition", children: [ProcessingNode(name: "responseIf", children: [branch[0], branch[index]])])
            ]
            #expect(ResponseEvaluator.outcomes(only, answer: .array([.string("A")]))["SCORE"] == expected.map { .single(.float($0)) } ?? .null)
        }
        #expect(throws: ImportError.self) { try AssessmentImporter.read(Self.seed("qti-processing-too-deep"), fileName: "f.xml") }
    }

    @Test(
        "equal with tolerances, equalRounded, stringMatch without case, anyN, index, gcd, lcm, statsOperator, repeat and lookupOutcomeValue as the specification gives them"
    )
    func operators() {
        func value(_ type: String, _ text: String) -> ProcessingNode { ProcessingNode(name: "baseValue", attributes: ["baseType": type], text: text) }
        func evaluate(_ expression: ProcessingNode, lookup: LookupTable? = nil) -> ProcessingValue? {
            let processing = ResponseProcessing(
                responses: [ProcessingVariable(identifier: "RESPONSE", cardinality: .single, baseType: .float)],
                outcomes: [
                    ProcessingVariable(identifier: "OUT", cardinality: .single, baseType: lookup == nil ? nil : .float, lookup: lookup)
                ],
                rules: [
                    ProcessingNode(
                        name: lookup == nil ? "setOutcomeValue" : "lookupOutcomeValue",
                        attributes: ["identifier": "OUT"],
                        children: [expression]
                    )
                ],
                binding: .whole(response: "RESPONSE")
            )
            return ResponseEvaluator.outcomes(processing, answer: nil)["OUT"]
        }
        let yes = ProcessingValue.single(.boolean(true))
        let no = ProcessingValue.single(.boolean(false))
        let absolute = ProcessingNode(
            name: "equal",
            attributes: ["toleranceMode": "absolute", "tolerance": "0.1 0.2"],
            children: [value("float", "4"), value("float", "4.15")]
        )
        #expect(evaluate(absolute) == yes)
        let exclusive = ProcessingNode(
            name: "equal",
            attributes: ["toleranceMode": "absolute", "tolerance": "0.1", "includeUpperBound": "false"],
            children: [value("float", "4"), value("float", "4.1")]
        )
        #expect(evaluate(exclusive) == no)
        let relative = ProcessingNode(
            name: "equal",
            attributes: ["toleranceMode": "relative", "tolerance": "10"],
            children: [value("float", "200"), value("float", "219")]
        )
        #expect(evaluate(relative) == yes)
        let rounded = ProcessingNode(
            name: "equalRounded",
            attributes: ["figures": "3"],
            children: [value("float", "3.14159"), value("float", "3.1404")]
        )
        #expect(evaluate(rounded) == yes)
        let places = ProcessingNode(
            name: "equalRounded",
            attributes: ["roundingMode": "decimalPlaces", "figures": "1"],
            children: [value("float", "2.34"), value("float", "2.36")]
        )
        #expect(evaluate(places) == no)
        let text = ProcessingNode(
            name: "stringMatch",
            attributes: ["caseSensitive": "false"],
            children: [value("string", "York"), value("string", "york")]
        )
        #expect(evaluate(text) == yes)
        let any = ProcessingNode(
            name: "anyN",
            attributes: ["min": "2", "max": "3"],
            children: [value("boolean", "true"), value("boolean", "false"), value("boolean", "true")]
        )
        #expect(evaluate(any) == yes)
        let ordered = ProcessingNode(name: "ordered", children: [value("identifier", "a"), value("identifier", "b")])
        #expect(evaluate(ProcessingNode(name: "index", attributes: ["n": "2"], children: [ordered])) == .single(.identifier("b")))
        #expect(evaluate(ProcessingNode(name: "index", attributes: ["n": "3"], children: [ordered])) == .null)
        let six = value("integer", "6")
        #expect(evaluate(ProcessingNode(name: "gcd", children: [six, value("integer", "4")])) == .single(.integer(2)))
        #expect(evaluate(ProcessingNode(name: "lcm", children: [six, value("integer", "4")])) == .single(.integer(12)))
        let numbers = ProcessingNode(name: "ordered", children: ["2", "4", "4", "4", "5", "5", "7", "9"].map { value("integer", $0) })
        #expect(evaluate(ProcessingNode(name: "statsOperator", attributes: ["name": "popSD"], children: [numbers])) == .single(.float(2)))
        #expect(evaluate(ProcessingNode(name: "statsOperator", attributes: ["name": "mean"], children: [numbers])) == .single(.float(5)))
        let repeated = ProcessingNode(name: "repeat", attributes: ["numberRepeats": "3"], children: [value("identifier", "x")])
        #expect(evaluate(ProcessingNode(name: "containerSize", children: [repeated])) == .single(.integer(3)))
        let table = LookupTable(kind: .interpolation, entries: [.init(source: 8, target: "3"), .init(source: 5, target: "2")], defaultValue: "0")
        #expect(evaluate(value("float", "6"), lookup: table) == .single(.float(2)))
        #expect(evaluate(value("float", "1"), lookup: table) == .single(.float(0)))
    }
}

import Foundation
import VaultAPI
import VaultCore
import VaultImport
import VaultRules
import ZIPFoundation

#if canImport(FoundationXML)
import FoundationXML
import VaultModel
#endif

/// Importing a QTI content package of 2,000 items through `AssessmentImporter` (unzip under caps, parse, convert),
/// against Foundation's XML parser alone over the same item files, handing every element and text to a delegate
/// that keeps nothing; and the served document's size against the package's.
enum ImportBenchmarks {
    /// The item's own rules written out as authors write them (empty, right, wrong, each with its feedback), in place
    /// of the match_correct template.
    static let writtenOut = """
        <responseProcessing><responseCondition>
          <responseIf><isNull><variable identifier="RESPONSE"/></isNull>
            <setOutcomeValue identifier="SCORE"><baseValue baseType="float">0</baseValue></setOutcomeValue>
            <setOutcomeValue identifier="FEEDBACK"><baseValue baseType="identifier">EMPTY</baseValue></setOutcomeValue></responseIf>
          <responseElseIf><match><variable identifier="RESPONSE"/><correct identifier="RESPONSE"/></match>
            <setOutcomeValue identifier="SCORE"><sum><variable identifier="SCORE"/><baseValue baseType="float">1</baseValue></sum></setOutcomeValue>
            <setOutcomeValue identifier="FEEDBACK"><baseValue baseType="identifier">RIGHT</baseValue></setOutcomeValue></responseElseIf>
          <responseElse><setOutcomeValue identifier="SCORE"><baseValue baseType="float">0</baseValue></setOutcomeValue>
            <setOutcomeValue identifier="FEEDBACK"><baseValue baseType="identifier">WRONG</baseValue></setOutcomeValue></responseElse>
        </responseCondition></responseProcessing>
        """

    /// Scoring 100,000 answers (a choice each, one in five left empty) by the server's `Scoring.points`: the item
    /// with its rules written out against the same item under match_correct.
    static func scoringRows(answers count: Int, rounds: Int) throws -> [BenchRow] {
        let template = item(0)
        let written = template.replacingOccurrences(
            of: #"<responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct"/>"#,
            with: writtenOut
        ).replacingOccurrences(
            of: "<itemBody>",
            with:
                #"<outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/><outcomeDeclaration identifier="FEEDBACK" cardinality="single" baseType="identifier"/><itemBody>"#
        )
        func question(_ text: String) throws -> Question {
            guard let question = try AssessmentImporter.read(Data(text.utf8), fileName: "b.xml").assessment.questions.first,
                question.processing != nil
            else { throw ImportError("the scoring benchmark's item did not import with its rules") }
            return question
        }
        let (byTemplate, byRules) = (try question(template), try question(written))
        let answers: [JSONValue?] = (0..<count).map { $0 % 5 == 4 ? nil : .string("C\($0 % 4)") }
        var ours = Samples()
        var baseline = Samples()
        var totals = (0.0, 0.0)
        for _ in 0..<rounds {
            totals.0 = ours.time { answers.reduce(0) { $0 + (Scoring.points(for: $1, question: byRules) ?? 0) } }
            totals.1 = baseline.time { answers.reduce(0) { $0 + (Scoring.points(for: $1, question: byTemplate) ?? 0) } }
        }
        guard totals.0 == totals.1 else { throw ImportError("the written-out rules scored \(totals.0), the template \(totals.1)") }
        return [
            BenchRow(
                workload: "score \(count / 1000)k answers by written-out rules vs match_correct",
                ours: ours.median,
                baseline: baseline.median,
                unit: "s",
                goal: "-"
            ),
            try budgetRow(byRules, rounds: rounds * 10),
        ]
    }

    /// One answer scored by rules charged just under the evaluator's work budget (`contains` of 990 values in the same
    /// 990 is charged 980,100 units, as if every value were compared with every other; 1,000 in 1,000 is refused
    /// before it starts) against one answer by ordinary written-out rules.
    static func budgetRow(_ ordinary: Question, rounds: Int) throws -> BenchRow {
        func variable(_ id: String) -> ProcessingNode { ProcessingNode(name: "variable", attributes: ["identifier": id]) }
        // A multiple container (an ordered one is searched as one run, in linear time): every value against every other.
        let thousand = ProcessingNode(
            name: "multiple",
            children: [
                ProcessingNode(
                    name: "repeat",
                    attributes: ["numberRepeats": "990"],
                    children: [ProcessingNode(name: "baseValue", attributes: ["baseType": "identifier"], text: "A")]
                )
            ]
        )
        let rules = [
            ProcessingNode(name: "setOutcomeValue", attributes: ["identifier": "X"], children: [thousand]),
            ProcessingNode(
                name: "setOutcomeValue",
                attributes: ["identifier": "SCORE"],
                children: [ProcessingNode(name: "contains", children: [variable("X"), variable("X")])]
            ),
        ]
        var costly = ordinary
        costly.processing?.outcomes.append(ProcessingVariable(identifier: "X", cardinality: .multiple, baseType: .identifier))
        costly.processing?.rules = rules
        var ours = Samples()
        var baseline = Samples()
        for _ in 0..<rounds {
            guard ours.time({ Scoring.points(for: .string("A"), question: costly) }) != nil else {
                throw ImportError("rules within the work budget were not scored")
            }
            _ = baseline.time { Scoring.points(for: .string("C0"), question: ordinary) }
        }
        return BenchRow(
            workload: "score 1 answer of rules charged just under the work budget vs ordinary rules",
            ours: ours.median,
            baseline: baseline.median,
            unit: "s",
            goal: "contains, 990 in 990"
        )
    }

    static func item(_ index: Int) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="i\(index)" title="Item \(index)">
          <responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">
            <correctResponse><value>C\(index % 4)</value></correctResponse>
          </responseDeclaration>
          <itemBody>
            <p>Question \(index): which of these numbers is the \(index % 4 + 1)th one listed here, counting from the top?</p>
            <choiceInteraction responseIdentifier="RESPONSE" shuffle="false" maxChoices="1">
              <prompt>Choose one.</prompt>
              <simpleChoice identifier="C0">The number \(index)</simpleChoice>
              <simpleChoice identifier="C1">The number \(index + 1)</simpleChoice>
              <simpleChoice identifier="C2">The number \(index + 2)</simpleChoice>
              <simpleChoice identifier="C3">The number \(index + 3)</simpleChoice>
            </choiceInteraction>
          </itemBody>
          <responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct"/>
        </assessmentItem>
        """
    }

    /// The parser alone, delivering the document: every element, attribute set and run of text is handed over
    /// (a delegate without these methods would let Foundation skip making the strings at all).
    final class Collect: NSObject, XMLParserDelegate {
        var elements = 0
        var characters = 0
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
            elements += 1 + attributes.count
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) { elements += 1 }
        func parser(_ parser: XMLParser, foundCharacters string: String) { characters += string.utf8.count }
    }

    static func package(items count: Int) throws -> (zip: Data, items: [Data]) {
        let items = (0..<count).map { Data(item($0).utf8) }
        let resources = (0..<count).map { #"<resource identifier="r\#($0)" type="imsqti_item_xmlv2p1" href="items/i\#($0).xml"/>"# }
        let manifest = Data(#"<manifest identifier="m"><resources>\#(resources.joined())</resources></manifest>"#.utf8)
        let archive = try Archive(data: Data(), accessMode: .create)
        for (path, bytes) in [("imsmanifest.xml", manifest)] + items.enumerated().map({ ("items/i\($0.offset).xml", $0.element) }) {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate) { position, size in
                bytes.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        guard let data = archive.data else { throw ImportError("the benchmark package could not be made") }
        return (data, items)
    }

    static func rows(items count: Int, rounds: Int) throws -> [BenchRow] {
        let (zip, items) = try package(items: count)
        var ours = Samples()
        var baseline = Samples()
        var unzip = Samples()
        var served = 0
        for _ in 0..<rounds {
            _ = try unzip.time { try AssessmentImporter.unzipForBenchmark(zip) }
            let result = try ours.time { try AssessmentImporter.read(zip, fileName: "bench.zip", format: .qti) }
            served = try CanonicalJSON.encode(try ServedDocument.hashed(result.assessment.served, version: 1)).count
            baseline.time {
                for data in items {
                    let parser = XMLParser(data: data)
                    let delegate = Collect()
                    parser.delegate = delegate
                    _ = parser.parse()
                }
            }
        }
        return [
            BenchRow(
                workload: "import a \(count)-item QTI package (rules read) vs the XML parser",
                ours: ours.median,
                baseline: baseline.median,
                unit: "s",
                goal: .ratioAtMost(3)
            ),
            BenchRow(
                workload: "of which unpacking (caps, CRC) vs the parser alone",
                ours: unzip.median,
                baseline: baseline.median,
                unit: "s",
                goal: "-"
            ),
            BenchRow(
                workload: "served document vs the QTI package (\(count) items)",
                ours: Double(served),
                baseline: Double(zip.count),
                unit: "B",
                goal: "served: uncompressed JSON"
            ),
        ]
    }
}

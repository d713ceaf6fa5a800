import Foundation
import Testing
import VaultAPI
import VaultRules
import VaultTestSupport
import ZIPFoundation

@testable import VaultImport

/// Importers bounded by their input: the inputs a hostile review used (a test naming one item 2,000 times, 160,000
/// `<` with no `>`, 40,000 matching pairs, DOCTYPEs the 64 KiB pre-check missed, an undefined entity) are refused or
/// read in time linear in their size. The time limit is a guard against a hang, not a measurement: the figures are
/// in the closing note and `scripts/bench`.
// A bound that catches a hang, not a timing: an 8 MB picture in a debug build on 2 cores shared with the rest of the suite
// once took 166 s.
@Suite(.timeLimit(.minutes(4)))
struct HostileImportTests {
    static let item = #"""
        <assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="c" title="Leaf">
          <responseDeclaration identifier="R" cardinality="single" baseType="identifier"><correctResponse><value>A</value></correctResponse></responseDeclaration>
          <itemBody><p><img src="leaf.png" alt="A leaf"/></p><choiceInteraction responseIdentifier="R" maxChoices="1"><prompt>Green?</prompt>
            <simpleChoice identifier="A">Yes</simpleChoice><simpleChoice identifier="B">No</simpleChoice></choiceInteraction></itemBody>
          <responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct"/>
        </assessmentItem>
        """#

    /// A package whose test names one item `references` times, with a picture of `pictureBytes` bytes.
    static func repeated(_ references: Int, pictureBytes: Int) throws -> Data {
        let manifest = #"""
            <manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" identifier="p"><resources>
              <resource identifier="t" type="imsqti_test_xmlv2p1" href="test.xml"/>
              <resource identifier="i" type="imsqti_item_xmlv2p1" href="item.xml"/>
            </resources></manifest>
            """#
        let refs = (0..<references).map { #"<assessmentItemRef identifier="r\#($0)" href="item.xml"/>"# }.joined()
        let test =
            #"<assessmentTest identifier="t" title="Repeat"><testPart identifier="p"><assessmentSection identifier="s" title="S">"#
            + refs + "</assessmentSection></testPart></assessmentTest>"
        let archive = try Archive(data: Data(), accessMode: .create)
        var picture = Data(count: pictureBytes)
        // Incompressible bytes, as a photograph is (a run of zeros would pass the zip's own ratio cap only as a bomb).
        var generator = SystemRandomNumberGenerator()
        picture.withUnsafeMutableBytes { raw in for index in raw.indices { raw[index] = UInt8.random(in: 0...255, using: &generator) } }
        for (path, bytes) in [
            ("imsmanifest.xml", Data(manifest.utf8)), ("test.xml", Data(test.utf8)), ("item.xml", Data(item.utf8)), ("leaf.png", picture),
        ] {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate) { position, size in
                bytes.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return try #require(archive.data)
    }

    @Test("a test that names one item 20 or 2,000 times reads and embeds it once, and says so")
    func repeatedItem() throws {
        for references in [20, 2_000] {
            let result = try AssessmentImporter.read(try Self.repeated(references, pictureBytes: 200_000), fileName: "repeat.zip")
            #expect(result.assessment.questions.count == 1)
            #expect(result.assessment.questions[0].media?.count == 1)
            #expect(result.notes.contains { $0.contains("names \(references - 1) item(s) more than once") }, "\(result.notes)")
        }
    }

    @Test("a package whose document would pass the served cap is refused at import, and at publish whatever the way")
    func servedCap() throws {
        // 8 MB of picture is 10.7 MB of base64: over the 10 MB a student may download.
        let big = try Self.repeated(1, pictureBytes: 8 * 1024 * 1024)
        #expect(throws: ImportError.tooLarge) { try AssessmentImporter.read(big, fileName: "big.zip") }
        // Our JSON goes around the importer's count: AssessmentPublisher refuses it (the API, the CLI and the desk
        // all publish through it).
        var question = Question(id: "q1", type: .essay, prompt: "Describe the picture.")
        question.media = [Media(name: "p.png", mimeType: "image/png", data: String(repeating: "A", count: 10_600_000), alt: "A picture")]
        let document = Assessment(id: "big", title: "Big", questions: [question])
        #expect(throws: AssessmentPublisher.TooLarge.self) { try AssessmentPublisher.serve(document, version: 1) }
    }

    @Test("tags found in one pass: 160,000 `<` with no `>` stay text; tags become lines, pictures their alt text")
    func htmlText() throws {
        var missing = 0
        let unmatched = String(repeating: "<b", count: 160_000)
        #expect(ImportSupport.text(fromHTML: unmatched, missingAlt: &missing) == unmatched)
        let html = #"<p>One <b>bold</b> line<br/>two</p><ul><li>a</li><li>b</li></ul><IMG SRC="x.png" Alt='A cat'><img src="y.png"> 1 < 2"#
        #expect(
            ImportSupport.text(fromHTML: html, missingAlt: &missing)
                == "One bold line\ntwo\n\n- a\n- b\n[Picture: A cat][Picture with no description] 1 < 2"
        )
        #expect(missing == 1)
        // An attribute name many times over with no value, then one whose quote never closes: still one pass.
        let tag = HTMLTags.Tag(Substring("img" + String(repeating: " alt=", count: 50_000) + " alt='" + String(repeating: "x", count: 50_000)))
        #expect(tag.attribute("alt") == nil)
        #expect(HTMLTags.Tag(Substring(#"img src="a.png" ALT = "A dog""#)).attribute("alt") == "A dog")
        // GIFT [html] and Moodle XML with the same text: imported or refused, never stuck.
        let gift = "::Q::[html]" + unmatched + " {=a ~b}"
        let read = try AssessmentImporter.read(Data(gift.utf8), fileName: "lt.gift", format: .gift)
        #expect(read.assessment.questions.count == 1)
        let moodle =
            "<quiz><question type=\"essay\"><name><text>E</text></name><questiontext format=\"html\"><text>"
            + String(repeating: "&lt;b", count: 160_000) + "</text></questiontext></question></quiz>"
        #expect(try AssessmentImporter.read(Data(moodle.utf8), fileName: "lt.xml", format: .moodleXML).assessment.questions.count == 1)
    }

    @Test("a GIFT matching question with 40,000 pairs is read with one lookup per pair")
    func manyPairs() throws {
        let pairs = (0..<40_000).map { "=item \($0) -> match \($0 % 7)" }.joined(separator: " ")
        let result = try AssessmentImporter.read(Data("::M::Match them. {\(pairs)}".utf8), fileName: "pairs.gift", format: .gift)
        let question = try #require(result.assessment.questions.first)
        #expect(question.wire.left?.count == 40_000 && question.wire.right?.count == 7)
    }

    @Test("the XML gate refuses before parsing: a DOCTYPE behind 70 KB of comment or white space, UTF-16 without a mark, another encoding")
    func xmlGate() throws {
        let doctype = #"<!DOCTYPE quiz [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>"#
        let cases = [
            "<?xml version=\"1.0\"?><!--" + String(repeating: "x", count: 70_000) + "-->" + doctype + "<quiz>&xxe;</quiz>",
            "<?xml version=\"1.0\"?>" + String(repeating: " \n", count: 35_000) + doctype + "<quiz>&xxe;</quiz>",
        ]
        for text in cases {
            #expect(throws: ImportError.self) { try AssessmentImporter.read(Data(text.utf8), fileName: "x.xml", format: .moodleXML) }
            do {
                _ = try MarkupElement.parse(Data(text.utf8))
            } catch let error as ImportError {
                #expect(error.message.contains("DTD"))
            }
        }
        let utf16 = try #require((doctype + "<quiz>&xxe;</quiz>").data(using: .utf16LittleEndian))
        #expect(throws: ImportError("The XML is not UTF-8 text; save it as UTF-8 (Moodle exports it so) and try again.")) {
            try MarkupElement.parse(utf16)
        }
        let latin = Data(#"<?xml version="1.0" encoding="ISO-8859-1"?><quiz/>"#.utf8)
        #expect(throws: ImportError.self) { try MarkupElement.parse(latin) }
        // UTF-8 declared, a UTF-8 byte-order mark, XML's own entities: read.
        let fine = Data([0xEF, 0xBB, 0xBF] + Array(#"<?xml version="1.0" encoding="UTF-8"?><quiz a="&amp;&lt;&#233;">x</quiz>"#.utf8))
        #expect(try MarkupElement.parse(fine).attributes["a"] == "&<é")
    }

    @Test("text handed over in many pieces (one per entity) is gathered once: 200,000 entities read whole")
    func manyPieces() throws {
        let xml = "<quiz><text>" + String(repeating: "&lt;b", count: 200_000) + "</text><after>x</after>tail</quiz>"
        let root = try MarkupElement.parse(Data(xml.utf8))
        let text = try #require(root.child("text"))
        #expect(text.text == String(repeating: "<b", count: 200_000))
        #expect(root.child("after")?.text == "x" && root.text == "tail")
    }

    @Test("Aiken: an option whose space and the next character form one character (a combining mark) is read, not trapped")
    func aikenCombiningMark() throws {
        // The import_readers fuzz target's input: "I. " followed by U+034B, a combining mark that joins the space.
        let bytes: [UInt8] = [0x57, 0x74, 0x20, 0x0A, 0x49, 0x2E, 0x20, 0xCD, 0x8B, 0xDF, 0x96, 0x68, 0x61, 0x74, 0x0A, 0x41, 0x2E, 0x20, 0x33, 0x0A]
        let text = String(decoding: bytes, as: UTF8.self) + "B. 4\nANSWER: B\n"
        let result = try AssessmentImporter.read(Data(text.utf8), fileName: "a.txt", format: .aiken)
        #expect(result.assessment.questions.first?.wire.choices?.count == 3)
        #expect(AikenReader.option("A) Paris")! == ("A", "Paris") && AikenReader.option("Hello") == nil)
    }

    @Test("a processing instruction with nothing in it (which crashes Foundation's parser) is refused before parsing")
    func emptyInstruction() throws {
        for text in ["<quiz><?xmi?></quiz>", "<?xml version=\"1.0\"?><quiz><q><?x   ?></q></quiz>", "<quiz><??></quiz>"] {
            #expect(throws: ImportError.self) { try MarkupElement.parse(Data(text.utf8)) }
        }
        // Instructions with something in them, and the declaration, are read as before.
        #expect(try MarkupElement.parse(Data(#"<?xml version="1.0"?><quiz><?app data?>x</quiz>"#.utf8)).text == "x")
    }

    @Test("an entity the document never defines is an error that names it, never text silently dropped")
    func undefinedEntity() throws {
        let text = #"<quiz><question type="essay"><questiontext><text>LEAK[&xxe;]END</text></questiontext></question></quiz>"#
        do {
            _ = try MarkupElement.parse(Data(text.utf8))
            Issue.record("parsed")
        } catch let error as ImportError {
            #expect(error.message.contains("&xxe;") && error.message.contains("not defined"), "\(error.message)")
        }
    }
}

import Foundation
import Testing
import VaultAPI
import VaultImport
import VaultRules
import VaultTestSupport
import ZIPFoundation

/// IMS QTI items (2.1 and 3.0 names) and content packages, written for this project.
@Suite(.ownThreads)
struct QTIImportTests {
    static let choice21 = #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="choice" title="Photosynthesis" adaptive="false" timeDependent="false">
          <responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">
            <correctResponse><value>B</value></correctResponse>
          </responseDeclaration>
          <outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"><defaultValue><value>2</value></defaultValue></outcomeDeclaration>
          <itemBody>
            <p>Look at the picture.</p><p><img src="leaf.png" alt="A green leaf"/></p>
            <choiceInteraction responseIdentifier="RESPONSE" shuffle="false" maxChoices="1">
              <prompt>Which gas do plants take in?</prompt>
              <simpleChoice identifier="A">Oxygen</simpleChoice>
              <simpleChoice identifier="B">Carbon dioxide</simpleChoice>
            </choiceInteraction>
          </itemBody>
          <responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct"/>
        </assessmentItem>
        """#

    static let order30 = #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <qti-assessment-item xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="order" title="Sizes">
          <qti-response-declaration identifier="RESPONSE" cardinality="ordered" base-type="identifier">
            <qti-correct-response><qti-value>atom</qti-value><qti-value>cell</qti-value><qti-value>organ</qti-value></qti-correct-response>
          </qti-response-declaration>
          <qti-item-body>
            <qti-order-interaction response-identifier="RESPONSE">
              <qti-prompt>Smallest first.</qti-prompt>
              <qti-simple-choice identifier="cell">cell</qti-simple-choice>
              <qti-simple-choice identifier="organ">organ</qti-simple-choice>
              <qti-simple-choice identifier="atom">atom</qti-simple-choice>
            </qti-order-interaction>
          </qti-item-body>
          <qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/match_correct.xml"/>
        </qti-assessment-item>
        """#

    static let match21 = #"""
        <assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="match" title="Capitals">
          <responseDeclaration identifier="RESPONSE" cardinality="multiple" baseType="directedPair">
            <correctResponse><value>FR PAR</value><value>PE LIM</value></correctResponse>
          </responseDeclaration>
          <itemBody>
            <matchInteraction responseIdentifier="RESPONSE" maxAssociations="2">
              <prompt>Match each country with its capital.</prompt>
              <simpleMatchSet><simpleAssociableChoice identifier="FR" matchMax="1">France</simpleAssociableChoice>
                <simpleAssociableChoice identifier="PE" matchMax="1">Peru</simpleAssociableChoice></simpleMatchSet>
              <simpleMatchSet><simpleAssociableChoice identifier="LIM" matchMax="1">Lima</simpleAssociableChoice>
                <simpleAssociableChoice identifier="PAR" matchMax="1">Paris</simpleAssociableChoice>
                <simpleAssociableChoice identifier="OSL" matchMax="1">Oslo</simpleAssociableChoice></simpleMatchSet>
            </matchInteraction>
          </itemBody>
          <responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/map_response"/>
        </assessmentItem>
        """#

    static let inline21 = #"""
        <assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="inline" title="Cat">
          <responseDeclaration identifier="R1" cardinality="single" baseType="string">
            <correctResponse><value>cat</value></correctResponse>
            <mapping defaultValue="0"><mapEntry mapKey="kitten" mappedValue="1"/></mapping>
          </responseDeclaration>
          <responseDeclaration identifier="R2" cardinality="single" baseType="identifier">
            <correctResponse><value>MAT</value></correctResponse>
          </responseDeclaration>
          <itemBody>
            <p>The <textEntryInteraction responseIdentifier="R1" expectedLength="10"/> sat on the
              <inlineChoiceInteraction responseIdentifier="R2"><inlineChoice identifier="MAT">mat</inlineChoice><inlineChoice identifier="ROOF">roof</inlineChoice></inlineChoiceInteraction>.</p>
          </itemBody>
          <responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/map_response"/>
        </assessmentItem>
        """#

    static let hotspot = #"""
        <assessmentItem identifier="hot" title="Hotspot"><itemBody><hotspotInteraction responseIdentifier="R"/></itemBody></assessmentItem>
        """#

    static let custom = #"""
        <assessmentItem identifier="custom" title="Custom"><responseDeclaration identifier="R"><correctResponse><value>A</value></correctResponse></responseDeclaration>
          <itemBody><choiceInteraction responseIdentifier="R" maxChoices="1"><prompt>P?</prompt><simpleChoice identifier="A">a</simpleChoice><simpleChoice identifier="B">b</simpleChoice></choiceInteraction></itemBody>
          <responseProcessing><responseCondition><responseIf><patternMatch pattern="A.*"><variable identifier="R"/></patternMatch><setOutcomeValue identifier="SCORE"><baseValue baseType="float">1</baseValue></setOutcomeValue></responseIf></responseCondition></responseProcessing>
        </assessmentItem>
        """#

    /// A zip of `files` made with ZIPFoundation (deflated), optionally with one symlink entry.
    static func zip(_ files: [(String, String)], symlink: String? = nil) throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        for (path, text) in files {
            let bytes = Data(text.utf8)
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate) { position, size in
                bytes.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        if let symlink {
            let target = Data("/etc/passwd".utf8)
            try archive.addEntry(with: symlink, type: .symlink, uncompressedSize: Int64(target.count)) { position, size in
                target.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return try #require(archive.data)
    }

    static let manifest = #"""
        <manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" identifier="pkg"><resources>
          <resource identifier="t" type="imsqti_test_xmlv2p1" href="test.xml"/>
          <resource identifier="i1" type="imsqti_item_xmlv2p1" href="items/choice.xml"/>
          <resource identifier="i2" type="imsqti_item_xmlv2p1" href="items/order.xml"/>
          <resource identifier="i3" type="imsqti_item_xmlv2p1" href="items/hot.xml"/>
        </resources></manifest>
        """#

    static let test = #"""
        <assessmentTest identifier="t" title="Biology check"><testPart identifier="p"><assessmentSection identifier="s" title="S">
          <assessmentItemRef identifier="a" href="items/order.xml"/><assessmentItemRef identifier="b" href="items/hot.xml"/>
          <assessmentItemRef identifier="c" href="items/choice.xml"><weight identifier="W" value="3"/></assessmentItemRef>
        </assessmentSection></testPart></assessmentTest>
        """#

    @Test(
        "QTI items: choice (2.1, with its picture's alt text), order (3.0 names), match, inline blanks; hotspot and an operator not evaluated skipped"
    )
    func items() throws {
        let choice = try AssessmentImporter.read(Data(Self.choice21.utf8), fileName: "choice.xml")
        let q = try #require(choice.assessment.questions.first)
        // match_correct gives 1 (SCORE's default value is where it starts, not what it can reach).
        #expect(q.type == .singleChoice && q.wire.answerKey == [.string("B")] && q.points == 1)
        #expect(q.prompt == "Look at the picture.\n\n[Picture: A green leaf]\nWhich gas do plants take in?", "\(q.prompt)")
        #expect(choice.assessment.title == "Photosynthesis")
        let order = try #require(try AssessmentImporter.read(Data(Self.order30.utf8), fileName: "order.xml").assessment.questions.first)
        #expect(order.type == .ordering && order.wire.items?.map(\.id) == ["cell", "organ", "atom"] && order.wire.answerKey?.count == 3)
        let match = try #require(try AssessmentImporter.read(Data(Self.match21.utf8), fileName: "m.xml").assessment.questions.first)
        #expect(match.type == .matching && match.wire.right?.count == 3)
        #expect(match.wire.answerKey == [.array([.string("FR"), .string("PAR")]), .array([.string("PE"), .string("LIM")])])
        let inline = try #require(try AssessmentImporter.read(Data(Self.inline21.utf8), fileName: "i.xml").assessment.questions.first)
        #expect(inline.type == .fillInBlanks && inline.prompt == "The [1] sat on the [2].", "\(inline.prompt)")
        #expect(inline.wire.blanks?[0].acceptedAnswers == ["cat", "kitten"] && inline.wire.blanks?[1].answer == "MAT")
        for text in [Self.hotspot, Self.custom] {
            #expect(throws: ImportError.self) { try AssessmentImporter.read(Data(text.utf8), fileName: "x.xml", format: .qti) }
        }
        for document in [choice.assessment] { try AssessmentValidator.validate(document) }
    }

    @Test(
        "a content package: items in the test's order and weights, the hotspot skipped and named, the test's title, its pictures carried in the document"
    )
    func package() throws {
        let files = [
            ("imsmanifest.xml", Self.manifest), ("test.xml", Self.test), ("items/choice.xml", Self.choice21), ("items/order.xml", Self.order30),
            ("items/hot.xml", Self.hotspot),
        ]
        let data = try Self.zip(files + [("items/leaf.png", "PNG-BYTES")])
        #expect(AssessmentImporter.detect(data) == .qti)
        let result = try AssessmentImporter.read(data, fileName: "Biology.zip")
        #expect(result.assessment.title == "Biology check")
        #expect(result.assessment.questions.map(\.type) == [.ordering, .singleChoice])
        #expect(result.skipped.map(\.item) == ["\"Hotspot\""])
        // The test weighs the choice item 3: its points and its score are three times the item's own.
        let weighed = result.assessment.questions[1]
        #expect(weighed.points == 3 && Scoring.points(for: .string("B"), question: weighed) == 3)
        #expect(Scoring.points(for: .string("A"), question: weighed) == 0)
        try AssessmentValidator.validate(result.assessment)
        // The picture travels inside the served document (so inside the encrypted vault), with its alt text.
        let media = try #require(result.assessment.questions[1].media?.first)
        #expect(media.name == "leaf.png" && media.mimeType == "image/png" && media.alt == "A green leaf")
        #expect(Data(base64Encoded: media.data) == Data("PNG-BYTES".utf8))
        #expect(result.assessment.served.questions[1].media == [media])
        // A picture the package names but does not hold is named in the notes, its description kept in the text.
        let without = try AssessmentImporter.read(try Self.zip(files), fileName: "Biology.zip")
        #expect(without.assessment.questions[1].media == nil)
        #expect(without.notes.contains { $0.contains("leaf.png") })
    }

    @Test(
        "QTI map_response, evaluated as written: the mapped values summed within the bounds, strings mapped with case, points the most the mapping gives"
    )
    func mappedValues() throws {
        let choice = #"""
            <assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="m" title="Mapped">
              <responseDeclaration identifier="RESPONSE" cardinality="multiple" baseType="identifier">
                <mapping defaultValue="0" lowerBound="0"><mapEntry mapKey="A" mappedValue="1"/><mapEntry mapKey="B" mappedValue="1"/><mapEntry mapKey="C" mappedValue="-1"/></mapping>
              </responseDeclaration>
              <itemBody><choiceInteraction responseIdentifier="RESPONSE" maxChoices="0"><prompt>Pick the mammals.</prompt>
                <simpleChoice identifier="A">Cat</simpleChoice><simpleChoice identifier="B">Whale</simpleChoice><simpleChoice identifier="C">Trout</simpleChoice>
              </choiceInteraction></itemBody>
              <responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/map_response"/>
            </assessmentItem>
            """#
        let question = try #require(try AssessmentImporter.read(Data(choice.utf8), fileName: "m.xml").assessment.questions.first)
        #expect(question.type == .multipleChoice && question.points == 2 && question.processing != nil)
        #expect(Scoring.points(for: .array([.string("A")]), question: question) == 1)
        #expect(Scoring.points(for: .array([.string("A"), .string("B")]), question: question) == 2)
        #expect(Scoring.points(for: .array([.string("A"), .string("C")]), question: question) == 0)
        #expect(Scoring.points(for: nil, question: question) == 0)
        let text = #"""
            <assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="t" title="Text">
              <responseDeclaration identifier="RESPONSE" cardinality="single" baseType="string">
                <correctResponse><value>cat</value></correctResponse>
                <mapping defaultValue="0"><mapEntry mapKey="cat" mappedValue="2"/><mapEntry mapKey="kitty" mappedValue="1"/></mapping>
              </responseDeclaration>
              <itemBody><p>A young cat is a <textEntryInteraction responseIdentifier="RESPONSE"/>.</p></itemBody>
              <responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/map_response"/>
            </assessmentItem>
            """#
        let entry = try #require(try AssessmentImporter.read(Data(text.utf8), fileName: "t.xml").assessment.questions.first)
        #expect(entry.prompt == "A young cat is a _____.", "\(entry.prompt)")
        #expect(
            entry.type == .shortText && entry.wire.acceptedAnswers == ["cat", "kitty"] && entry.wire.acceptedAnswerWeights == ["kitty": 0.5],
            "\(entry)"
        )
        #expect(entry.points == 2)
        #expect(Scoring.points(for: .string("kitty"), question: entry) == 1)
        #expect(Scoring.points(for: .string("Kitty"), question: entry) == 0, "QTI maps strings with case unless caseSensitive=\"false\"")
        #expect(Scoring.points(for: .string("cat"), question: entry) == 2)
    }

    @Test("hostile packages: a path with .., an absolute path, a symlink, an entry that unpacks too large: refused, nothing read")
    func hostilePackages() throws {
        let cases: [(Data, String)] = [
            (try Self.zip([("imsmanifest.xml", Self.manifest), ("../evil.xml", Self.choice21)]), "outside itself"),
            (try Self.zip([("imsmanifest.xml", Self.manifest), ("/etc/evil.xml", Self.choice21)]), "outside itself"),
            (try Self.zip([("imsmanifest.xml", Self.manifest)], symlink: "items/choice.xml"), "symbolic link"),
            (try Self.zip([("imsmanifest.xml", Self.manifest), ("items/big.xml", String(repeating: " ", count: 13 * 1024 * 1024))]), "zip bomb"),
            (Data([0x50, 0x4B, 0x03, 0x04, 1, 2, 3]), "not a readable zip"),
            (try Self.zip([("readme.txt", "no manifest")]), "no imsmanifest.xml"),
        ]
        for (data, expected) in cases {
            do {
                _ = try AssessmentImporter.read(data, fileName: "p.zip", format: .qti)
                Issue.record("accepted: \(expected)")
            } catch let error as ImportError {
                #expect(error.message.contains(expected), "\(error.message)")
            }
        }
    }
}

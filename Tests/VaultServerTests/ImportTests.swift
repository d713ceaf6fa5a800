import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultImport
import VaultRules
import VaultServer
import VaultTestSupport

/// Teachers' files into our document: fixtures written for this project, one per format.
struct ImportTests {
    static let gift = #"""
        // A GIFT file as Moodle exports it, with every construct we read.
        $CATEGORY: $course$/Physics/Week 1

        ::Light::Sound travels faster than light.{F}

        ::Planet::Which planet is closest to the sun? {=Mercury ~Venus ~Earth#No, the third.}

        ::Gases::[html]<p>Which are <b>noble</b> gases?</p><p><img src="x.png" alt="Periodic table"></p>{
            ~%50%Neon
            ~%50%Argon
            ~%-100%Oxygen
        }

        ::Name::Who wrote "On the Origin of Species"? {=Darwin =Charles Darwin =%50%Charles}

        ::Pi::Pi to two places? {#3.14:0.005}

        ::Range::A number between 1 and 2 {#1..2}

        ::Essay::Explain why the sky is blue. {}

        ::Missing word::The capital of France is {=Paris ~Lyon ~Nice} and it is large.

        ::Match::Match the pairs. {=a -> 1 =b -> 2 =c -> 3}

        ::Escapes::What does \{ \} \= \~ mean in GIFT? {=Escapes \= ~Nothing}
        """#

    static let aiken = """
        What is 2 + 2?
        A. 3
        B. 4
        C) 5
        ANSWER: B

        Which is a mammal?
        A) Shark
        B) Whale
        ANSWER: B
        """

    static let moodle = #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <quiz>
          <question type="category"><category><text>$course$/top/Chemistry basics</text></category></question>
          <question type="multichoice">
            <name><text>Water</text></name>
            <questiontext format="html"><text><![CDATA[<p>What is H<sub>2</sub>O?</p>]]></text></questiontext>
            <defaultgrade>2</defaultgrade>
            <single>true</single>
            <answer fraction="100"><text>Water</text></answer>
            <answer fraction="0"><text>Salt</text></answer>
          </question>
          <question type="multichoice">
            <name><text>Metals</text></name>
            <questiontext format="html"><text>Which are metals?</text></questiontext>
            <single>false</single>
            <answer fraction="50"><text>Iron</text></answer>
            <answer fraction="50"><text>Copper</text></answer>
            <answer fraction="-100"><text>Helium</text></answer>
          </question>
          <question type="truefalse">
            <name><text>Boil</text></name>
            <questiontext format="plain_text"><text>Water boils at 100 °C at sea level.</text></questiontext>
            <answer fraction="100"><text>true</text></answer>
            <answer fraction="0"><text>false</text></answer>
          </question>
          <question type="shortanswer">
            <name><text>Symbol</text></name>
            <questiontext format="html"><text>Symbol of gold?</text></questiontext>
            <answer fraction="100"><text>Au</text></answer>
            <answer fraction="25"><text>Gold</text></answer>
          </question>
          <question type="numerical">
            <name><text>Avogadro</text></name>
            <questiontext format="html"><text>Avogadro's number, in units of 10^23?</text></questiontext>
            <answer fraction="100"><text>6.022</text><tolerance>0.01</tolerance></answer>
          </question>
          <question type="essay">
            <name><text>Bonds</text></name>
            <questiontext format="html"><text>Explain a covalent bond. فارسی</text></questiontext>
          </question>
          <question type="matching">
            <name><text>Pairs</text></name>
            <questiontext format="html"><text>Match them.</text></questiontext>
          </question>
          <question type="matching">
            <name><text>Capitals</text></name>
            <questiontext format="html"><text>Match each country with its capital.</text></questiontext>
            <subquestion format="html"><text>France</text><answer><text>Paris</text></answer></subquestion>
            <subquestion format="html"><text>Peru</text><answer><text>Lima</text></answer></subquestion>
            <subquestion format="html"><text></text><answer><text>Oslo</text></answer></subquestion>
          </question>
          <question type="gapselect">
            <name><text>Gaps</text></name>
            <questiontext format="html"><text>The [[1]] sat on the [[3]].</text></questiontext>
            <selectoption><text>cat</text><group>1</group></selectoption>
            <selectoption><text>dog</text><group>1</group></selectoption>
            <selectoption><text>mat</text><group>2</group></selectoption>
            <selectoption><text>roof</text><group>2</group></selectoption>
          </question>
          <question type="ordering">
            <name><text>Order</text></name>
            <questiontext format="html"><text>Put in order, smallest first.</text></questiontext>
            <answer fraction="0"><text>atom</text></answer>
            <answer fraction="0"><text>cell</text></answer>
            <answer fraction="0"><text>organ</text></answer>
          </question>
          <question type="ddimageortext">
            <name><text>Drag</text></name>
            <questiontext format="html"><text>Drag the labels.</text></questiontext>
          </question>
        </quiz>
        """#

    @Test(
        "GIFT: true/false, single and weighted multiple choice, short answer, numeric with tolerance and range, essay, a missing word, matching, escapes"
    )
    func gift() throws {
        let result = try AssessmentImporter.read(Data(Self.gift.utf8), fileName: "Physics Week 1.gift")
        let questions = result.assessment.questions
        #expect(result.assessment.id == "physics-week-1")
        #expect(
            questions.map(\.type) == [
                .trueFalse, .singleChoice, .multipleChoice, .shortText, .numeric, .numeric, .essay, .singleChoice, .matching, .singleChoice,
            ]
        )
        #expect(questions[0].wire.answerKey == [.bool(false)])
        #expect(questions[1].wire.choices?.map(\.text) == ["Mercury", "Venus", "Earth"] && questions[1].wire.answerKey == [.string("a")])
        #expect(questions[2].wire.answerKey == [.string("a"), .string("b")])
        #expect(questions[2].prompt.contains("Which are noble gases?") && questions[2].prompt.contains("[Picture: Periodic table]"))
        #expect(questions[3].wire.acceptedAnswers == ["Darwin", "Charles Darwin", "Charles"])
        #expect(questions[3].wire.acceptedAnswerWeights == ["Charles": 0.5])
        // Weighted choices score in part: half for each noble gas, a wrong one costs, never below 0.
        #expect(questions[2].wire.choices?.map(\.weight) == [0.5, 0.5, -1])
        #expect(Scoring.points(for: .array([.string("a")]), question: questions[2]) == 0.5)
        #expect(Scoring.points(for: .array([.string("a"), .string("b")]), question: questions[2]) == 1)
        #expect(Scoring.points(for: .array([.string("a"), .string("c")]), question: questions[2]) == 0)
        #expect(Scoring.points(for: .string(" charles "), question: questions[3]) == 0.5)
        #expect(questions[1].wire.choices?.allSatisfy { $0.weight == nil } == true, "no weights: scored by its key")
        #expect(questions[4].wire.answerKey == [.number(3.14)] && questions[4].wire.tolerance == 0.005)
        #expect(questions[5].wire.answerKey == [.number(1.5)] && questions[5].wire.tolerance == 0.5)
        #expect(questions[7].prompt == "The capital of France is _____ and it is large.")
        #expect(questions[8].wire.left?.map(\.text) == ["a", "b", "c"] && questions[8].wire.right?.map(\.text) == ["1", "2", "3"])
        #expect(
            questions[8].wire.answerKey == [
                .array([.string("l1"), .string("a")]), .array([.string("l2"), .string("b")]), .array([.string("l3"), .string("c")]),
            ]
        )
        #expect(questions[9].prompt == "What does { } = ~ mean in GIFT?" && questions[9].wire.choices?.first?.text == "Escapes =")
        #expect(result.skipped.isEmpty)
        #expect(!result.notes.contains { $0.contains("partial credit") })
        try AssessmentValidator.validate(result.assessment)
        // Weights are grading data: never served.
        let served = String(decoding: try CanonicalJSON.encode(result.assessment.served), as: UTF8.self)
        #expect(!served.contains("weight"))
    }

    @Test(
        "Moodle cloze (multianswer): short answer, multiple choice and numerical gaps become blanks, weights kept, braces that are not gaps left alone"
    )
    func cloze() throws {
        let xml = #"""
            <?xml version="1.0" encoding="UTF-8"?>
            <quiz>
              <question type="cloze">
                <name><text>Capitals</text></name>
                <questiontext format="html"><text><![CDATA[<p>The capital of Germany is {1:SHORTANSWER:=Berlin~%50%berlin city#close}, of Peru {2:MC:Quito~=Lima~%-50%Oslo} and 2+2 = {1:NUMERICAL:=4:0} (a set {x} stays).</p>]]></text></questiontext>
              </question>
              <question type="multianswer">
                <name><text>Broken</text></name>
                <questiontext format="html"><text>Nothing right: {1:MC:a~b}</text></questiontext>
              </question>
            </quiz>
            """#
        let result = try AssessmentImporter.read(Data(xml.utf8), fileName: "cloze.xml")
        let question = try #require(result.assessment.questions.first)
        #expect(question.type == .fillInBlanks)
        #expect(question.prompt == "The capital of Germany is [1], of Peru [2] and 2+2 = [3] (a set {x} stays).", "\(question.prompt)")
        let blanks = try #require(question.wire.blanks)
        #expect(blanks[0].acceptedAnswers == ["Berlin", "berlin city"] && blanks[0].acceptedAnswerWeights == ["berlin city": 0.5])
        #expect(blanks[1].choices?.map(\.text) == ["Quito", "Lima", "Oslo"] && blanks[1].answer == "b")
        #expect(blanks[1].choices?.map(\.weight) == [0, 1, -0.5])
        #expect(blanks[2].acceptedAnswers == ["4"])
        #expect(result.skipped.map(\.item) == ["\"Broken\""])
        try AssessmentValidator.validate(result.assessment)
        // Scored blank by blank with the weights: full, half, right; then a wrong choice earns nothing for its gap.
        #expect(Scoring.maxPoints(question) == 1)
        #expect(Scoring.points(for: .object(["1": .string("Berlin"), "2": .string("b"), "3": .string("4")]), question: question) == 1)
        #expect(Scoring.points(for: .object(["1": .string("Berlin City"), "2": .string("b"), "3": .string("4")]), question: question) == 0.83)
        #expect(Scoring.points(for: .object(["1": .string("Berlin"), "2": .string("c"), "3": .string("4")]), question: question) == 0.5)
        // The NUMERICAL gap is a number: "4.0" and "4,0" are 4; its tolerance is 0, so 4.1 is not.
        #expect(blanks[2].tolerances == ["4": 0])
        for four in ["4.0", "4,0", " 4.00 "] {
            #expect(
                Scoring.points(for: .object(["1": .string("Berlin"), "2": .string("b"), "3": .string(four)]), question: question) == 1,
                "\(four)"
            )
        }
        #expect(Scoring.points(for: .object(["1": .string("Berlin"), "2": .string("b"), "3": .string("4.1")]), question: question) == 0.67)
        #expect(result.assessment.served.questions[0].wire.blanks?[2].tolerances == nil)
    }

    @Test("GIFT: an answer's [html], [markdown] or [plain] is its format, not its text; [html] markup is removed")
    func giftAnswerFormats() throws {
        let gift = "::Gas::Which gas do plants take in? {=[html]<b>Carbon</b> dioxide ~[plain]Oxygen ~[markdown]Helium}\n"
        let question = try #require(try AssessmentImporter.read(Data(gift.utf8), fileName: "g.gift").assessment.questions.first)
        #expect(question.wire.choices?.map(\.text) == ["Carbon dioxide", "Oxygen", "Helium"], "\(String(describing: question.wire.choices))")
    }

    @Test("Aiken: single choice with the right answer as its key")
    func aiken() throws {
        let result = try AssessmentImporter.read(Data(Self.aiken.utf8), fileName: "quick.txt")
        #expect(AssessmentImporter.detect(Data(Self.aiken.utf8)) == .aiken)
        #expect(result.assessment.questions.map(\.wire.answerKey) == [[.string("b")], [.string("b")]])
        #expect(result.assessment.questions[0].wire.choices?.map(\.text) == ["3", "4", "5"])
        try AssessmentValidator.validate(result.assessment)
    }

    @Test("Moodle XML: categories flattened, HTML made text, every type we read; description-less, matching and drag-and-drop skipped and named")
    func moodle() throws {
        let result = try AssessmentImporter.read(Data(Self.moodle.utf8), fileName: "chem.xml")
        let questions = result.assessment.questions
        #expect(result.assessment.title == "Chemistry basics")
        #expect(
            questions.map(\.type) == [.singleChoice, .multipleChoice, .trueFalse, .shortText, .numeric, .essay, .matching, .fillInBlanks, .ordering]
        )
        #expect(questions[6].wire.left?.map(\.text) == ["France", "Peru"] && questions[6].wire.right?.map(\.text) == ["Paris", "Lima", "Oslo"])
        #expect(questions[7].prompt == "The [1] sat on the [2].")
        #expect(questions[7].wire.blanks?.map { $0.choices?.map(\.text) ?? [] } == [["cat", "dog"], ["mat", "roof"]])
        #expect(questions[7].wire.blanks?.map(\.answer) == ["a", "a"])
        #expect(
            questions[8].wire.items?.map(\.text) == ["cell", "organ", "atom"]
                && questions[8].wire.answerKey == [.string("a"), .string("b"), .string("c")]
        )
        #expect(questions[0].prompt == "What is H2O?" && questions[0].points == 2 && questions[0].wire.answerKey == [.string("a")])
        #expect(questions[1].wire.answerKey == [.string("a"), .string("b")])
        #expect(questions[1].wire.choices?.map(\.weight) == [0.5, 0.5, -1])
        #expect(Scoring.points(for: .array([.string("a")]), question: questions[1]) == 0.5)
        #expect(questions[2].wire.answerKey == [.bool(true)])
        #expect(questions[3].wire.acceptedAnswers == ["Au", "Gold"] && questions[3].wire.acceptedAnswerWeights == ["Gold": 0.25])
        #expect(Scoring.points(for: .string("gold"), question: questions[3]) == 0.25)
        #expect(questions[4].wire.answerKey == [.number(6.022)] && questions[4].wire.tolerance == 0.01)
        #expect(result.skipped.map(\.item) == ["\"Pairs\"", "\"Drag\""])
        try AssessmentValidator.validate(result.assessment)
    }

    @Test(
        "hostile and broken files: external entities and entity expansion refused, malformed XML names its line, nothing usable refused",
        arguments: [
            (
                #"<?xml version="1.0"?><!DOCTYPE quiz [<!ENTITY x SYSTEM "file:///etc/passwd">]><quiz><question type="essay"><questiontext><text>&x;</text></questiontext></question></quiz>"#,
                "DTD"
            ),
            (#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><quiz>&lol2;</quiz>"#, "DTD"),
            ("<quiz>\n<question type=\"essay\">\n<questiontext><text>Broken</questiontext>\n</quiz>", "line"),
            (
                #"<quiz><question type="matching"><name><text>Only pairs</text></name><questiontext><text>x</text></questiontext></question></quiz>"#,
                "Nothing in the file"
            ),
            ("Just some text without any answers.", "could not be told"),
        ]
    )
    func refused(_ input: (String, String)) {
        do {
            _ = try AssessmentImporter.read(Data(input.0.utf8), fileName: "bad")
            Issue.record("accepted: \(input.0)")
        } catch let error as ImportError {
            #expect(error.message.contains(input.1), "\(error.message)")
            #expect(!error.message.contains("root:"), "no file content in the message")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test(
        "XML that is not valid UTF-8 (an element name of 0xFF bytes trapped Foundation's parser; found by the fuzz target) is refused in a sentence"
    )
    func invalidUTF8() {
        var data = Data("<quiz><question type=\"essay\"><nam".utf8)
        data.append(contentsOf: [0xFF, 0xFF, 0xFF])
        data.append(contentsOf: Array("e>x</name></question></quiz>".utf8))
        #expect(throws: ImportError.self) { try AssessmentImporter.read(data, fileName: "bad.xml", format: .moodleXML) }
    }

    @Test("a Moodle picture (base64 <file>) travels inside the document with its alt text; the prompt says what it shows")
    func moodlePicture() throws {
        let xml = #"""
            <quiz><question type="truefalse"><name><text>Leaf</text></name>
              <questiontext format="html"><text><![CDATA[<p>Is this green?</p><img src="@@PLUGINFILE@@/leaf.png" alt="A green leaf">]]></text>
                <file name="leaf.png" path="/" encoding="base64">iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==</file>
              </questiontext>
              <answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text></answer>
            </question></quiz>
            """#
        let question = try #require(try AssessmentImporter.read(Data(xml.utf8), fileName: "leaf.xml").assessment.questions.first)
        #expect(question.prompt.contains("[Picture: A green leaf]"))
        let media = try #require(question.media?.first)
        #expect(media.name == "leaf.png" && media.mimeType == "image/png" && media.alt == "A green leaf")
        #expect(Data(base64Encoded: media.data)?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        // Served as it is (pictures are not grading data), so it lands inside the encrypted vault with the questions.
        #expect(Assessment(id: "leaf", title: "Leaf", questions: [question]).served.questions[0].media == [media])
    }
}

/// An imported file with partial credit, end to end on both stores: published, served without its weights, answered,
/// handed in, scored in part.
struct WeightedImportEndToEndTests {
    @Test("a GIFT file's %weights% score in part on both stores, and the served document carries no weight", arguments: Backend.all)
    func weighted(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        var imported = try AssessmentImporter.read(Data(ImportTests.gift.utf8), fileName: "Physics Week 1.gift").assessment
        imported.id = "physics"
        let document = imported
        try await harness.test { api in
            #expect(try await api.publish(document, teacher: try await api.token("teacher")).status == .created)
            let student = try await api.token("student")
            let raw = try await api.send(.get, APIPath.assessment("physics"), token: student)
            #expect(!raw.text.contains("weight") && !raw.text.contains("Charles"))
            let served = try raw.decode(Assessment.self)
            let items = [
                Fixtures.item(served, question: "q3", answer: .array([.string("a")]), attempt: "w-1"),  // one noble gas of two: 0.5
                Fixtures.item(served, question: "q4", answer: .string("charles"), attempt: "w-1"),  // a 50% answer: 0.5
                Fixtures.item(served, question: "q2", answer: .string("a"), attempt: "w-1"),  // right: 1
            ]
            #expect(try await api.batch(items, token: student).allSatisfy { $0.status == .accepted })
            let submission = SubmissionRequest(
                attemptId: "w-1",
                assessmentId: "physics",
                assessmentVersion: served.version ?? 1,
                submittedAt: "2026-11-20T10:10:00.000Z",
                responseIds: items.map(\.id)
            ).listing(items)
            #expect(try await api.send(.post, APIPath.submissions, token: student, json: submission).status == .created)
            let result = try #require(try await harness.storage.resultInputs(user: "student", assessmentID: "physics").first?.result)
            let points = Dictionary(uniqueKeysWithValues: result.questions.map { ($0.questionId, $0.points) })
            #expect(points["q2"] == 1 && points["q3"] == 0.5 && points["q4"] == 0.5)
        }
    }
}

import Foundation
import Testing
import VaultAPI
import VaultTestSupport
import ZIPFoundation

/// A fair exam through the real binaries (issue 54): a QTI 2.1 package whose test selects 2 of 4 items in a shuffled
/// section and keeps a fixed item and a fixed choice in the other; 12 students download it with their own vaults.
struct FairExamBinaryTests {
    static let itemNames = ["p1": "one", "p2": "two", "p3": "three", "p4": "four"]

    /// A one-answer choice item: four choices A-D (shuffled when `shuffle`; D fixed when `fixedLast`), `key` right.
    static func item(_ id: String, prompt: String, key: String, shuffle: Bool = true, fixedLast: Bool = false) -> String {
        let choices = ["A", "B", "C", "D"].map { letter in
            let text = fixedLast && letter == "D" ? "None of the above" : "\(letter.lowercased())-choice of \(prompt)"
            return #"<simpleChoice identifier="\#(letter)"\#(fixedLast && letter == "D" ? #" fixed="true""# : "")>\#(text)</simpleChoice>"#
        }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="\(id)" title="\(prompt)" adaptive="false" timeDependent="false">
              <responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">
                <correctResponse><value>\(key)</value></correctResponse>
              </responseDeclaration>
              <outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>
              <itemBody>
                <choiceInteraction responseIdentifier="RESPONSE" shuffle="\(shuffle)" maxChoices="1">
                  <prompt>\(prompt)</prompt>
                  \(choices)
                </choiceInteraction>
              </itemBody>
              <responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct"/>
            </assessmentItem>
            """
    }

    static func package(at path: String) throws {
        let ids = ["p1", "p2", "p3", "p4", "intro", "c1", "c2"]
        let test = """
            <?xml version="1.0" encoding="UTF-8"?>
            <assessmentTest xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="fair" title="A fair exam">
              <testPart identifier="part" navigationMode="nonlinear" submissionMode="simultaneous">
                <assessmentSection identifier="A" title="Pool" visible="true">
                  <selection select="2"/>
                  <ordering shuffle="true"/>
                  <assessmentItemRef identifier="p1" href="items/p1.xml"/>
                  <assessmentItemRef identifier="p2" href="items/p2.xml"/>
                  <assessmentItemRef identifier="p3" href="items/p3.xml"/>
                  <assessmentItemRef identifier="p4" href="items/p4.xml"/>
                </assessmentSection>
                <assessmentSection identifier="B" title="The rest" visible="true">
                  <ordering shuffle="true"/>
                  <assessmentItemRef identifier="intro" href="items/intro.xml" fixed="true"/>
                  <assessmentItemRef identifier="c1" href="items/c1.xml"/>
                  <assessmentItemRef identifier="c2" href="items/c2.xml"/>
                </assessmentSection>
              </testPart>
            </assessmentTest>
            """
        let resources = ids.map { #"<resource identifier="\#($0)" type="imsqti_item_xmlv2p1" href="items/\#($0).xml"/>"# }.joined(separator: "\n")
        let manifest = """
            <?xml version="1.0" encoding="UTF-8"?>
            <manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" identifier="fair-manifest">
              <resources>
                <resource identifier="test" type="imsqti_test_xmlv2p1" href="test.xml"/>
                \(resources)
              </resources>
            </manifest>
            """
        var files = [("imsmanifest.xml", manifest), ("test.xml", test)]
        for (id, name) in itemNames { files.append(("items/\(id).xml", item(id, prompt: "Pool question \(name)", key: "B"))) }
        files.append(("items/intro.xml", item("intro", prompt: "The exam has begun", key: "A", shuffle: false)))
        files.append(("items/c1.xml", item("c1", prompt: "Which is none", key: "D", fixedLast: true)))
        files.append(("items/c2.xml", item("c2", prompt: "Pick c", key: "C")))
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        for (name, text) in files {
            let bytes = Data(text.utf8)
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate) { position, size in
                bytes.subdata(in: Int(position)..<Int(position) + size)
            }
        }
    }

    /// A student's vault, signed in.
    static func vault(for name: String, server: ServerProcess) throws -> CLIVault {
        let vault = CLIVault()
        try vault.initialize()
        let login = try vault.run(
            ["login", "--server", server.url, "--user", name, "--vault", vault.path, "--password-stdin", "--server-password-stdin"],
            stdin: "pw-1\n\(name)-pw\n"
        )
        #expect(login.status == 0, "\(login.stderr)")
        return vault
    }

    /// Question ids with their choice ids as `vault show --json` lists them (the student's order).
    static func shown(_ vault: CLIVault) throws -> [(id: String, prompt: String, choices: [String])] {
        let questions = try #require(try vault.unlocked(["show", "fair", "--json"]).json?["questions"] as? [[String: Any]])
        return questions.map { question in
            (
                question["id"] as? String ?? "",
                question["prompt"] as? String ?? "",
                (question["choices"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            )
        }
    }

    @Test(
        "12 students by their own vaults: 2 of the pool each, at least 3 orders of questions and of choices, the fixed item and choice never move, nothing else served; a second vault and a re-download see the same; the right letters score full marks of the drawn maximum",
        arguments: Store.here
    )
    func classDraws(_ store: Store) async throws {
        let database: String? = store == .postgres ? try await PostgresCluster.shared().createDatabase(prefix: "fair") : nil
        let server = try ServerProcess(database: database)
        let zip = server.directory.file("fair.zip")
        try Self.package(at: zip)
        let published = try server.admin(["publish", zip, "--id", "fair"])
        #expect(published.status == 0, "\(published.stderr)")
        let names = (1...12).map { "pupil\($0)" }
        for name in names {
            let added = try server.admin(["user", "add", name, "--role", "student", "--password-iterations", "1000"], stdin: "\(name)-pw\n")
            #expect(added.status == 0, "\(added.stderr)")
        }
        var orders = Set<[String]>()
        var choiceOrders = Set<[String]>()
        var first: (vault: CLIVault, shown: [(id: String, prompt: String, choices: [String])])?
        for name in names {
            let vault = try Self.vault(for: name, server: server)
            #expect(try vault.unlocked(["download", "fair"]).status == 0)
            let shown = try Self.shown(vault)
            let pool = shown.filter { $0.prompt.hasPrefix("Pool question") }
            #expect(pool.count == 2 && shown.count == 5, "\(name): \(shown.map(\.prompt))")
            #expect(shown[2].prompt == "The exam has begun", "the fixed item stays first of its section")
            let none = try #require(shown.first { $0.prompt == "Which is none" })
            #expect(none.choices.last == "D", "the fixed choice stays last")
            orders.insert(shown.map(\.prompt))
            choiceOrders.insert(none.choices)
            // What the server sends this student holds no text of the pool's other items.
            let token = try Binaries.system(
                "curl",
                ["-s", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@-", "\(server.url)\(APIPath.token)"],
                stdin: #"{"user":"\#(name)","password":"\#(name)-pw"}"#
            )
            let tokenValue = try #require(token.json?["token"] as? String)
            let served = try Binaries.system("curl", ["-s", "-H", "Authorization: Bearer \(tokenValue)", "\(server.url)/v1/assessments/fair"])
            let drawn = Set(pool.map(\.prompt))
            for other in Self.itemNames.values.map({ "Pool question \($0)" }) where !drawn.contains(other) {
                #expect(!served.stdout.contains(other), "\(name) was sent \(other)")
            }
            #expect(served.stdout.contains("shown_order") || none.choices == ["A", "B", "C", "D"])
            if first == nil { first = (vault, shown) }
        }
        #expect(orders.count >= 3, "\(orders)")
        #expect(choiceOrders.count >= 3, "\(choiceOrders)")

        // pupil1 again: a second vault, then a re-download of the first.
        let (vault, shown) = try #require(first)
        let again = try Self.vault(for: "pupil1", server: server)
        #expect(try again.unlocked(["download", "fair"]).status == 0)
        let onSecond = try Self.shown(again)
        #expect(onSecond.map(\.id) == shown.map(\.id) && onSecond.map(\.choices) == shown.map(\.choices))
        #expect(try vault.unlocked(["download", "fair"]).status == 0)
        #expect(try Self.shown(vault).map(\.choices) == shown.map(\.choices))

        // The right choice by the letter pupil1 sees: full marks, out of the drawn questions' maximum (5, not 7).
        for question in shown {
            let key =
                question.prompt.hasPrefix("Pool") ? "B" : question.prompt == "The exam has begun" ? "A" : question.prompt == "Pick c" ? "C" : "D"
            let index = try #require(question.choices.firstIndex(of: key))
            let letter = String(UnicodeScalar(UInt8(97 + index)))
            let saved = try vault.answer("fair", question.id, letter)
            #expect(saved.status == 0, "\(saved.stderr)")
        }
        #expect(try vault.unlocked(["submit", "fair"]).status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)
        #expect(try server.admin(["release", "fair"]).status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)
        let results = try #require(try vault.unlocked(["results", "--json"]).json?["results"] as? [[String: Any]])
        #expect(results.first?["score"] as? Double == 5 && results.first?["max_score"] as? Double == 5, "\(results)")
        // The teacher's listing gives the student's letters beside the source's where they differ.
        let moved = shown.contains { question in
            let key = question.prompt.hasPrefix("Pool") ? ("B", 1) : question.prompt == "Pick c" ? ("C", 2) : ("", -1)
            return key.1 >= 0 && question.choices.firstIndex(of: key.0) != key.1
        }
        let listing = try server.admin(["responses", "fair"])
        #expect(listing.status == 0 && listing.stdout.contains("in the source") == moved, "\(listing.stdout)")

        // --no-shuffle: the same file in one order for the class; its pool still gives each student 2 of 4.
        #expect(try server.admin(["publish", zip, "--id", "fair-fixed", "--no-shuffle"]).status == 0)
        let fixedVault = try Self.vault(for: "pupil2", server: server)
        #expect(try fixedVault.unlocked(["download", "fair-fixed"]).status == 0)
        let inOrder = try #require(try fixedVault.unlocked(["show", "fair-fixed", "--json"]).json?["questions"] as? [[String: Any]])
        let prompts = inOrder.compactMap { $0["prompt"] as? String }
        #expect(prompts.count == 5 && Array(prompts.suffix(3)) == ["The exam has begun", "Which is none", "Pick c"], "\(prompts)")
        let pool = prompts.prefix(2).compactMap { prompt in Self.itemNames.first { "Pool question \($0.value)" == prompt }?.key }
        #expect(pool.count == 2 && pool == pool.sorted(), "the pool's two in the author's order: \(prompts)")
        for question in inOrder {
            #expect((question["choices"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } == ["A", "B", "C", "D"])
        }
    }

    static let templateItem = """
        <?xml version="1.0" encoding="UTF-8"?>
        <assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="tpl" title="Your number" adaptive="false" timeDependent="false">
          <responseDeclaration identifier="RESPONSE" cardinality="single" baseType="integer"/>
          <outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>
          <templateDeclaration identifier="A" cardinality="single" baseType="integer" mathVariable="false" paramVariable="false"/>
          <templateProcessing>
            <setTemplateValue identifier="A"><randomInteger min="10" max="99"/></setTemplateValue>
            <setCorrectResponse identifier="RESPONSE"><variable identifier="A"/></setCorrectResponse>
          </templateProcessing>
          <itemBody>
            <p>Type the number <printedVariable identifier="A"/> here:</p>
            <textEntryInteraction responseIdentifier="RESPONSE" expectedLength="4"/>
          </itemBody>
          <responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct"/>
        </assessmentItem>
        """

    @Test("a template item: students get their own numbers (the same on every download) and each is scored right with theirs", arguments: Store.here)
    func templateNumbers(_ store: Store) async throws {
        let database: String? = store == .postgres ? try await PostgresCluster.shared().createDatabase(prefix: "tpl") : nil
        let server = try ServerProcess(database: database)
        let file = server.directory.file("number.xml")
        try Data(Self.templateItem.utf8).write(to: URL(fileURLWithPath: file))
        let published = try server.admin(["publish", file, "--id", "number"])
        #expect(published.status == 0, "\(published.stderr)")
        var numbers: [String: String] = [:]
        var vaults: [CLIVault] = []
        for index in 1...6 {
            let name = "pupil\(index)"
            #expect(try server.admin(["user", "add", name, "--role", "student", "--password-iterations", "1000"], stdin: "\(name)-pw\n").status == 0)
            let vault = try Self.vault(for: name, server: server)
            #expect(try vault.unlocked(["download", "number"]).status == 0)
            func shownNumber() throws -> String {
                let questions = try #require(try vault.unlocked(["show", "number", "--json"]).json?["questions"] as? [[String: Any]])
                let prompt = questions.first?["prompt"] as? String ?? ""
                return String(prompt.filter(\.isNumber))
            }
            let number = try shownNumber()
            #expect(number.count == 2, "\(number)")
            #expect(try vault.unlocked(["download", "number"]).status == 0)
            #expect(try shownNumber() == number, "the same numbers on a re-download")
            numbers[name] = number
            #expect(try vault.answer("number", "q1", number).status == 0)
            #expect(try vault.unlocked(["submit", "number"]).status == 0)
            #expect(try vault.unlocked(["sync"]).status == 0)
            vaults.append(vault)
        }
        #expect(Set(numbers.values).count >= 2, "\(numbers)")
        #expect(try server.admin(["release", "number"]).status == 0)
        for vault in vaults {
            #expect(try vault.unlocked(["sync"]).status == 0)
            let results = try #require(try vault.unlocked(["results", "--json"]).json?["results"] as? [[String: Any]])
            #expect(results.first?["score"] as? Double == 1 && results.first?["max_score"] as? Double == 1, "\(results)")
        }
    }
}

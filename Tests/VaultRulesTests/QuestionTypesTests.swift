import Foundation
import Testing
import VaultAPI
import VaultModel
import VaultRules
import VaultTestSupport

/// Matching, ordering and fill in the blanks: one answer rule for both sides, what a student types, partial credit.
struct QuestionTypesTests {
    static let matching = Question(
        id: "m",
        type: .matching,
        prompt: "Match each country with its capital.",
        points: 4,
        answerKey: [.array([.string("fr"), .string("paris")]), .array([.string("pe"), .string("lima")])]
    ).with {
        $0.wire.left = [Choice(id: "fr", text: "France"), Choice(id: "pe", text: "Peru")]
        $0.wire.right = [Choice(id: "lima", text: "Lima"), Choice(id: "paris", text: "Paris"), Choice(id: "oslo", text: "Oslo")]
    }
    static let ordering = Question(
        id: "o",
        type: .ordering,
        prompt: "Smallest first.",
        points: 3,
        answerKey: [.string("atom"), .string("cell"), .string("organ")]
    ).with { $0.wire.items = [Choice(id: "cell", text: "cell"), Choice(id: "organ", text: "organ"), Choice(id: "atom", text: "atom")] }
    static let blanks = Question(id: "f", type: .fillInBlanks, prompt: "The [1] sat on the [2].", points: 2).with {
        $0.wire.blanks = [
            Blank(id: "1", acceptedAnswers: ["cat", "kitten"]),
            Blank(id: "2", choices: [Choice(id: "mat", text: "mat"), Choice(id: "roof", text: "roof")], answer: "mat"),
        ]
    }

    @Test("typed answers: matching 1b 2a, ordering c a b, blanks one line each; read back as typed; misfits refused")
    func typed() throws {
        let pairs = try AnswerParser.parse("1b 2a", for: Self.matching)
        #expect(pairs == .array([.array([.string("fr"), .string("paris")]), .array([.string("pe"), .string("lima")])]))
        #expect(AnswerParser.display(pairs, for: Self.matching) == "1b 2a")
        // The numbers in Persian or Arabic-Indic digits, as those keyboards type them (issue 71).
        #expect(try AnswerParser.parse("۱b ۲a", for: Self.matching) == pairs)
        #expect(try AnswerParser.parse("١b، ٢a", for: Self.matching) == pairs)
        let order = try AnswerParser.parse("c a b", for: Self.ordering)
        #expect(order == .array([.string("atom"), .string("cell"), .string("organ")]))
        #expect(AnswerParser.display(order, for: Self.ordering) == "c a b")
        let filled = try AnswerParser.parse("kitten\na", for: Self.blanks)
        #expect(filled == .object(["1": .string("kitten"), "2": .string("mat")]))
        #expect(AnswerParser.display(filled, for: Self.blanks) == "[1] kitten; [2] a")
        for (text, question) in [
            ("1z", Self.matching), ("3a", Self.matching), ("1a 1b", Self.matching), ("a b", Self.ordering), ("a a b", Self.ordering),
            ("cat\nz", Self.blanks),
        ] {
            #expect(throws: VaultError.self, "\(text)") { try AnswerParser.parse(text, for: question) }
        }
        // The server's rule: what the parser refuses, the server refuses too.
        #expect(!AnswerRules.isValid(.array([.array([.string("fr"), .string("tokyo")])]), for: Self.matching))
        #expect(!AnswerRules.isValid(.object(["9": .string("x")]), for: Self.blanks))
    }

    @Test("partial credit, bounded to [0, points]: per pair, per place, per blank")
    func partialCredit() {
        let onePair = JSONValue.array([.array([.string("fr"), .string("paris")]), .array([.string("pe"), .string("oslo")])])
        #expect(Scoring.points(for: onePair, question: Self.matching) == 2)
        #expect(Scoring.points(for: .array([.string("atom"), .string("organ"), .string("cell")]), question: Self.ordering) == 1)
        #expect(Scoring.points(for: .array([.string("atom"), .string("cell"), .string("organ")]), question: Self.ordering) == 3)
        #expect(Scoring.points(for: .object(["1": .string("Kitten "), "2": .string("roof")]), question: Self.blanks) == 1)
        #expect(Scoring.points(for: .object(["1": .string("dog")]), question: Self.blanks) == 0)
        #expect(Scoring.points(for: nil, question: Self.matching) == 0)
    }

    @Test("served documents carry no keys for the new types; the validator checks their shape")
    func servedAndValidated() throws {
        let document = Assessment(id: "types", title: "Types", questions: [Self.matching, Self.ordering, Self.blanks])
        try AssessmentValidator.validate(document)
        let served = document.served
        #expect(served.questions.allSatisfy { $0.wire.answerKey == nil })
        #expect(served.questions[2].wire.blanks?.allSatisfy { $0.rightAnswer == nil } == true)
        #expect(served.questions[2].wire.blanks?[1].options.count == 2)
        var broken = Self.blanks
        broken.prompt = "No blanks shown."
        #expect(throws: AssessmentValidator.Problem.self) { try AssessmentValidator.validate(Assessment(id: "x", title: "x", questions: [broken])) }
    }
}

extension Question {
    func with(_ change: (inout Question) -> Void) -> Question {
        var copy = self
        change(&copy)
        return copy
    }
}

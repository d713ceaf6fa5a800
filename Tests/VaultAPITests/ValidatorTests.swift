import Foundation
import Testing
import VaultAPI

struct ValidatorTests {
    static func document(_ questions: [Question], id: String = "ok-id", title: String = "T") -> Assessment {
        Assessment(id: id, title: title, questions: questions)
    }

    @Test(
        "ids: a-z, 0-9 and '-' only, 1 to 64 characters",
        arguments: [
            ("algebra-1", true), ("", false), ("Algebra", false), ("a_b", false), (String(repeating: "a", count: 64), true),
            (String(repeating: "a", count: 65), false), ("سؤال", false), ("a b", false),
        ]
    )
    func ids(_ id: String, _ valid: Bool) {
        #expect(AssessmentValidator.isValidID(id) == valid)
    }

    @Test("dates a document carries are RFC 3339: a sealed exam's opening time that is no date is refused (a vault stores it as milliseconds)")
    func dates() throws {
        var document = Self.document([Question(id: "q1", type: .trueFalse, prompt: "?")])
        document.opensAt = "2026-12-31T09:00:00Z"
        #expect(throws: Never.self) { try AssessmentValidator.validate(document) }
        document.opensAt = "next monday"
        #expect(throws: AssessmentValidator.Problem.self) { try AssessmentValidator.validate(document) }
        document.opensAt = nil
        document.notAfter = "soon"
        #expect(throws: AssessmentValidator.Problem.self) { try AssessmentValidator.validate(document) }
    }

    @Test("a served document must not carry an answer key")
    func servedKeys() {
        let leaked = Self.document([Question(id: "q1", type: .trueFalse, prompt: "?", answerKey: [.bool(true)])])
        #expect(throws: AssessmentValidator.Problem.self) { try AssessmentValidator.validate(leaked, requireAnswerKeyAbsent: true) }
        #expect(throws: Never.self) { try AssessmentValidator.validate(leaked) }
    }

    @Test("choices only on choice questions; multiple-choice keys may name several, single-choice one")
    func choiceRules() {
        let choices = [Choice(id: "a", text: "1"), Choice(id: "b", text: "2")]
        // An essay has no choices: a document that gives it some is not read, and the error names the question.
        let essay = #"{"id":"q1","type":"essay","prompt":"?","choices":[{"id":"a","text":"1"},{"id":"b","text":"2"}]}"#
        let error = #expect(throws: QuestionShapeError.self) { try JSONDecoder().decode(Question.self, from: Data(essay.utf8)) }
        #expect(error?.description == "question q1 is essay and cannot have choices")
        #expect(Question(id: "q1", type: .essay, prompt: "?", choices: choices).body == .essay(.init()))
        #expect(throws: AssessmentValidator.Problem.self) {
            try AssessmentValidator.validate(
                Self.document([Question(id: "q1", type: .singleChoice, prompt: "?", choices: choices, answerKey: [.string("a"), .string("b")])])
            )
        }
        #expect(throws: Never.self) {
            try AssessmentValidator.validate(
                Self.document([Question(id: "q1", type: .multipleChoice, prompt: "?", choices: choices, answerKey: [.string("a"), .string("b")])])
            )
        }
    }
}

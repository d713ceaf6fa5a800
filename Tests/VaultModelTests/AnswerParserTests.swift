import Foundation
import Testing
import VaultAPI
import VaultModel

@Suite
struct AnswerParserTests {
    static let choices = [Choice(id: "a", text: "2"), Choice(id: "b", text: "5"), Choice(id: "c", text: "8")]
    static let single = Question(id: "q1", type: .singleChoice, prompt: "p", choices: choices)
    static let multiple = Question(id: "q2", type: .multipleChoice, prompt: "p", choices: choices)
    static let trueFalse = Question(id: "q3", type: .trueFalse, prompt: "p")
    static let numeric = Question(id: "q4", type: .numeric, prompt: "p")
    static let short = Question(id: "q5", type: .shortText, prompt: "p", maxLength: 10)
    static let essay = Question(id: "q6", type: .essay, prompt: "p", maxLength: 100)

    struct Case: Sendable, CustomTestStringConvertible {
        let question: Question
        let input: String
        let expected: JSONValue?
        var testDescription: String { "\(question.type.rawValue) '\(input)'" }
    }

    static let cases: [Case] = [
        Case(question: single, input: "b", expected: .string("b")),
        Case(question: single, input: " c ", expected: .string("c")),
        Case(question: single, input: "z", expected: nil),
        Case(question: single, input: "a,b", expected: nil),
        Case(question: multiple, input: "c,a", expected: .array([.string("a"), .string("c")])),
        Case(question: multiple, input: "a, a", expected: nil),
        Case(question: multiple, input: "", expected: nil),
        Case(question: multiple, input: "a,x", expected: nil),
        Case(question: trueFalse, input: "true", expected: .bool(true)),
        Case(question: trueFalse, input: "F", expected: .bool(false)),
        Case(question: trueFalse, input: "maybe", expected: nil),
        Case(question: numeric, input: "3.14", expected: .number(3.14)),
        Case(question: numeric, input: "-2,5", expected: .number(-2.5)),
        Case(question: numeric, input: "1e3", expected: .number(1000)),
        Case(question: numeric, input: "pi", expected: nil),
        Case(question: numeric, input: "inf", expected: nil),
        Case(question: numeric, input: "nan", expected: nil),
        Case(question: numeric, input: "0x10", expected: nil),
        Case(question: short, input: "coefficient", expected: nil),
        Case(question: short, input: "سلام 🙂", expected: .string("سلام 🙂")),
        Case(question: short, input: "   ", expected: nil),
        Case(question: essay, input: "line one\n\nline three\n", expected: .string("line one\n\nline three")),
        Case(question: essay, input: String(repeating: "x", count: 101), expected: nil),
    ]

    @Test("answers are parsed per type; misfits name what is accepted", arguments: cases)
    func parse(_ testCase: Case) {
        do {
            let value = try AnswerParser.parse(testCase.input, for: testCase.question)
            #expect(value == testCase.expected)
        } catch let error as VaultError {
            #expect(testCase.expected == nil, "refused: \(error.message)")
            #expect(error.code == .invalidData)
            #expect(error.message.contains("Accepted:"))
        } catch {
            Issue.record("\(error)")
        }
    }
}

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
        // Each language's own words (issue 71), the Persian ی and the Arabic ي alike; a bare "si" reads two ways.
        Case(question: trueFalse, input: "Sí", expected: .bool(true)),
        Case(question: trueFalse, input: "verdadero", expected: .bool(true)),
        Case(question: trueFalse, input: "بله", expected: .bool(true)),
        Case(question: trueFalse, input: "درست", expected: .bool(true)),
        Case(question: trueFalse, input: "صحیح", expected: .bool(true)),
        Case(question: trueFalse, input: "صحيح", expected: .bool(true)),
        Case(question: trueFalse, input: "غلط", expected: .bool(false)),
        Case(question: trueFalse, input: "نادرست", expected: .bool(false)),
        Case(question: trueFalse, input: "não", expected: .bool(false)),
        Case(question: trueFalse, input: "hapana", expected: .bool(false)),
        Case(question: trueFalse, input: "si", expected: nil),
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

/// Numbers read as the student meant them (issue 71): a grouping separator in the right places is a thousand; one
/// separator before exactly three digits reads two ways and is asked about, never saved as one of them.
struct NumberReadingTests {
    static let numeric = Question(id: "q4", type: .numeric, prompt: "p")

    @Test(
        "grouped numbers in any script and separator; 1.000, 1,000 and ۱,۰۰۰ are asked about, never saved as 1",
        arguments: [
            ("1000", 1000.0), ("1.5", 1.5), ("1,5", 1.5), ("-2,25", -2.25), (".5", 0.5), ("1e3", 1000), ("1.000.000", 1_000_000),
            ("1,234,567", 1_234_567), ("1.234,5", 1234.5), ("1,234.5", 1234.5), ("1 000", 1000), ("1\u{00A0}000", 1000),
            ("۱۰۰۰", 1000), ("۱٬۰۰۰", 1000), ("۳٫۵", 3.5), ("٣٫١٤", 3.14), ("0,125", 0.125), ("3,1415", 3.1415),
        ] as [(String, Double)]
    )
    func grouped(_ typed: String, _ value: Double) throws {
        #expect(AnswerParser.number(typed) == .value(value), "\(typed)")
        #expect(try AnswerParser.parse(typed, for: Self.numeric) == .number(value))
    }

    @Test(
        "one separator before three digits is read by the student's language: 3.141 and 1,234 in English, 3,141 and 1.234 in Spanish; a Latin one in Persian is asked"
    )
    func byLanguage() {
        #expect(AnswerParser.number("3.141", decimalSeparator: ".") == .value(3.141))
        #expect(AnswerParser.number("1,234", decimalSeparator: ".") == .value(1234))
        #expect(AnswerParser.number("3,141", decimalSeparator: ",") == .value(3.141))
        #expect(AnswerParser.number("1.234", decimalSeparator: ",") == .value(1234))
        #expect(AnswerParser.number("۳,۱۴۱", decimalSeparator: ",") == .value(3.141))
        if case .ambiguous = AnswerParser.number("3.141", decimalSeparator: "٫") {
        } else {
            Issue.record("a Latin separator in Persian was read one way")
        }
        for typed in ["1.000", "1,000"] {
            for separator: Character in [".", ","] {
                if case .ambiguous = AnswerParser.number(typed, decimalSeparator: separator) {
                } else {
                    Issue.record("\(typed) read one way with \(separator)")
                }
            }
        }
    }

    @Test(
        "one separator before 000: asked in a sentence naming both readings, nothing saved",
        arguments: ["1.000", "1,000", "۱,۰۰۰", "2.000"]
    )
    func ambiguous(_ typed: String) {
        guard case .ambiguous(_, let thousands, let decimal) = AnswerParser.number(typed) else {
            Issue.record("\(typed) was not asked about: \(AnswerParser.number(typed))")
            return
        }
        #expect(thousands == decimal * 1000)
        do {
            _ = try AnswerParser.parse(typed, for: Self.numeric)
            Issue.record("\(typed) was saved")
        } catch let error as VaultError {
            #expect(error.message.contains("without a thousands separator") && error.message.contains("could be"), "\(error.message)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test(
        "misplaced groups and other junk are not numbers",
        arguments: ["1.00.0", "12,34,5", "1.234.5", "1,2.3,4", "1..2", "1,", "abc", "1.2e", "--1"]
    )
    func notNumbers(_ typed: String) {
        #expect(AnswerParser.number(typed) == .notANumber, "\(typed)")
    }
}

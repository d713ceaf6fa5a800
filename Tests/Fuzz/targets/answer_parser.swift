import Foundation
import VaultAPI
import VaultCore
import VaultModel

// The answer parser: the first byte picks the question, the rest is what the student typed. Whatever the parser
// accepts, the server's rule (`AnswerRules`, the same one the server applies) accepts, and a value survives the
// JSON round trip it takes to the server; a refusal is a typed VaultError with a sentence saying what is accepted.

let questions: [Question] = [
    Question(id: "q1", type: .singleChoice, prompt: "Pick", choices: [.init(id: "a", text: "A"), .init(id: "b", text: "B")]),
    Question(
        id: "q2",
        type: .multipleChoice,
        prompt: "Pick some",
        choices: [.init(id: "a", text: "A"), .init(id: "b", text: "B"), .init(id: "c", text: "C")]
    ),
    Question(id: "q3", type: .trueFalse, prompt: "True?"),
    Question(id: "q4", type: .numeric, prompt: "How many?"),
    Question(id: "q5", type: .shortText, prompt: "Name"),
    Question(id: "q6", type: .essay, prompt: "Explain"),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let question = questions[Int(start[0]) % questions.count]
    let text = String(decoding: UnsafeBufferPointer(start: start + 1, count: count - 1), as: UTF8.self)
    do {
        let value = try AnswerParser.parse(text, for: question)
        require(AnswerRules.problem(with: value, for: question) == nil, "parser accepted what the server refuses for \(question.id)")
        let wire = try canonicalEncoder().encode(value)
        require((try? JSONDecoder().decode(JSONValue.self, from: wire)) == value, "answer changed on the wire")
    } catch let error as VaultError {
        require(!error.message.isEmpty, "a refusal without a sentence")
    } catch {
        require(false, "untyped error \(error)")
    }
    return 0
}

import Foundation
import VaultAPI
import VaultImport
import VaultScoring

// The importers (GIFT, Aiken, Moodle XML, QTI items and packages): the first byte picks the reader, the rest is the file. A reader either
// refuses with an ImportError sentence or returns questions; whatever it returns has ids that are unique and, for
// the new question types, keys that name their own items (the validator decides the rest without crashing); the
// QTI response processing it reads is evaluated in bounded time.

let formats: [ImportFormat] = [.gift, .aiken, .moodleXML, .auto, .qti]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let format = formats[Int(start[0]) % formats.count]
    let data = Data(UnsafeBufferPointer(start: start + 1, count: count - 1))
    do {
        let result = try AssessmentImporter.read(data, fileName: "fuzz.txt", format: format)
        let ids = result.assessment.questions.map(\.id)
        require(Set(ids).count == ids.count, "a reader gave two questions one id")
        require(!ids.isEmpty, "a reader returned no question without saying why")
        _ = try? AssessmentValidator.validate(result.assessment)
        // The response processing read with the questions is evaluated in bounded time whatever it holds (deep
        // nesting, large containers, division by zero): unanswered, the best it can give, and answers made of the
        // input's own bytes.
        let text = String(decoding: data.prefix(256), as: UTF8.self)
        let words = text.split(separator: " ").prefix(64).map { JSONValue.string(String($0)) }
        for question in result.assessment.questions {
            guard let processing = question.processing else { continue }
            let answers: [JSONValue?] = [
                nil, .string(text), .array(words), .array(words.map { .array([$0, $0]) }),
                .object(Dictionary(uniqueKeysWithValues: (question.fields.blanks ?? []).map { ($0.id, JSONValue.string(text)) })),
            ]
            for answer in answers {
                let score = ResponseEvaluator.score(processing, answer: answer)
                require(!(score?.isNaN ?? false), "a score is not a number")
            }
            if let best = ResponseEvaluator.best(processing) { require(best.isFinite, "the best score is not finite") }
        }
    } catch is ImportError {
    } catch {
        require(false, "a reader threw something other than an ImportError: \(error)")
    }
    return 0
}

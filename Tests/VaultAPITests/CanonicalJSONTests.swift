import Foundation
import Testing
import VaultAPI

struct CanonicalJSONTests {
    @Test("the content hash does not depend on key order or whitespace in what the teacher sent")
    func keyOrder() throws {
        let a = try JSONDecoder().decode(
            Assessment.self,
            from: Data(#"{"id":"x","title":"T","questions":[{"id":"q1","type":"essay","prompt":"P"}]}"#.utf8)
        )
        let b = try JSONDecoder().decode(
            Assessment.self,
            from: Data("{ \"questions\" : [ {\"prompt\":\"P\", \"type\":\"essay\", \"id\":\"q1\"} ], \"title\":\"T\", \"id\":\"x\" }".utf8)
        )
        #expect(try CanonicalJSON.contentBytes(a) == CanonicalJSON.contentBytes(b))
        var c = a
        c.questions[0].prompt = "P2"
        #expect(try CanonicalJSON.contentBytes(a) != CanonicalJSON.contentBytes(c))
    }

    @Test("answer keys never count toward what is served or hashed")
    func answerKeysExcluded() throws {
        var question = Question(id: "q1", type: .trueFalse, prompt: "?", answerKey: [.bool(true)])
        let withKey = try CanonicalJSON.questionBytes(question)
        question.body = .trueFalse(.init(answerKey: [.bool(false)]))
        #expect(try CanonicalJSON.questionBytes(question) == withKey)
        #expect(!String(decoding: withKey, as: UTF8.self).contains("answer_key"))
    }

    @Test("whole numbers encode without a fraction; other values round-trip")
    func jsonValues() throws {
        #expect(String(decoding: try CanonicalJSON.encode(JSONValue.number(3)), as: UTF8.self) == "3")
        #expect(String(decoding: try CanonicalJSON.encode(JSONValue.number(3.25)), as: UTF8.self) == "3.25")
        let mixed: JSONValue = .array([.bool(true), .string("é"), .null, .object(["k": .number(-1)])])
        #expect(try JSONDecoder().decode(JSONValue.self, from: CanonicalJSON.encode(mixed)) == mixed)
    }
}

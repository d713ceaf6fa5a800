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

    @Test("mentions finds a fragment at the start, the end, after a near miss and in a slice; not one cut short; agrees with Foundation's search")
    func mentions() throws {
        #expect(CanonicalJSON.mentions(#""sealed":true"#, in: Data(#""sealed":true,"x":1"#.utf8)))
        #expect(CanonicalJSON.mentions(#""sealed":true"#, in: Data(#"{"a":1,"sealed":true"#.utf8)))
        #expect(CanonicalJSON.mentions(#""sealed":true"#, in: Data(#""sealed":fals"sealed":true}"#.utf8)))
        #expect(!CanonicalJSON.mentions(#""sealed":true"#, in: Data(#"{"sealed":tru"#.utf8)))
        #expect(!CanonicalJSON.mentions(#""sealed":true"#, in: Data()))
        #expect(CanonicalJSON.mentions("", in: Data("x".utf8)))
        let whole = Data(#"...."sealed":true...."#.utf8)
        #expect(CanonicalJSON.mentions(#""sealed":true"#, in: whole[4...]))
        #expect(!CanonicalJSON.mentions(#""sealed":true"#, in: whole[6...]))
        var generator = SplitMix64(seed: 7)
        for _ in 0..<300 {
            let haystack = Data((0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 97...99, using: &generator) })
            let needle = String(
                decoding: (0..<Int.random(in: 1...3, using: &generator)).map { _ in UInt8.random(in: 97...99, using: &generator) },
                as: UTF8.self
            )
            #expect(CanonicalJSON.mentions(needle, in: haystack) == (haystack.firstRange(of: Data(needle.utf8)) != nil), "\(needle)")
        }
    }
}

import Foundation
import Testing

@testable import VaultAPI

/// The server's hand-written paths for a batch (reading the body, the canonical answer, the results, timestamps)
/// must give exactly what the Foundation paths they stand beside give; where they cannot, they must step aside.
struct WireFastPathTests {
    static let batch = #"""
        { "responses" : [
          {"id":"r1","attempt_id":"a1","assessment_id":"quiz","assessment_version":3,"question_id":"q1",
           "question_hash":"h1","answer":"b","time_spent_ms":1200,"answered_at":"2026-11-20T10:00:00.000Z"},
          {"answered_at":"2026-11-20T10:00:01Z","force":true,"answer":["a","c"],"question_hash":"h2","question_id":"q2",
           "assessment_version":1,"assessment_id":"quiz","attempt_id":"a1","id":"r2","time_spent_ms":null,
           "extra":{"nested":[1,2.5,{"x":null}],"s":"\u00e9"}},
          {"id":"r3","attempt_id":"a1","assessment_id":"quiz","assessment_version":1,"question_id":"q3","question_hash":"h3",
           "answer":-2.5e-3,"answered_at":"2026-11-20T10:00:02.000+05:30","force":null},
          {"id":"r4","attempt_id":"a1","assessment_id":"quiz","assessment_version":1,"question_id":"q4","question_hash":"h4",
           "answer":"Line one\nline \"two\" \\ tab\t/slash \ud83d\ude00 \u0041 فارسی","answered_at":"2026-11-20T10:00:03.000Z"},
          {"id":"r5","attempt_id":"a1","assessment_id":"quiz","assessment_version":1,"question_id":"q5","question_hash":"h5",
           "answer":{"b":true,"a":[0,-0,1e3,123456789012345678]},"answered_at":"2026-11-20T10:00:04.000Z","time_spent_ms":-7},
          {"id":"r6","attempt_id":"a1","assessment_id":"quiz","assessment_version":1,"question_id":"q6","question_hash":"h6",
           "answer":null,"answered_at":"2026-11-20T10:00:05.000Z","time_spent_ms":0,"force":false}
        ], "client": "vault 1.0" }
        """#

    @Test("a batch read by hand equals what JSONDecoder reads: escapes, surrogate pairs, numbers, nulls, unknown fields")
    func sameAsDecoder() throws {
        let data = Data(Self.batch.utf8)
        let fast = try #require(JSONReader.batchRequest(data))
        let slow = try JSONDecoder().decode(BatchRequest.self, from: data)
        #expect(fast.responses == slow.responses)
        #expect(fast.responses.count == 6)
        #expect(fast.responses[1].timeSpentMs == 0 && fast.responses[1].force)
        #expect(fast.responses[3].answer == .string("Line one\nline \"two\" \\ tab\t/slash 😀 A فارسی"))
    }

    @Test(
        "what the reader does not handle for certain goes to JSONDecoder",
        arguments: [
            #"{"responses":[],"responses":[]}"#,  // a key twice
            #"{"responses":[{"id":"r1"}]}"#,  // fields missing
            #"{"responses":[{"id":"r","id":"s","attempt_id":"a","assessment_id":"x","assessment_version":1,"question_id":"q","question_hash":"h","answer":1,"answered_at":"t"}]}"#,
            #"{"responses":[{"id":"r","attempt_id":"a","assessment_id":"x","assessment_version":1.0,"question_id":"q","question_hash":"h","answer":1,"answered_at":"t"}]}"#,
            #"{"responses":[{"id":"r","attempt_id":"a","assessment_id":"x","assessment_version":01,"question_id":"q","question_hash":"h","answer":1,"answered_at":"t"}]}"#,
            #"{"responses":[{"id":"\ud800","attempt_id":"a","assessment_id":"x","assessment_version":1,"question_id":"q","question_hash":"h","answer":1,"answered_at":"t"}]}"#,
            "{\"responses\":[{\"id\":\"a\tb\"}]}",  // a raw control character
            #"{"responses":[]} x"#,  // something after the body
            #"{"responses":[1e999]}"#,
            // Found by the fuzz target: a long run of digits where an integer belongs overflowed the reader (a trap).
            #"{"responses":[{"id":"r","attempt_id":"a","assessment_id":"x","assessment_version":1234567890123456789012345678901234567890,"question_id":"q","question_hash":"h","answer":1,"answered_at":"t"}]}"#,
            #"{"responses":[{"id":"r","attempt_id":"a","assessment_id":"x","assessment_version":1,"question_id":"q","question_hash":"h","answer":1,"answered_at":"t","time_spent_ms":-9999999999999999999}]}"#,
            #"{"responses":[],}"#,
            "",
        ]
    )
    func declines(_ body: String) {
        #expect(JSONReader.batchRequest(Data(body.utf8)) == nil)
    }

    @Test(
        "an unknown field twice, a key with an escape, a field of another type: the reader agrees with JSONDecoder or steps aside",
        arguments: [
            #"{"responses":[],"x":1,"x":2}"#,
            #"{"responses":[{"id":"r","attempt_id":"a","assessment_id":"x","assessment_version":1,"question_id":"q","question_hash":"h","answer":1,"answered_at":"t","x":1,"x":{}}]}"#,
            #"{"responses":[{"id":"r","attempt_id":"a","assessment_id":"x","assessment_version":1,"question_id":"q","question_hash":"h","answer":1,"answered_at":"t"}]}"#,
            #"{"responses":[{"id":7,"attempt_id":"a","assessment_id":"x","assessment_version":1,"question_id":"q","question_hash":"h","answer":1,"answered_at":"t"}]}"#,
            #"{"responses":[{"id":"r","attempt_id":"a","assessment_id":"x","assessment_version":1,"question_id":"q","question_hash":"h","answer":{"k":1,"k":2},"answered_at":"t"}]}"#,
            #"{"responses":[{"id":"r","attempt_id":"a","assessment_id":"x","assessment_version":-0,"question_id":"q","question_hash":"h","answer":[],"answered_at":"t","force":1}]}"#,
            #"{"responses":{}}"#,
            #"{"responses":[],"device":"vault-device-1234"}"#,
            #"{"device":null,"responses":[]}"#,
            #"{"responses":[],"device":7}"#,
            #"{"responses":[],"device":"a\u0062cdefgh"}"#,
            #"{"responses":null}"#,
            #"[]"#,
        ]
    )
    func agreesOrStepsAside(_ body: String) {
        let data = Data(body.utf8)
        guard let fast = JSONReader.batchRequest(data) else { return }
        let slow = try? JSONDecoder().decode(BatchRequest.self, from: data)
        #expect(slow?.responses == fast.responses && slow?.device == fast.device)
    }

    @Test("invalid UTF-8 inside a string goes to JSONDecoder")
    func invalidUTF8() {
        var bytes = Array(#"{"responses":[{"id":""#.utf8)
        bytes += [0xC3, 0x28]
        bytes += Array(
            #"","attempt_id":"a","assessment_id":"x","assessment_version":1,"question_id":"q","question_hash":"h","answer":1,"answered_at":"t"}]}"#
                .utf8
        )
        #expect(JSONReader.batchRequest(Data(bytes)) == nil)
    }

    @Test("20,000 mutated bodies: whenever the reader returns a batch, JSONDecoder returns the same one")
    func mutations() throws {
        var random = SplitMix64(seed: 0x5eed)
        let original = Array(Self.batch.utf8)
        let alphabet = Array(#"{}[]",:\ 0123456789.eE+-tfnulrsa"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xFF]
        var agreed = 0
        for _ in 0..<20_000 {
            var bytes = original
            for _ in 0...random.next(upTo: 3) {
                let at = random.next(upTo: bytes.count)
                switch random.next(upTo: 3) {
                case 0: bytes[at] = alphabet[random.next(upTo: alphabet.count)]
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet[random.next(upTo: alphabet.count)], at: at)
                }
            }
            let data = Data(bytes)
            guard let fast = JSONReader.batchRequest(data) else { continue }
            let slow = try? JSONDecoder().decode(BatchRequest.self, from: data)
            #expect(slow?.responses == fast.responses, "disagreement on \(String(decoding: bytes, as: UTF8.self))")
            agreed += 1
        }
        #expect(agreed > 1_000)
    }

    @Test("an answer's canonical text is JSONEncoder's canonical bytes")
    func canonicalAnswers() throws {
        let values: [JSONValue] = [
            .null, .bool(true), .bool(false), .string(""), .string("plain"), .string("a/b"), .string("quote \" and \\"),
            .string("line\nfeed\ttab\u{1}\u{1F}"), .string("é 😀 فارسی"), .number(0), .number(-0.0), .number(42), .number(-17),
            .number(999_999_999_999_999), .number(1e15), .number(3.14), .number(-2.5e-3), .number(1e300),
            .array([]), .array([.string("a"), .number(2), .bool(false), .null, .array([.string("x/y")])]),
            .object(["b": .number(1), "a": .string("z"), "B": .null, "a10": .bool(true), "a2": .array([])]),
        ]
        for value in values {
            #expect(try CanonicalJSON.text(value) == String(decoding: CanonicalJSON.encode(value), as: UTF8.self))
        }
    }

    @Test("a batch's results written by hand are JSONEncoder's canonical bytes")
    func canonicalResults() throws {
        var random = SplitMix64(seed: 7)
        let texts = ["r1", "a/b", "quote \"x\"", "tab\there", "é 😀", "", "This assessment is no longer available."]
        for _ in 0..<200 {
            let results = (0..<random.next(upTo: 6)).map { _ in
                ItemResult(
                    id: texts[random.next(upTo: texts.count)],
                    status: ItemStatus.allCases[random.next(upTo: ItemStatus.allCases.count)],
                    currentVersion: random.next(upTo: 2) == 0 ? nil : random.next(upTo: 100),
                    message: random.next(upTo: 2) == 0 ? nil : texts[random.next(upTo: texts.count)]
                )
            }
            let response = BatchResponse(results: results)
            #expect(try CanonicalJSON.encode(results: response) == CanonicalJSON.encode(response))
        }
    }

    @Test("timestamps read by hand are the instants the ISO 8601 format styles read, and impossible ones are left to them")
    func timestamps() throws {
        let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let plain = Date.ISO8601FormatStyle()
        var random = SplitMix64(seed: 1970)
        for _ in 0..<5_000 {
            // Any millisecond from 1900 to 9999.
            let milliseconds = Int64(random.next(upTo: 255_000_000_000_000)) - 2_208_988_800_000
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            // The formatter may write the millisecond below (binary fractions); what counts is reading the same text.
            let text = withFraction.format(date)
            let read = try withFraction.parse(text)
            #expect(Timestamp.plainMilliseconds(text) == Int64((read.timeIntervalSince1970 * 1000).rounded()), "\(text)")
            let whole = plain.format(date)
            let parsed = try plain.parse(whole)
            #expect(Timestamp.plainMilliseconds(whole) == Int64((parsed.timeIntervalSince1970 * 1000).rounded()), "\(whole)")
        }
        for (text, expected) in [
            ("2026-11-20T10:00:00.000+05:30", "2026-11-20T04:30:00.000Z"), ("2024-02-29T23:59:59.999-01:00", "2024-03-01T00:59:59.999Z"),
        ] {
            let parsed = try withFraction.parse(expected)
            #expect(Timestamp.plainMilliseconds(text) == Int64((parsed.timeIntervalSince1970 * 1000).rounded()))
        }
        for impossible in [
            "2025-02-29T10:00:00.000Z", "2026-13-01T10:00:00.000Z", "2026-11-20T24:00:00.000Z", "2026-11-20T10:60:00Z",
            "2026-11-20T10:00:60Z", "2026-11-20t10:00:00Z", "2026-11-20T10:00:00.00Z", "2026-11-20T10:00:00.000+5:30",
            "1899-12-31T23:59:59Z", "2026-11-20 10:00:00Z", "２026-11-20T10:00:00Z",
            // A fraction with nothing after it, at each length the reader considers (none may read past the end).
            "2026-11-20T10:00:00.", "2026-11-20T10:00:00.1234", "2026-11-20T10:00:00.12345", "2026-11-20T10:00:00.000+05:3",
            "2026-11-20T10:00:00.000Z+05:30",
        ] {
            #expect(Timestamp.plainMilliseconds(impossible) == nil, "\(impossible)")
        }
    }

    @Test("a batch written from stored answer texts is byte for byte the batch JSONEncoder writes from the decoded items")
    func batchFromStoredTexts() throws {
        var plain = Self.everyField
        plain.force = false
        plain.attemptStartedAt = nil
        var escaped = Self.everyField
        escaped.id = "r \"quoted\" \\ and \n"
        escaped.answer = .object(["b": .number(0.1), "a": .string("é/\u{1}")])
        var long = Self.everyField
        long.answer = .string(String(repeating: "essay ", count: 500))
        let items = [Self.everyField, plain, escaped, long]
        for device in [nil, "device-1234"] as [String?] {
            let written = try CanonicalJSON.encode(batch: try items.map(OutgoingResponse.init), device: device)
            #expect(written == (try CanonicalJSON.encode(BatchRequest(responses: items, device: device))))
            #expect(try JSONDecoder().decode(BatchRequest.self, from: written).responses == items)
        }
        #expect(try CanonicalJSON.encode(batch: [], device: nil) == CanonicalJSON.encode(BatchRequest(responses: [])))
    }

    @Test(
        "a time kept as milliseconds writes the same text every time: written and read back to the millisecond, the date part as the format style writes it"
    )
    func millisecondsWriteExactly() throws {
        var random = SplitMix64(seed: 52)
        let plain = Date.ISO8601FormatStyle()
        for _ in 0..<20_000 {
            let milliseconds = Int64(random.next(upTo: 255_000_000_000_000)) - 2_208_988_800_000
            let text = Timestamp.string(milliseconds: milliseconds)
            #expect(Timestamp.plainMilliseconds(text) == milliseconds, "\(text)")
            #expect(Timestamp.string(Date(timeIntervalSince1970: Double(milliseconds) / 1000)) == text)
            let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
            #expect(String(text.prefix(19)) == String(plain.format(Date(timeIntervalSince1970: Double(seconds))).prefix(19)), "\(text)")
        }
        // Outside the years the writer covers itself, the format style writes it.
        #expect(Timestamp.string(milliseconds: 253_402_300_800_000).hasPrefix("10000-"))
    }
}

extension SplitMix64 {
    /// A value in 0..<bound (0 for a bound of 1 or less).
    mutating func next(upTo bound: Int) -> Int { bound <= 1 ? 0 : Int(next(below: UInt64(bound))) }
}

extension WireFastPathTests {
    /// Every field of a `ResponseItem` set to a value other than its default, so a field the fast path drops shows.
    static let everyField = ResponseItem(
        id: "r-populated",
        attemptId: "a-populated",
        assessmentId: "quiz",
        assessmentVersion: 7,
        questionId: "q9",
        questionHash: "hash-9",
        answer: .array([.string("a"), .number(2.5), .bool(true), .null]),
        timeSpentMs: 4321,
        answeredAt: "2026-11-20T10:00:00.000Z",
        force: true,
        attemptStartedAt: "2026-11-20T09:58:00.000Z",
        signature: "c2lnbmVkIGJ5IHRoZSB2YXVsdA=="
    )

    @Test("a fully populated item, encoded by the encoder, reads back equal through the fast path and JSONDecoder; every field is in the body")
    func populatedItem() throws {
        let batch = BatchRequest(responses: [Self.everyField, Self.everyField], device: "device-0001", deviceKey: "a2V5")
        let body = try CanonicalJSON.encode(batch)
        let text = String(decoding: body, as: UTF8.self)
        for key in ResponseItem.CodingKeys.allCases { #expect(text.contains("\"\(key.stringValue)\""), "\(key) is not encoded") }
        let fast = try #require(JSONReader.batchRequest(body))
        #expect(fast.responses == [Self.everyField, Self.everyField])
        #expect(fast.device == batch.device && fast.deviceKey == batch.deviceKey)
        // The vault's own writer (the stored answer text spliced in) writes the same bytes.
        #expect(
            try CanonicalJSON.encode(batch: try batch.responses.map(OutgoingResponse.init), device: batch.device, deviceKey: batch.deviceKey) == body
        )
        #expect(fast.responses == (try JSONDecoder().decode(BatchRequest.self, from: body)).responses)
    }
}

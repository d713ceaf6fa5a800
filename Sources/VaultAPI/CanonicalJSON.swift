import Foundation

/// The one encoding both sides hash: sorted keys, no escaped slashes, no whitespace.
public enum CanonicalJSON {
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// What a question's `hash` covers: the served question without its own hash.
    /// A student's own order hashes as the author's (`Question.inAuthorOrder`).
    public static func questionBytes(_ question: Question) throws -> Data {
        var copy = question.inAuthorOrder
        copy.hash = nil
        copy.body = copy.body.unkeyed
        copy.processing = nil
        return try encode(copy)
    }

    /// What `content_hash` covers: the served document (version and question hashes set) without `content_hash`.
    public static func contentBytes(_ assessment: Assessment) throws -> Data {
        var copy = assessment.served
        copy.contentHash = nil
        return try encode(copy)
    }
}

extension CanonicalJSON {
    /// The canonical text of an answer, the same bytes as `encode(value)`: written directly for strings, whole
    /// numbers, booleans, null and arrays of them (the forms answers take, one per item of every batch); anything
    /// else (an object, a fraction, a string that needs escaping) goes through `encode`, which stays the definition.
    public static func text(_ value: JSONValue) throws -> String {
        var bytes: [UInt8] = []
        try append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A batch's results, the same bytes as `encode(response)`.
    public static func encode(results response: BatchResponse) throws -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(response.results.count * 48 + 16)
        bytes += #"{"results":["#.utf8
        for (index, result) in response.results.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            // Keys in sorted order, absent optionals left out, as JSONEncoder writes them.
            bytes += "{".utf8
            if let version = result.currentVersion { bytes += #""current_version":\#(version),"#.utf8 }
            bytes += #""id":"#.utf8
            try appendString(result.id, to: &bytes)
            if let message = result.message {
                bytes += #","message":"#.utf8
                try appendString(message, to: &bytes)
            }
            bytes += #","status":""#.utf8
            bytes += result.status.rawValue.utf8
            bytes += #""}"#.utf8
        }
        bytes += "]}".utf8
        return Data(bytes)
    }

    static func append(_ value: JSONValue, to bytes: inout [UInt8]) throws {
        switch value {
        case .null: bytes += "null".utf8
        case .bool(let flag): bytes += (flag ? "true" : "false").utf8
        case .string(let text): try appendString(text, to: &bytes)
        case .number(let number) where number.rounded() == number && abs(number) < 1e15:
            bytes += String(Int64(number)).utf8  // numbers-check: whole and below 1e15, checked just above
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try append(element, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .number, .object: bytes += try encode(value)
        }
    }

    /// A string as JSON: as it is when nothing in it needs escaping (no control character, quote or backslash;
    /// slashes and non-ASCII text are written as they are), else through `encode`.
    static func appendString(_ text: String, to bytes: inout [UInt8]) throws {
        let plain = text.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        guard plain else {
            bytes += try encode(text)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        bytes += text.utf8
        bytes.append(UInt8(ascii: "\""))
    }
}

/// One answer on its way up as the vault keeps it: the item, and its answer as the vault stored it (canonical JSON
/// text), which the batch carries as it is: read once on the way out to prove it is JSON, never encoded again.
public struct OutgoingResponse: Sendable, Equatable {
    public var item: ResponseItem
    /// The answer's canonical JSON text, as stored (`CanonicalJSON.text(item.answer)`).
    public var answerText: String

    public init(item: ResponseItem, answerText: String) {
        self.item = item
        self.answerText = answerText
    }

    /// An item made here rather than read from a vault: its answer's canonical text.
    public init(_ item: ResponseItem) throws { self.init(item: item, answerText: try CanonicalJSON.text(item.answer)) }
}

extension CanonicalJSON {
    /// A batch of answers, the same bytes as `encode(BatchRequest(responses:device:))`, with each answer's stored
    /// canonical text written as it is (`WireFastPathTests` compares the two).
    public static func encode(batch responses: [OutgoingResponse], device: String?, deviceKey: String? = nil) throws -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(responses.reduce(0) { $0 + $1.answerText.utf8.count } + responses.count * 320 + 64)
        // Keys in sorted order, absent optionals left out, as JSONEncoder writes them.
        bytes += "{".utf8
        if let device {
            bytes += #""device":"#.utf8
            try appendString(device, to: &bytes)
            bytes += ",".utf8
        }
        if let deviceKey {
            bytes += #""device_key":"#.utf8
            try appendString(deviceKey, to: &bytes)
            bytes += ",".utf8
        }
        bytes += #""responses":["#.utf8
        for (index, response) in responses.enumerated() {
            let item = response.item
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += #"{"answer":"#.utf8
            bytes += response.answerText.utf8
            bytes += #","answered_at":"#.utf8
            try appendString(item.answeredAt, to: &bytes)
            bytes += #","assessment_id":"#.utf8
            try appendString(item.assessmentId, to: &bytes)
            bytes += #","assessment_version":\#(item.assessmentVersion),"attempt_id":"#.utf8
            try appendString(item.attemptId, to: &bytes)
            if let started = item.attemptStartedAt {
                bytes += #","attempt_started_at":"#.utf8
                try appendString(started, to: &bytes)
            }
            bytes += (item.force ? #","force":true,"id":"# : #","force":false,"id":"#).utf8
            try appendString(item.id, to: &bytes)
            bytes += #","question_hash":"#.utf8
            try appendString(item.questionHash, to: &bytes)
            bytes += #","question_id":"#.utf8
            try appendString(item.questionId, to: &bytes)
            if let signature = item.signature {
                bytes += #","signature":"#.utf8
                try appendString(signature, to: &bytes)
            }
            bytes += #","time_spent_ms":\#(item.timeSpentMs)}"#.utf8
        }
        bytes += "]}".utf8
        return Data(bytes)
    }
}

extension CanonicalJSON {
    /// Whether `bytes` hold `fragment` (its UTF-8) anywhere: the cheap look at served bytes before any decoding
    /// (`"sealed":true`, `"time_limit_seconds":`). `memchr` for the first byte, then `memcmp`: Foundation's generic
    /// `Data.firstRange(of:)` walks an index at a time and took 0.7 s per look at an 8 MB document of pictures.
    public static func mentions(_ fragment: String, in bytes: Data) -> Bool {
        let needle = Array(fragment.utf8)
        guard let first = needle.first, bytes.count >= needle.count else { return needle.isEmpty }
        return bytes.withUnsafeBytes { (haystack: UnsafeRawBufferPointer) -> Bool in
            guard let base = haystack.baseAddress else { return false }
            let last = haystack.count - needle.count
            var start = 0
            while start <= last {
                guard let found = memchr(base + start, Int32(first), last - start + 1) else { return false }
                if memcmp(found, needle, needle.count) == 0 { return true }
                start = base.distance(to: UnsafeRawPointer(found)) + 1
            }
            return false
        }
    }
}

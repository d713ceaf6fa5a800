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

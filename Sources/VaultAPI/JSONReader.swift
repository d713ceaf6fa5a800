import Foundation

/// A strict reader for the one body the server reads thousands of times a second: `BatchRequest`.
///
/// It decides nothing on its own. It returns the value `JSONDecoder` would return, or nil whenever the body holds
/// anything it does not handle the same way for certain (a malformed body, a missing or duplicated field, a number
/// that is not a plain integer where an integer belongs, an invalid UTF-8 sequence or escape); the caller then runs
/// `JSONDecoder`, which stays the one place that explains what is wrong with a body. The fuzz target
/// `batch_request` and `WireFastPathTests` check that whenever this returns a value, `JSONDecoder` returns the same.
public struct JSONReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// `BatchRequest` from `data`, or nil: then decode with `JSONDecoder`.
    public static func batchRequest(_ data: Data) -> BatchRequest? {
        data.withUnsafeBytes { raw in
            var reader = JSONReader(raw.bindMemory(to: UInt8.self))
            guard let batch = reader.batchRequest() else { return nil }
            reader.skipWhitespace()
            return reader.index == reader.bytes.count ? batch : nil
        }
    }

    /// A stored answer (canonical JSON text): the fast reader, else `JSONDecoder`; nil when neither reads it.
    public static func storedAnswer(_ text: String) -> JSONValue? {
        value(text) ?? (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    /// Any one JSON value (a stored answer), as `JSONDecoder` decodes `JSONValue`, or nil: then decode with
    /// `JSONDecoder`.
    public static func value(_ text: String) -> JSONValue? {
        var text = text
        return text.withUTF8 { buffer in
            var reader = JSONReader(buffer)
            guard let value = reader.value() else { return nil }
            reader.skipWhitespace()
            return reader.index == reader.bytes.count ? value : nil
        }
    }

    // MARK: The batch

    private mutating func batchRequest() -> BatchRequest? {
        var responses: [ResponseItem]?
        var device: String?
        var deviceKey: String?
        guard consume(UInt8(ascii: "{")) else { return nil }
        if !consume(UInt8(ascii: "}")) {
            repeat {
                guard let key = key() else { return nil }
                if Self.matches(key, "responses") {
                    guard responses == nil, let items = array({ $0.responseItem() }) else { return nil }
                    responses = items
                } else if Self.matches(key, "device") {
                    guard device == nil else { return nil }
                    if null() { continue }
                    guard let text = string() else { return nil }
                    device = text
                } else if Self.matches(key, "device_key") {
                    guard deviceKey == nil else { return nil }
                    if null() { continue }
                    guard let text = string() else { return nil }
                    deviceKey = text
                } else {
                    guard skipValue() else { return nil }
                }
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "}")) else { return nil }
        }
        return responses.map { BatchRequest(responses: $0, device: device, deviceKey: deviceKey) }
    }

    /// The fields of a `ResponseItem`: its own `CodingKeys`, so the names are never written twice.
    private typealias Field = ResponseItem.CodingKeys

    /// Each field's wire name as bytes and its bit in the "seen" mask, made once.
    private static let fields: [(field: Field, name: [UInt8])] = Field.allCases.map { ($0, Array($0.stringValue.utf8)) }

    private static func field(_ key: Slice<UnsafeBufferPointer<UInt8>>) -> (field: Field, bit: Int)? {
        for (bit, entry) in fields.enumerated() where entry.name.count == key.count && zip(entry.name, key).allSatisfy({ $0 == $1 }) {
            return (entry.field, 1 << bit)
        }
        return nil
    }

    /// One item. Every known field at most once: with a key twice JSONDecoder's choice would have to be copied, so
    /// it decides. `time_spent_ms` and `force` may be null, as `decodeIfPresent` allows.
    private mutating func responseItem() -> ResponseItem? {
        var id: String?
        var attemptID: String?
        var assessmentID: String?
        var version: Int?
        var questionID: String?
        var questionHash: String?
        var answer: JSONValue?
        var timeSpent: Int?
        var answeredAt: String?
        var force: Bool?
        var attemptStartedAt: String?
        var signature: String?
        var seen = 0
        guard consume(UInt8(ascii: "{")) else { return nil }
        if !consume(UInt8(ascii: "}")) {
            repeat {
                guard let key = key() else { return nil }
                guard let (field, bit) = Self.field(key) else {
                    guard skipValue() else { return nil }
                    continue
                }
                guard seen & bit == 0 else { return nil }
                seen |= bit
                let read: Bool
                switch field {
                case .id: read = Self.set(&id, string())
                case .attemptId: read = Self.set(&attemptID, string())
                case .assessmentId: read = Self.set(&assessmentID, string())
                case .assessmentVersion: read = Self.set(&version, integer())
                case .questionId: read = Self.set(&questionID, string())
                case .questionHash: read = Self.set(&questionHash, string())
                case .answer: read = Self.set(&answer, value())
                case .timeSpentMs: read = null() || Self.set(&timeSpent, integer())
                case .answeredAt: read = Self.set(&answeredAt, string())
                case .force: read = null() || Self.set(&force, boolean())
                case .attemptStartedAt: read = null() || Self.set(&attemptStartedAt, string())
                case .signature: read = null() || Self.set(&signature, string())
                }
                guard read else { return nil }
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "}")) else { return nil }
        }
        guard let id, let attemptID, let assessmentID, let version, let questionID, let questionHash, let answer, let answeredAt
        else { return nil }
        return ResponseItem(
            id: id,
            attemptId: attemptID,
            assessmentId: assessmentID,
            assessmentVersion: version,
            questionId: questionID,
            questionHash: questionHash,
            answer: answer,
            timeSpentMs: timeSpent ?? 0,
            answeredAt: answeredAt,
            force: force ?? false,
            attemptStartedAt: attemptStartedAt,
            signature: signature
        )
    }

    /// Stores a value that was read; false when it could not be.
    private static func set<T>(_ slot: inout T?, _ value: T?) -> Bool {
        slot = value
        return value != nil
    }

    /// A member's key in plain ASCII without escapes, then its colon; nil for anything else (a key with an escape
    /// or beyond ASCII is rare enough to leave to JSONDecoder, which also judges its UTF-8).
    private mutating func key() -> Slice<UnsafeBufferPointer<UInt8>>? {
        skipWhitespace()
        guard current == Self.quote else { return nil }
        let start = index + 1
        var position = start
        while position < bytes.count, bytes[position] != Self.quote {
            guard bytes[position] != Self.backslash, (0x20..<0x80).contains(bytes[position]) else { return nil }
            position += 1
        }
        guard position < bytes.count else { return nil }
        index = position + 1
        guard consume(UInt8(ascii: ":")) else { return nil }
        skipWhitespace()
        return bytes[start..<position]
    }

    private static func matches(_ key: Slice<UnsafeBufferPointer<UInt8>>, _ name: StaticString) -> Bool {
        guard key.count == name.utf8CodeUnitCount else { return false }
        var offset = 0
        for byte in key {
            guard byte == name.utf8Start[offset] else { return false }
            offset += 1
        }
        return true
    }

    // MARK: JSON

    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard current == byte else { return false }
        index += 1
        return true
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
        index += count
        return true
    }

    private mutating func array<T>(_ element: (inout JSONReader) -> T?) -> [T]? {
        guard consume(UInt8(ascii: "[")) else { return nil }
        var elements: [T] = []
        if consume(UInt8(ascii: "]")) { return elements }
        repeat {
            skipWhitespace()
            guard let value = element(&self) else { return nil }
            elements.append(value)
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "]")) ? elements : nil
    }

    private mutating func null() -> Bool { current == UInt8(ascii: "n") && literal("null") }

    private mutating func boolean() -> Bool? {
        if current == UInt8(ascii: "t") { return literal("true") ? true : nil }
        if current == UInt8(ascii: "f") { return literal("false") ? false : nil }
        return nil
    }

    /// A plain integer (`-?(0|[1-9][0-9]*)`, at most 18 digits): the only form read here; anything else goes to
    /// `JSONDecoder`.
    private mutating func integer() -> Int? {
        var position = index
        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let digitsStart = position
        var value = 0
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            // Past 18 digits it is JSONDecoder's to judge; stopping here also keeps `value` from overflowing (the
            // fuzz target found a hostile body of 40 digits that trapped).
            guard position - digitsStart < 18 else { return nil }
            value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
            position += 1
        }
        let digits = position - digitsStart
        guard (1...18).contains(digits), digits == 1 || bytes[digitsStart] != UInt8(ascii: "0") else { return nil }
        if position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        index = position
        return negative ? -value : value
    }

    /// A JSON number as `Double`, in JSON's grammar and finite.
    private mutating func number() -> Double? {
        let start = index
        var position = index
        func digits() -> Int {
            let begin = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position - begin
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { return nil }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { return nil }
        }
        guard position - start <= 64, let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)),
            value.isFinite
        else { return nil }
        index = position
        return value
    }

    /// A string, unescaped; nil for a raw control character, a bad escape, a lone surrogate or invalid UTF-8.
    private mutating func string() -> String? {
        guard current == Self.quote else { return nil }
        let start = index + 1
        var position = start
        while position < bytes.count {
            let byte = bytes[position]
            if byte == Self.quote {
                index = position + 1
                return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            }
            if byte == Self.backslash { break }
            guard byte >= 0x20 else { return nil }
            position += 1
        }
        // Escapes: the slow way from the first one on.
        var scalars = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case Self.quote:
                index = position
                return String(validating: scalars, as: UTF8.self)
            case Self.backslash:
                guard position < bytes.count else { return nil }
                let escape = bytes[position]
                position += 1
                switch escape {
                case Self.quote, Self.backslash, UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    guard let unit = hex4(at: &position) else { return nil }
                    var scalar: Unicode.Scalar?
                    if (0xD800...0xDBFF).contains(unit) {
                        guard position + 1 < bytes.count, bytes[position] == Self.backslash, bytes[position + 1] == UInt8(ascii: "u")
                        else { return nil }
                        position += 2
                        guard let low = hex4(at: &position), (0xDC00...0xDFFF).contains(low) else { return nil }
                        scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
                    } else {
                        scalar = Unicode.Scalar(unit)
                    }
                    guard let scalar else { return nil }
                    UTF8.encode(scalar) { scalars.append($0) }
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                scalars.append(byte)
            }
        }
        return nil
    }

    private func hex4(at position: inout Int) -> UInt16? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    /// Any value, as `JSONValue` decodes it.
    private mutating func value(depth: Int = 0) -> JSONValue? {
        guard depth < 32, let byte = current else { return nil }
        switch byte {
        case Self.quote: return string().map(JSONValue.string)
        case UInt8(ascii: "n"): return null() ? .null : nil
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return boolean().map(JSONValue.bool)
        case UInt8(ascii: "["): return array { $0.value(depth: depth + 1) }.map(JSONValue.array)
        case UInt8(ascii: "{"):
            index += 1
            var members: [String: JSONValue] = [:]
            if consume(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                skipWhitespace()
                guard let key = string(), members[key] == nil, consume(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                guard let value = value(depth: depth + 1) else { return nil }
                members[key] = value
            } while consume(UInt8(ascii: ","))
            return consume(UInt8(ascii: "}")) ? .object(members) : nil
        default: return number().map(JSONValue.number)
        }
    }

    /// Passes over a value of a field nobody reads, checking it is well formed.
    private mutating func skipValue() -> Bool { value() != nil }
}

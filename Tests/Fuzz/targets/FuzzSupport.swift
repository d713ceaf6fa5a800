import Foundation

// Shared by every libFuzzer target (compiled into each; see scripts/fuzz). A property that does not hold stops
// the run with the message; libFuzzer then saves the input as a crash artifact.

func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        FileHandle.standardError.write(Data("property failed: \(message())\n".utf8))
        abort()
    }
}

/// Sorted keys, so that "re-encodes to the same JSON" compares bytes.
func canonicalEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
}

/// A decoded reply must re-encode to JSON that decodes to the same value and encodes to the same bytes again.
func requireStableRoundTrip<T: Codable & Equatable>(_ type: T.Type, _ data: Data) {
    guard let value = try? JSONDecoder().decode(T.self, from: data) else { return }
    let encoder = canonicalEncoder()
    guard let first = try? encoder.encode(value) else {
        require(false, "\(T.self) decoded but does not encode")
        return
    }
    guard let again = try? JSONDecoder().decode(T.self, from: first) else {
        require(false, "\(T.self) re-encoded to JSON it cannot decode: \(String(decoding: first, as: UTF8.self))")
        return
    }
    require(again == value, "\(T.self) changed in a round trip")
    require((try? encoder.encode(again)) == first, "\(T.self) re-encodes to different bytes")
}

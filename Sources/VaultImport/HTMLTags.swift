import Foundation

/// The tags of a teacher's HTML fragment, found in one left-to-right pass: time linear in the text whatever it holds
/// (a backtracking pattern such as `<[^>]+>` over 40,000 `<` with no `>` took seconds and grew with the square of the
/// input). Tags are only found and named, never interpreted: what they become is the caller's choice.
struct HTMLTags {
    enum Piece {
        case text(Substring)
        case tag(Tag)
    }

    /// What stands between `<` and `>`: its lower-case name and whether it closes (`</p>`).
    struct Tag {
        let source: Substring
        let name: String
        let closing: Bool

        init(_ source: Substring) {
            self.source = source
            var rest = source.drop { $0 == " " }
            closing = rest.first == "/"
            if closing { rest = rest.dropFirst() }
            name = String(rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber) }).lowercased()
        }

        /// The value of one attribute (`alt="..."` or `alt='...'`, any case), or nil. Each occurrence of the name is
        /// looked at once, so this too is linear in the tag.
        func attribute(_ attribute: String) -> String? {
            let bytes = Array(source.utf8)
            let key = Array(attribute.lowercased().utf8)
            func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 32 : byte }
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
            var index = 0
            while index + key.count <= bytes.count {
                let boundary = index == 0 || isSpace(bytes[index - 1])
                if boundary, (0..<key.count).allSatisfy({ lower(bytes[index + $0]) == key[$0] }) {
                    var cursor = index + key.count
                    while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
                    if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") {
                        cursor += 1
                        while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
                        if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'") {
                            let quote = bytes[cursor]
                            guard let end = bytes[(cursor + 1)...].firstIndex(of: quote) else { return nil }
                            return String(decoding: bytes[(cursor + 1)..<end], as: UTF8.self)
                        }
                    }
                    index = cursor
                } else {
                    index += 1
                }
            }
            return nil
        }
    }

    /// The text and tags of `html` in order. A `<` with no `>` after it, or `<>`, is text.
    static func pieces(_ html: String) -> [Piece] {
        var pieces: [Piece] = []
        var index = html.startIndex
        while index < html.endIndex {
            guard let open = html[index...].firstIndex(of: "<") else {
                pieces.append(.text(html[index...]))
                break
            }
            let inside = html.index(after: open)
            // No `>` after this `<`: none after any later `<` either, so the rest is text (the pass stays linear).
            guard let close = html[inside...].firstIndex(of: ">") else {
                pieces.append(.text(html[index...]))
                break
            }
            if close == inside {
                pieces.append(.text(html[index..<close]))
                index = close
                continue
            }
            if open > index { pieces.append(.text(html[index..<open])) }
            pieces.append(.tag(Tag(html[inside..<close])))
            index = html.index(after: close)
        }
        return pieces
    }
}

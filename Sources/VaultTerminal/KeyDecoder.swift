/// The bytes a terminal sends, as keys: UTF-8 text (a character split across reads is kept until it is whole),
/// control keys, and the escape sequences of xterm and the Linux console for the arrows, Home, End and Delete. A
/// value fed as bytes arrive. Pasted text arrives as its characters (a pasted newline is Enter) between the
/// bracketed-paste markers (`.paste`); focus reports are `.focus`; function keys and unknown sequences are dropped,
/// never inserted as text.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    /// The keys `bytes` complete; an unfinished sequence or character waits for the next bytes.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [LineEditor.Key] {
        pending.append(contentsOf: bytes)
        var keys: [LineEditor.Key] = []
        var index = 0
        while index < pending.count {
            guard let (key, length) = Self.decode(pending, at: index) else { break }
            if let key { keys.append(key) }
            index += length
        }
        pending.removeFirst(index)
        // A sequence that never ends (hostile or broken input) is not kept for ever.
        if pending.count > 64 { pending.removeAll() }
        return keys
    }

    /// The key at `index` and the bytes it takes; nil when more bytes are needed. A nil key is read and dropped.
    static func decode(_ bytes: [UInt8], at index: Int) -> (LineEditor.Key?, Int)? {
        let byte = bytes[index]
        switch byte {
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x01: return (.home, 1)  // Ctrl-A
        case 0x05: return (.end, 1)  // Ctrl-E
        case 0x02: return (.left, 1)  // Ctrl-B
        case 0x06: return (.right, 1)  // Ctrl-F
        case 0x04: return (.endOfInput, 1)  // Ctrl-D
        case 0x0B: return (.deleteToEnd, 1)  // Ctrl-K
        case 0x15: return (.deleteToStart, 1)  // Ctrl-U
        case 0x17: return (.deleteWord, 1)  // Ctrl-W
        case 0x09: return (.character(" "), 1)  // a tab: one space, so widths stay what the screen shows
        case 0x1B: return escape(bytes, at: index)
        case 0x00..<0x20: return (nil, 1)
        default: return character(bytes, at: index)
        }
    }

    /// ESC [ ... final, ESC O x, or ESC followed by a key (Alt-b and Alt-f move by words; others are dropped).
    private static func escape(_ bytes: [UInt8], at index: Int) -> (LineEditor.Key?, Int)? {
        guard index + 1 < bytes.count else { return nil }
        let next = bytes[index + 1]
        switch next {
        case UInt8(ascii: "["):
            // Parameters and intermediates (0x20-0x3F), then a final byte (0x40-0x7E).
            var cursor = index + 2
            while cursor < bytes.count, (0x20...0x3F).contains(bytes[cursor]) { cursor += 1 }
            guard cursor < bytes.count else { return nil }
            let parameters = String(decoding: bytes[(index + 2)..<cursor], as: UTF8.self)
            return (csi(parameters, final: bytes[cursor]), cursor - index + 1)
        case UInt8(ascii: "O"):
            guard index + 2 < bytes.count else { return nil }
            let key: LineEditor.Key? =
                switch bytes[index + 2] {
                case UInt8(ascii: "C"): .right
                case UInt8(ascii: "D"): .left
                case UInt8(ascii: "H"): .home
                case UInt8(ascii: "F"): .end
                default: nil
                }
            return (key, 3)
        case UInt8(ascii: "b"): return (.wordLeft, 2)
        case UInt8(ascii: "f"): return (.wordRight, 2)
        case 0x7F: return (.deleteWord, 2)  // Alt-Backspace
        default: return (nil, 2)
        }
    }

    private static func csi(_ parameters: String, final: UInt8) -> LineEditor.Key? {
        let modified = parameters.hasSuffix(";5") || parameters.hasSuffix(";3")  // Ctrl or Alt with an arrow
        switch final {
        case UInt8(ascii: "C"): return modified ? .wordRight : .right
        case UInt8(ascii: "D"): return modified ? .wordLeft : .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch parameters {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            case "200": return .paste(true)
            case "201": return .paste(false)
            default: return nil  // Insert, Page Up/Down, F5-F12
            }
        case UInt8(ascii: "I") where parameters.isEmpty: return .focus(true)
        case UInt8(ascii: "O") where parameters.isEmpty: return .focus(false)
        default: return nil  // up and down (no history here), anything else
        }
    }

    /// One UTF-8 character; an invalid byte is dropped. Combining marks join the character before them in
    /// `LineEditor` (Swift's `Character` is a grapheme), so each scalar is its own key here.
    private static func character(_ bytes: [UInt8], at index: Int) -> (LineEditor.Key?, Int)? {
        let byte = bytes[index]
        let length =
            switch byte {
            case 0x20..<0x80: 1
            case 0xC2..<0xE0: 2
            case 0xE0..<0xF0: 3
            case 0xF0..<0xF5: 4
            default: 0
            }
        guard length > 0 else { return (nil, 1) }
        guard index + length <= bytes.count else { return nil }
        let slice = bytes[index..<(index + length)]
        guard slice.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }),
            let scalar = String(validating: slice, as: UTF8.self)?.unicodeScalars.first,
            !(0x80...0x9F).contains(scalar.value)
        else { return (nil, 1) }
        return (.character(Character(scalar)), length)
    }
}

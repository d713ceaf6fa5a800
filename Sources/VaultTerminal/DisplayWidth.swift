import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Columns a string takes in a terminal: wide (CJK, emoji) characters take two, combining marks and format
/// characters (the bidi marks of right-to-left text) none. `String.count` would misalign Farsi and CJK titles.
public enum DisplayWidth {
    /// The columns of `text`; the colour and weight sequences a program adds (`ESC [ ... m`) take none.
    public static func of(_ text: String) -> Int {
        var width = 0
        var inStyle = false
        var previous: Character = " "
        for character in text {
            if inStyle, character == "m" || character == ";" || character.isASCII && character.isNumber {
                if character == "m" { inStyle = false }
            } else if character == "[", previous == "\u{1B}" {
                inStyle = true
            } else {
                inStyle = false
                width += of(character)
            }
            previous = character
        }
        return width
    }

    public static func of(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        let properties = scalar.properties
        if properties.generalCategory == .format || properties.generalCategory == .nonspacingMark
            || properties.generalCategory == .enclosingMark || properties.generalCategory == .control
        {
            return 0
        }
        if properties.isEmojiPresentation || character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// `text` cut to at most `width` columns, with an ellipsis when cut.
    public static func truncated(_ text: String, to width: Int) -> String {
        guard of(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let next = of(character)
            if used + next > width - 1 { break }
            result.append(character)
            used += next
        }
        return result + "…"
    }

    /// `text` broken into lines of at most `width` columns at spaces (a word longer than a line is cut), each
    /// paragraph (`\n`) on lines of its own. The one wrapping rule of the CLI: screens, help and messages.
    public static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(width, 10)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var used = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                var word = String(word)
                var size = of(word)
                if used > 0, used + 1 + size > width {
                    lines.append(line)
                    line = ""
                    used = 0
                }
                while size > width {
                    // A word wider than the line: cut it where the columns run out.
                    var head = ""
                    var headSize = 0
                    for character in word where headSize + of(character) <= width {
                        head.append(character)
                        headSize += of(character)
                    }
                    lines.append(head)
                    word = String(word.dropFirst(head.count))
                    size = of(word)
                }
                line += (used > 0 ? " " : "") + word
                used += (used > 0 ? 1 : 0) + size
            }
            lines.append(line)
        }
        return lines
    }

    /// Output for a terminal `width` columns wide: each paragraph that fits is kept exactly as it is (tables keep
    /// their alignment); a longer one is broken at spaces, its continuation lines indented like its first. The one
    /// rule every command's human output follows, so no word is cut by the terminal and no line passes the width.
    public static func fitted(_ text: String, width: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { paragraph -> String in
            let line = String(paragraph)
            guard of(line) > width else { return line }
            let indent = String(line.prefix { $0 == " " })
            let room = max(width - indent.count, 10)
            return wrap(String(line.dropFirst(indent.count)), width: room).map { indent + $0 }.joined(separator: "\n")
        }
        .joined(separator: "\n")
    }

    /// `wrap` joined with newlines.
    public static func wrapped(_ text: String, width: Int) -> String { wrap(text, width: width).joined(separator: "\n") }

    /// The terminal's width in columns: the terminal's own size; when standard output is not a terminal, `COLUMNS`
    /// when it is set (as shells and `man` do), else 80. Less than 20 is read as 20.
    public static var terminalColumns: Int { columns(of: STDOUT_FILENO) }

    /// The width of the terminal on `descriptor` (standard error for messages), by the same rule.
    public static func columns(of descriptor: Int32) -> Int {
        var size = winsize()
        if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return max(Int(size.ws_col), 20) }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return max(columns, 20) }
        return 80
    }

    /// The terminal's height in rows (24 when it is not a terminal).
    public static var terminalRows: Int {
        var size = winsize()
        return ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_row > 0 ? Int(size.ws_row) : 24
    }
}

import Foundation

/// Text from outside (a student's essay, a teacher's title, an imported file's names, a server's message) made safe
/// for a terminal: it can never set the window title, clear the screen, move the cursor or write the clipboard.
/// Every C0 control but newline and tab is shown in caret notation (ESC as `^[`, CR as `^M`), DEL as `^?`, and a C1
/// control (U+0080 to U+009F, which some terminals obey like ESC sequences) as `<U+009B>`. So are the invisible
/// characters that make text read other than it is: bidi embeddings and overrides (U+202A to U+202E, which reorder
/// what follows them on the line), the zero-width space, the word joiner and invisible operators (U+2060 to U+2064),
/// the deprecated format characters (U+206A to U+206F) and a byte-order mark inside text (U+FEFF): `<U+202E>`.
/// Newlines and tabs an essay has are kept, and so are the marks real text needs: isolates (U+2066 to U+2069, which
/// this program also writes around right-to-left cells), LRM, RLM and ALM, ZWNJ (Persian spelling) and ZWJ (emoji).
/// Stored data is never changed: this is for display only, and `--json` output (escaped by JSON) never goes through it.
public enum TerminalText {
    /// `text` with every control shown visibly.
    public static func visible(_ text: String) -> String {
        guard needsWork(text) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { append(scalar, to: &result) }
        return String(result)
    }

    /// Like `visible`, but the colour and weight sequences this program adds itself (`ESC [ 0 m`, `1`, `2`, `22`,
    /// `31`, `32`, `33`, `39` and `7`, `27`) stay, so a line styled by the program keeps its style. They only change
    /// how text looks, so the same sequences inside hostile text do no harm.
    public static func visible(keepingStyles text: String) -> String {
        guard needsWork(text) else { return text }
        var result = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            if scalars[index] == "\u{1B}", let length = styleLength(scalars, at: index) {
                result.append(contentsOf: scalars[index..<(index + length)])
                index += length
                continue
            }
            append(scalars[index], to: &result)
            index += 1
        }
        return String(result)
    }

    /// Prints a line of human output, with controls shown visibly and the program's own styles kept: the one way
    /// `vault-server`'s commands write to the terminal.
    public static func line(_ text: String = "", terminator: String = "\n") {
        print(DisplayWidth.fitted(visible(keepingStyles: text), width: DisplayWidth.terminalColumns), terminator: terminator)
    }

    /// Writes a line to standard error, controls shown visibly.
    public static func errorLine(_ text: String) {
        let fitted = DisplayWidth.fitted(visible(keepingStyles: text), width: DisplayWidth.columns(of: STDERR_FILENO))
        FileHandle.standardError.write(Data((fitted + "\n").utf8))
    }

    static let styles: Set<String> = ["0", "1", "2", "22", "31", "32", "33", "39", "7", "27"]

    private static func needsWork(_ text: String) -> Bool {
        text.unicodeScalars.contains { isControl($0) }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 { return value != 0x0A && value != 0x09 }
        if value < 0x7F { return false }
        return value == 0x7F || (0x80...0x9F).contains(value) || isDeceptive(value)
    }

    /// Invisible characters that change how a line reads (see the type's comment).
    private static func isDeceptive(_ value: UInt32) -> Bool {
        (0x202A...0x202E).contains(value) || value == 0x200B || (0x2060...0x2064).contains(value) || (0x206A...0x206F).contains(value)
            || value == 0xFEFF
    }

    private static func append(_ scalar: Unicode.Scalar, to result: inout String.UnicodeScalarView) {
        let value = scalar.value
        guard isControl(scalar) else {
            result.append(scalar)
            return
        }
        if value == 0x7F {
            result.append(contentsOf: "^?".unicodeScalars)
        } else if value < 0x20 {
            result.append("^")
            result.append(Unicode.Scalar(UInt8(value + 0x40)))
        } else {
            result.append(contentsOf: String(format: "<U+%04X>", value).unicodeScalars)
        }
    }

    /// The length of an allowed style sequence at `index` (`ESC [ n m`), or nil.
    private static func styleLength(_ scalars: [Unicode.Scalar], at index: Int) -> Int? {
        guard index + 3 < scalars.count, scalars[index + 1] == "[" else { return nil }
        var cursor = index + 2
        var digits = ""
        while cursor < scalars.count, cursor - index < 6, ("0"..."9").contains(scalars[cursor]) {
            digits.unicodeScalars.append(scalars[cursor])
            cursor += 1
        }
        guard cursor < scalars.count, scalars[cursor] == "m", styles.contains(digits) else { return nil }
        return cursor - index + 1
    }
}

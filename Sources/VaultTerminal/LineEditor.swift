/// One line being typed, with the editing a student expects from a terminal: characters inserted at the cursor,
/// Backspace and Delete, the arrows, Home and End, Ctrl-W (the word before the cursor), Ctrl-U and Ctrl-K (to the
/// start or the end), and pasted text. A value: keys in, the line and its cursor out; `LineView` draws it.
///
/// The program reads the keys itself (the terminal in raw mode) so that the unfinished line is known to it: a take
/// screen saves it as a draft, and nothing typed is left in the terminal's input when the screen closes.
public struct LineEditor: Sendable, Equatable {
    /// A key, as `KeyDecoder` reads it from the terminal's bytes.
    public enum Key: Sendable, Equatable {
        case character(Character)
        case enter, backspace, delete, left, right, home, end, wordLeft, wordRight
        /// Ctrl-W: the word before the cursor.
        case deleteWord
        /// Ctrl-U: everything before the cursor.
        case deleteToStart
        /// Ctrl-K: everything after the cursor.
        case deleteToEnd
        /// Ctrl-D.
        case endOfInput
        /// A key with no meaning here (F1, an unknown sequence): ignored.
        case ignored
        /// The terminal says the window gained (true) or lost (false) focus (`CSI I` / `CSI O`, once `CSI ? 1004 h`
        /// asked for it). Not a key the line sees.
        case focus(Bool)
        /// Bracketed paste began (true, `CSI 200 ~`) or ended (false, `CSI 201 ~`); the pasted text arrives between
        /// them as keys. Not a key the line sees.
        case paste(Bool)
    }

    /// What a key did to the line.
    public enum Outcome: Sendable, Equatable {
        /// The line or its cursor changed: draw it again.
        case edited
        /// Nothing changed.
        case unchanged
        /// Enter: the line is finished (the editor is empty again).
        case entered(String)
        /// Ctrl-D on an empty line.
        case endOfInput
    }

    public private(set) var characters: [Character] = []
    /// Where the cursor stands, in characters from the start.
    public private(set) var cursor = 0

    public init(_ text: String = "") {
        characters = Array(text)
        cursor = characters.count
    }

    public var text: String { String(characters) }
    public var isEmpty: Bool { characters.isEmpty }

    public mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .character(let character):
            // A combining mark (or a joiner, a variation selector) belongs to the character before it.
            if cursor > 0, (String(characters[cursor - 1]) + String(character)).count == 1 {
                characters[cursor - 1] = Character(String(characters[cursor - 1]) + String(character))
            } else {
                characters.insert(character, at: cursor)
                cursor += 1
            }
        case .enter:
            let line = text
            self = LineEditor()
            return .entered(line)
        case .backspace:
            guard cursor > 0 else { return .unchanged }
            cursor -= 1
            characters.remove(at: cursor)
        case .delete:
            guard cursor < characters.count else { return .unchanged }
            characters.remove(at: cursor)
        case .left:
            guard cursor > 0 else { return .unchanged }
            cursor -= 1
        case .right:
            guard cursor < characters.count else { return .unchanged }
            cursor += 1
        case .home:
            guard cursor > 0 else { return .unchanged }
            cursor = 0
        case .end:
            guard cursor < characters.count else { return .unchanged }
            cursor = characters.count
        case .wordLeft:
            let target = wordStart(before: cursor)
            guard target != cursor else { return .unchanged }
            cursor = target
        case .wordRight:
            var target = cursor
            while target < characters.count, characters[target].isWhitespace { target += 1 }
            while target < characters.count, !characters[target].isWhitespace { target += 1 }
            guard target != cursor else { return .unchanged }
            cursor = target
        case .deleteWord:
            let start = wordStart(before: cursor)
            guard start < cursor else { return .unchanged }
            characters.removeSubrange(start..<cursor)
            cursor = start
        case .deleteToStart:
            guard cursor > 0 else { return .unchanged }
            characters.removeSubrange(0..<cursor)
            cursor = 0
        case .deleteToEnd:
            guard cursor < characters.count else { return .unchanged }
            characters.removeSubrange(cursor...)
        case .endOfInput:
            // As in a shell: Ctrl-D ends the input on an empty line, and deletes forward otherwise.
            if characters.isEmpty { return .endOfInput }
            return handle(.delete)
        case .ignored, .focus, .paste:
            return .unchanged
        }
        return .edited
    }

    /// The start of the word that ends at `position` (spaces before the cursor skipped first, as Ctrl-W does).
    private func wordStart(before position: Int) -> Int {
        var start = position
        while start > 0, characters[start - 1].isWhitespace { start -= 1 }
        while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
        return start
    }
}

/// Draws a `LineEditor`'s line after its prompt and puts the terminal's cursor where the editor's is, however many
/// rows the line has wrapped onto. It remembers the row the cursor is on (counted from the prompt's first row), so
/// the next drawing starts where this one did: up to the prompt's row, clear to the end of the screen, the prompt
/// and the line again. Widths by `DisplayWidth` (wide characters take two columns).
public struct LineView: Sendable {
    /// The text the line follows on the screen (already shown when editing began; drawn again with the line).
    public var prompt: String
    /// The cursor's row, counted from the prompt's first row.
    public private(set) var cursorRow = 0

    public init(prompt: String) {
        self.prompt = prompt
        cursorRow = Self.rowsBefore(DisplayWidth.of(prompt), columns: DisplayWidth.terminalColumns)
    }

    /// The bytes that draw `editor` in place of what was drawn before, on a terminal `columns` wide.
    public mutating func draw(_ editor: LineEditor, columns: Int) -> String {
        let columns = max(columns, 1)
        var out = cursorRow > 0 ? "\u{1B}[\(cursorRow)A" : ""
        out += "\r\u{1B}[J" + prompt + TerminalText.visible(editor.text)
        let promptWidth = DisplayWidth.of(prompt)
        let total = promptWidth + DisplayWidth.of(editor.text)
        // A line that ends exactly at the right edge leaves the cursor waiting on the last column: move it down so
        // the arithmetic below (and the next key) start on a fresh row.
        if total > 0, total % columns == 0 { out += "\r\n" }
        let endRow = total / columns
        let position = promptWidth + DisplayWidth.of(String(editor.characters[..<editor.cursor]))
        let row = position / columns
        let column = position % columns
        if endRow > row { out += "\u{1B}[\(endRow - row)A" }
        out += "\r" + (column > 0 ? "\u{1B}[\(column)C" : "")
        cursorRow = row
        return out
    }

    /// The bytes that leave the line as it stands and move to the start of the next row (Enter, or text to say).
    public mutating func finish(_ editor: LineEditor, columns: Int) -> String {
        let columns = max(columns, 1)
        let total = DisplayWidth.of(prompt) + DisplayWidth.of(editor.text)
        let endRow = total / columns
        let rowsDown = max(endRow - cursorRow, 0)
        cursorRow = 0
        // An exact fit already moved to a fresh row when it was drawn.
        let exact = total > 0 && total % columns == 0
        return (rowsDown > 0 ? "\u{1B}[\(rowsDown)B" : "") + (exact ? "\r" : "\r\n")
    }

    /// The row the cursor is on after a text of `width` columns was written from the start of a row (a text that
    /// ends exactly at the right edge leaves the cursor on its last row, waiting to wrap).
    static func rowsBefore(_ width: Int, columns: Int) -> Int { width > 0 ? (width - 1) / max(columns, 1) : 0 }
}

/// How a line being typed is put on the screen: `LineView` redraws it in place; `AppendedLine` only ever appends.
public protocol LineDrawing: Sendable {
    /// The bytes that show `editor` in place of what was shown before.
    mutating func draw(_ editor: LineEditor, columns: Int) -> String
    /// The bytes that leave the line as it stands and start the next row.
    mutating func finish(_ editor: LineEditor, columns: Int) -> String
}

extension LineView: LineDrawing {}

/// The line as a screen reader needs it: characters appended as they are typed, Backspace erasing the last one
/// the way a terminal's own echo does (`BS space BS`), and no escape sequence, no cursor movement, no line
/// rewritten. The editor's cursor stays at the end (keys that move it are not given to it in this mode).
public struct AppendedLine: LineDrawing {
    /// What the screen shows of the line now.
    private var shown: [Character] = []

    public init() {}

    public mutating func draw(_ editor: LineEditor, columns: Int) -> String {
        let next = editor.characters
        var common = 0
        while common < shown.count, common < next.count, shown[common] == next[common] { common += 1 }
        let erased = DisplayWidth.of(String(shown[common...]))
        shown = next
        return String(repeating: "\u{8} \u{8}", count: erased) + TerminalText.visible(String(next[common...]))
    }

    public mutating func finish(_ editor: LineEditor, columns: Int) -> String {
        let out = draw(editor, columns: columns) + "\n"
        shown = []
        return out
    }
}

extension LineEditor.Key {
    /// A key that only moves the cursor (left out where the line is only ever appended to).
    public var movesCursor: Bool {
        switch self {
        case .left, .right, .home, .end, .wordLeft, .wordRight: true
        default: false
        }
    }
}

import Testing
import VaultTerminal

/// The take screen's own line editing: keys from bytes, the line they make, and where it is drawn.
struct LineEditorTests {
    func type(_ bytes: [UInt8], into editor: inout LineEditor, decoder: inout KeyDecoder) -> [LineEditor.Outcome] {
        decoder.feed(bytes).map { editor.handle($0) }
    }

    @Test("arrows, Home/End, Backspace, Delete, Ctrl-W, Ctrl-U and Ctrl-K edit where the cursor is")
    func editing() {
        var editor = LineEditor()
        var decoder = KeyDecoder()
        _ = type(Array("the cat sat".utf8), into: &editor, decoder: &decoder)
        // Left three times (xterm CSI and SS3 forms), then a word typed in the middle.
        _ = type([0x1B, 0x5B, 0x44, 0x1B, 0x4F, 0x44, 0x1B, 0x5B, 0x44], into: &editor, decoder: &decoder)
        _ = type(Array("still ".utf8), into: &editor, decoder: &decoder)
        #expect(editor.text == "the cat still sat")
        // Ctrl-W removes the word before the cursor and the space after it stays.
        _ = type([0x17], into: &editor, decoder: &decoder)
        #expect(editor.text == "the cat sat")
        // Home (ESC [ 1 ~), Delete (ESC [ 3 ~) removes "t"; End (ESC [ F), Backspace twice.
        _ = type([0x1B, 0x5B, 0x31, 0x7E, 0x1B, 0x5B, 0x33, 0x7E], into: &editor, decoder: &decoder)
        #expect(editor.text == "he cat sat" && editor.cursor == 0)
        _ = type([0x1B, 0x5B, 0x46, 0x7F, 0x7F], into: &editor, decoder: &decoder)
        #expect(editor.text == "he cat s")
        // Ctrl-A then Ctrl-K empties it; Ctrl-U with the cursor at the start changes nothing.
        #expect(type([0x01, 0x0B, 0x15], into: &editor, decoder: &decoder) == [.edited, .edited, .unchanged])
        #expect(editor.isEmpty)
        // Ctrl-D on an empty line ends the input.
        #expect(type([0x04], into: &editor, decoder: &decoder) == [.endOfInput])
    }

    @Test("UTF-8 split across reads, wide characters, combining marks; Enter gives the line and empties the editor")
    func unicode() {
        var editor = LineEditor()
        var decoder = KeyDecoder()
        let bytes = Array("صباح 日本 e\u{301}".utf8)
        // Fed one byte at a time, as a slow link or a paste through a pty may deliver it.
        for byte in bytes { _ = type([byte], into: &editor, decoder: &decoder) }
        #expect(editor.text == "صباح 日本 é")
        #expect(editor.characters.count == 9, "the combining accent joins its letter: one character")
        _ = type([0x7F], into: &editor, decoder: &decoder)
        #expect(editor.text == "صباح 日本 ")
        #expect(type([0x0D], into: &editor, decoder: &decoder) == [.entered("صباح 日本 ")])
        #expect(editor.isEmpty)
    }

    @Test("controls, C1 characters, paste markers, function keys and broken bytes never become text")
    func hostileBytes() {
        var editor = LineEditor()
        var decoder = KeyDecoder()
        let bytes: [UInt8] =
            Array("\u{1B}[200~".utf8) + Array("ok".utf8) + Array("\u{1B}[201~".utf8) + [0x1B, 0x5B, 0x31, 0x35, 0x7E]  // F5
            + [0xC2, 0x9B] + [0xFF, 0xFE] + [0x07, 0x00] + Array("\u{1B}]0;title\u{07}".utf8)
        _ = type(bytes, into: &editor, decoder: &decoder)
        // The OSC's text after ESC ] is typed text (its ESC and BEL are dropped): shown, never obeyed.
        #expect(editor.text == "ok0;title")
        #expect(!editor.text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    @Test("the line is drawn after its prompt with the cursor where the editor's is, over several rows")
    func drawing() {
        var editor = LineEditor()
        for character in "abcdefghij" { _ = editor.handle(.character(character)) }
        var view = LineView(prompt: "> ")
        // 2 + 10 = 12 columns on a 5-column terminal: rows 0-2; the cursor at the end, row 2, column 2.
        let first = view.draw(editor, columns: 5)
        #expect(first == "\r\u{1B}[J> abcdefghij\r\u{1B}[2C")
        #expect(view.cursorRow == 2)
        // Home: back up two rows to the prompt's row, then column 2.
        _ = editor.handle(.home)
        let home = view.draw(editor, columns: 5)
        #expect(home == "\u{1B}[2A\r\u{1B}[J> abcdefghij\u{1B}[2A\r\u{1B}[2C")
        #expect(view.cursorRow == 0)
        // Enter: down to the last row, then a new line.
        #expect(view.finish(editor, columns: 5) == "\u{1B}[2B\r\n")
    }

    @Test("for a screen reader the line is only appended to: Backspace erases like a terminal's echo, no escape sequence ever")
    func appended() {
        var editor = LineEditor()
        var view = AppendedLine()
        var out = ""
        for key: LineEditor.Key in [.character("c"), .character("a"), .character("t"), .backspace, .character("r"), .character("本")] {
            _ = editor.handle(key)
            out += view.draw(editor, columns: 80)
        }
        #expect(out == "cat\u{8} \u{8}r本")
        // Ctrl-W: the word "car本" erased column by column (the wide character takes two).
        _ = editor.handle(.deleteWord)
        #expect(view.draw(editor, columns: 80) == String(repeating: "\u{8} \u{8}", count: 5))
        _ = editor.handle(.character("x"))
        #expect(view.finish(editor, columns: 80) == "x\n")
        #expect(!out.contains("\u{1B}"))
    }
}

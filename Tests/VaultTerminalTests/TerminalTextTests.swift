import Testing
import VaultTerminal

/// Text from outside shown visibly: nothing in an essay, a title or a server's message can drive a terminal.
struct TerminalTextTests {
    @Test(
        "window title, clear screen, clipboard, cursor and C1 controls are shown, never sent",
        arguments: [
            ("\u{1B}]0;pwned\u{07}", "^[]0;pwned^G"),
            ("\u{1B}[2J\u{1B}[H", "^[[2J^[[H"),
            ("\u{1B}]52;c;ZXZpbA==\u{07}", "^[]52;c;ZXZpbA==^G"),
            ("over\rwrite", "over^Mwrite"),
            ("bell\u{07} del\u{7F} nul\u{00}", "bell^G del^? nul^@"),
            ("\u{9B}31m C1", "<U+009B>31m C1"),
        ]
    )
    func controls(input: String, shown: String) {
        #expect(TerminalText.visible(input) == shown)
        #expect(TerminalText.visible(keepingStyles: input) == shown)
    }

    @Test("an essay's newlines and tabs, bidi isolates and marks, ZWNJ, ZWJ and every script stay as written")
    func textStays() {
        let essay = "Line one\n\tindented — محمد \u{2067}x = 3\u{2069} می\u{200C}خواهم \u{200F}ok\u{200E} 東京 👩\u{200D}💻"
        #expect(TerminalText.visible(essay) == essay)
    }

    @Test("a right-to-left override, a zero-width space and a byte-order mark inside a name are shown (issue 51)")
    func deceptiveCharactersShown() {
        #expect(TerminalText.visible("kim\u{202E}txt.exe") == "kim<U+202E>txt.exe")
        #expect(TerminalText.visible("k\u{200B}im") == "k<U+200B>im")
        #expect(TerminalText.visible("\u{FEFF}kim") == "<U+FEFF>kim")
        #expect(TerminalText.visible(keepingStyles: "\u{1B}[1m\u{202D}x\u{1B}[0m") == "\u{1B}[1m<U+202D>x\u{1B}[0m")
    }

    @Test("the program's own colours stay on a styled line; anything else in it is shown")
    func styles() {
        let styled = "\u{1B}[1mTitle\u{1B}[0m and \u{1B}[32mgreen\u{1B}[0m"
        #expect(TerminalText.visible(keepingStyles: styled) == styled)
        #expect(TerminalText.visible(styled) == "^[[1mTitle^[[0m and ^[[32mgreen^[[0m")
        #expect(TerminalText.visible(keepingStyles: "\u{1B}[1m\u{1B}[2J") == "\u{1B}[1m^[[2J")
        #expect(TerminalText.visible(keepingStyles: "\u{1B}[999m\u{1B}") == "^[[999m^[")
    }
}

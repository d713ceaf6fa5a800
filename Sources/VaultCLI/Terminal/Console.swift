import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultTerminal

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

/// Everything the CLI prints: plain text or one JSON document on stdout, messages and progress on stderr.
struct Console {
    let json: Bool
    let quiet: Bool
    let color: Bool

    init(globals: GlobalOptions, environment: [String: String] = ProcessInfo.processInfo.environment) {
        json = globals.json
        quiet = globals.quiet
        color = !globals.noColor && environment["NO_COLOR"] == nil && isatty(STDOUT_FILENO) == 1
    }

    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// A line of human output; suppressed with --json or --quiet.
    /// A line a person copies and pastes (a command, a key): never wrapped, whatever the width; still made visible.
    func pasteableLine(_ text: String) {
        guard !json, !quiet else { return }
        print(TerminalText.visible(keepingStyles: text))
    }

    /// Terminal output made here that must reach the terminal as it is (a picture drawn by libchafa): never text
    /// from a document. Suppressed with --json or --quiet.
    func drawn(_ text: String) {
        guard !json, !quiet, !text.isEmpty else { return }
        print(text, terminator: "")
    }

    func line(_ text: String = "") {
        guard !json, !quiet else { return }
        // Titles, prompts, answers and server messages in it can never drive the terminal; our own styles stay. Every
        // line fits the terminal (80 columns, or COLUMNS, when not one): broken at spaces, never mid-word.
        print(Self.fitted(TerminalText.visible(keepingStyles: text), width: DisplayWidth.terminalColumns))
    }

    /// A table, each line fitted to `width`, right to left in Arabic and Persian (`TextTable.render`).
    func table(_ table: TextTable, width: Int = DisplayWidth.terminalColumns) {
        for line in table.render(width: width, rightToLeft: Language.traits.rightToLeft) { self.line(line) }
    }

    /// A warning for the user on stderr (kept with --json, dropped with --quiet).
    func warn(_ text: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data((Self.fittedForError(tr("warning: {text}", ["text": TerminalText.visible(text)])) + "\n").utf8))
    }

    func emit<T: Encodable>(_ value: T) {
        guard json else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if let data = try? encoder.encode(value) {
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }

    func bold(_ text: String) -> String { color ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    func green(_ text: String) -> String { color ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    func yellow(_ text: String) -> String { color ? "\u{1B}[33m\(text)\u{1B}[0m" : text }
    func red(_ text: String) -> String { color ? "\u{1B}[1m\u{1B}[31m\(text)\u{1B}[0m" : text }

    /// A bar such as `[#########-----------] 45%` for storage and progress.
    static func bar(fraction: Double, width: Int = 30) -> String {
        let clamped = max(0, min(1, fraction.isFinite ? fraction : 0))
        let filled = Int(saturating: (clamped * Double(width)).rounded())
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
            + String(format: " %3.0f%%", clamped * 100)
    }

    static func bytes(_ count: Int) -> String { ByteSize.text(count) }

    /// A message for standard error, fitted to the terminal on standard error (or to COLUMNS / 80).
    static func fittedForError(_ text: String) -> String { fitted(text, width: DisplayWidth.columns(of: STDERR_FILENO)) }

    /// `text` broken at spaces to fit `width`. A sentence of a right-to-left language stays one on every line it
    /// takes: each line begins with U+200F, the continuation lines and a line begun with `vault: ` too, so a bidi
    /// terminal lays them all out right to left (each line is a paragraph of its own there).
    static func fitted(_ text: String, width: Int) -> String {
        let lines = DisplayWidth.fitted(text, width: width)
        return Language.traits.rightToLeft && text.contains("\u{200F}") ? Language.markedLines(lines) : lines
    }

    /// Reports a failure: one plain line on stderr, and with --json an error document on stdout.
    static func reportFailure(_ error: VaultError, json: Bool) {
        FileHandle.standardError.write(Data((fittedForError("vault: " + TerminalText.visible(error.message)) + "\n").utf8))
        if json {
            let document = ["error": ["code": VaultExit.name(for: error), "message": error.message]]
            if let data = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]) {
                FileHandle.standardOutput.write(data + Data("\n".utf8))
            }
        }
    }
}

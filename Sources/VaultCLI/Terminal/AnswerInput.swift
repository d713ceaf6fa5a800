import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultTake
import VaultTerminal

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

/// Where `vault answer` reads its value: standard input when it is not a terminal, else a prompt on the terminal.
/// Never the command line.
enum AnswerInput {
    /// The most a value may be (an essay of 20,000 characters is at most 80,000 bytes of UTF-8).
    static let maxBytes = 256 * 1024

    static func read(for question: Question) throws -> String {
        // Essays and fill-in-the-blanks (one line per blank) take every line.
        let isEssay =
            switch TakeSession.entry(for: question) {
            case .essay, .blanks: true
            case .oneChoice, .toggledChoices, .pairs, .line: false
            }
        if isatty(STDIN_FILENO) == 1 {
            return try prompt(for: question, multiline: isEssay)
        }
        let data = try readToEnd(STDIN_FILENO)
        guard !data.isEmpty else {
            throw VaultError(
                .usage,
                tr("No answer was given on standard input. Type it at the prompt (run the command in a terminal), or pipe it in.")
            )
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw VaultError(.invalidData, tr("The answer on standard input is not valid UTF-8 text. Nothing was saved."))
        }
        if isEssay { return trimmingOneNewline(text) }
        // One line; a Windows line end (from a file written elsewhere) is not part of the answer.
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        return String(line.hasSuffix("\r") ? line.dropLast() : line)
    }

    /// Everything up to end of input, refusing more than `maxBytes` (never cut: a cut answer is a changed answer).
    private static func readToEnd(_ descriptor: Int32) throws -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return data }
            data.append(contentsOf: chunk[0..<count])
            if data.count > maxBytes {
                throw VaultError(
                    .invalidData,
                    tr("The answer on standard input is longer than {size} KiB. Nothing was saved.", ["size": maxBytes / 1024])
                )
            }
        }
    }

    private static func prompt(for question: Question, multiline: Bool) throws -> String {
        // The letters the student saw beside the choices (`show`, the take screen), never the file's ids (issue 71).
        let letters = AnswerParser.letters.prefix(question.body.choices.count).joined(separator: ", ")
        let prompt: String
        switch question.body {
        case .singleChoice: prompt = tr("Your answer (one letter: {letters}):", ["letters": letters])
        case .multipleChoice: prompt = tr("Your answer (letters separated by commas: {letters}):", ["letters": letters])
        case .trueFalse: prompt = tr("Your answer (true or false):")
        case .numeric: prompt = tr("Your answer (a number):")
        case .shortText: prompt = tr("Your answer (one line of text):")
        case .essay: prompt = tr("Your answer (your text; end with a line holding only a dot, or Ctrl-D):")
        case .matching: prompt = tr("Your answer (pairs of a left number and a right letter, such as 1c 2a):")
        case .ordering: prompt = tr("Your answer (every item's letter once, in your order, such as c a b):")
        case .fillInBlanks: prompt = tr("Your answer (one line per blank, in order; then a line with only a dot):")
        }
        FileHandle.standardError.write(Data(TerminalText.visible(Language.marked(question.prompt) + "\n" + prompt + " ").utf8))
        var lines: [String] = []
        while let line = Swift.readLine(strippingNewline: true) {
            if !multiline { return line }
            if line == "." { break }
            lines.append(line)
        }
        guard multiline, !lines.isEmpty else {
            throw VaultError(.usage, tr("No answer was typed, so nothing was saved."))
        }
        return lines.joined(separator: "\n")
    }

    private static func trimmingOneNewline(_ text: String) -> String {
        text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}

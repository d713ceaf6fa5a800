import Foundation
import Testing
import VaultCore
import VaultTerminal
import VaultTestSupport

/// Every command's human output fits the terminal: at 80 and at 40 columns no line is wider, and no word is cut in
/// two (the terminal's own wrapping cut "teacher" into "teache / r" and "submissions" into "submission / s").
@Suite(.ownThreads)
struct OutputWidthTests {
    /// The same student story, command by command, at `columns` (COLUMNS; the output is a pipe), for `user`: each
    /// command's arguments and what it printed on both streams.
    func story(columns: Int, user: String, server: ServerProcess) throws -> [(String, String)] {
        let vault = CLIVault()
        var printed: [(String, String)] = []
        let environment = ["COLUMNS": "\(columns)"]
        func run(_ arguments: [String], input: String = "pw-1\n") throws {
            let result = try vault.run(arguments + ["--vault", vault.path], stdin: input, environment: environment)
            printed.append((arguments.joined(separator: " "), result.stdout + result.stderr))
        }
        try run(["init", "--password-stdin", "--kdf-iterations", "1000"], input: "pw-1\npw-1\n")
        try run(["login", "--server", server.url, "--user", user, "--password-stdin", "--server-password-stdin"], input: "pw-1\n\(user)-password\n")
        for arguments in [["catalog"], ["download", "--all"], ["list"], ["status"], ["storage"]] {
            try run(arguments + ["--password-stdin"])
        }
        try run(["answer", "algebra-1", "q1", "--password-stdin"], input: "pw-1\nb\n")
        try run(["answer", "algebra-1", "q6", "--password-stdin"], input: "pw-1\nThe number that multiplies x is its coefficient.\n")
        try run(["take", "algebra-1", "--password-stdin"], input: "pw-1\n?\n:r\n:q\n")
        try run(["show", "algebra-1", "--password-stdin"])
        try run(["submit", "algebra-1", "--password-stdin"])
        try run(["sync", "--password-stdin"])
        #expect(try server.admin(["grade", "algebra-1", "--attempt", attemptID(vault), "--question", "q6", "--points", "2"]).status == 0)
        #expect(try server.admin(["release", "algebra-1"]).status == 0)
        for arguments in [["sync"], ["results"], ["receipts"], ["verify"], ["dead-letters", "list"], ["config", "list"], ["unlock"], ["status"]] {
            try run(arguments + ["--password-stdin"])
        }
        try run(["lock"], input: "")
        // A usage error (ArgumentParser's message) fits too.
        try run(["lock", "--password-stdin"], input: "")
        try run(["evict", "--synced", "--password-stdin"])
        try run(["results", "--password-stdin"])
        try run(["logout", "--password-stdin"])
        return printed
    }

    func attemptID(_ vault: CLIVault) throws -> String {
        let receipts = try #require(try vault.unlocked(["receipts", "--json"]).json)
        let list = try #require(receipts["receipts"] as? [[String: Any]])
        return try #require(list.first?["attempt_id"] as? String)
    }

    /// The words of `text`.
    static func words(_ text: String) -> Set<String> { Set(text.split(whereSeparator: \.isWhitespace).map(String.init)) }

    @Test("every vault command's human output at 80 and 40 columns: no line wider, no word cut", arguments: [80, 40])
    func fits(columns: Int) throws {
        let server = try ServerProcess()
        for name in ["wide\(columns)", "narrow\(columns)"] {
            #expect(try server.admin(["user", "add", name], stdin: "\(name)-password\n").status == 0)
        }
        // The same story read wide (no wrapping at all) gives every word whole; read narrow, it must keep them so.
        let wide = try story(columns: 1000, user: "wide\(columns)", server: server)
        let narrow = try story(columns: columns, user: "narrow\(columns)", server: server)
        #expect(wide.count == narrow.count)
        let vocabulary = Self.words(wide.map(\.1).joined(separator: "\n"))
        for (command, text) in narrow {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for line in lines {
                #expect(DisplayWidth.of(line) <= columns, "`vault \(command)` at \(columns) columns: \(line)")
            }
            // A word cut in two: the end of a line and the start of the next make a word of the wide output that
            // neither part is on its own.
            for (first, second) in zip(lines, lines.dropFirst()) {
                guard let end = first.split(separator: " ").last.map(String.init), let start = second.split(separator: " ").first.map(String.init)
                else { continue }
                let joined = end + start
                let cut = vocabulary.contains(joined) && !vocabulary.contains(end) && !vocabulary.contains(start)
                #expect(!cut, "`vault \(command)` at \(columns) columns cut \"\(joined)\":\n\(text)")
            }
        }
        print("output widths at \(columns): \(narrow.count) commands, \(narrow.map(\.1).joined().split(separator: "\n").count) lines")
    }
}

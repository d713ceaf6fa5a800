import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage

/// Where a sealed exam's start code comes from, for `take`, `show`, `answer` and `unseal`: `--start-code-stdin`,
/// `$VAULT_START_CODE_FILE`, or a no-echo prompt on a terminal. The code is never stored.
struct StartCodeSource: ParsableArguments {
    @Flag(help: ArgumentHelp(tr("Read a sealed exam's start code from a line of stdin (after the vault password)."))) var startCodeStdin = false

    static let fileVariable = "VAULT_START_CODE_FILE"

    /// Whether a code can be asked for at all (otherwise a sealed exam is refused with a sentence naming `vault unseal`).
    var available: Bool {
        startCodeStdin || ProcessInfo.processInfo.environment[Self.fileVariable] != nil || isatty(STDIN_FILENO) != 0
    }

    func read(for id: String) throws -> String {
        try PasswordReader.code(
            fromStdin: startCodeStdin,
            fileVariable: Self.fileVariable,
            prompt: tr("Start code for {id}:", ["id": id]) + " ",
            flag: "--start-code-stdin"
        )
    }

    /// Unseals `id` first when it is a downloaded sealed exam and a code can be had; a wrong code stops here (77).
    func unsealIfSealed(_ vault: Vault, id: String, console: Console) throws {
        guard (try? vault.isSealed(id)) == true, available else { return }
        let document = try vault.unseal(id, startCode: try read(for: id))
        console.line(Self.openLine(document))
    }

    /// "Final exam is open: 6 questions."
    static func openLine(_ document: Assessment) -> String {
        trn("{title} is open: {n} question.", "{title} is open: {n} questions.", document.questions.count, ["title": document.title])
    }
}

extension StartCodeSource {
    /// "final-exam is sealed: opens Sat 1 Jun 09:00 or with the start code." (catalog and list, below their tables).
    static func sealedLine(id: String, opensAt: String?) -> String {
        guard let opens = opensAt.flatMap(Timestamp.date) else { return tr("{id} is sealed: it opens with the start code.", ["id": id]) }
        return tr("{id} is sealed: opens {when} or with the start code.", ["id": id, "when": PeopleDates.dayAndClock(opens)])
    }
}

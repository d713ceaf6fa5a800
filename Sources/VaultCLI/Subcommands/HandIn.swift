import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage

struct HandIn: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hand-in",
        abstract: "Write a submitted attempt to a file only the server can read, for a teacher to import when you cannot get online.",
        discussion: """
            The file is encrypted to the server key this vault pinned at login; it says nothing in plaintext but its format. \
            Give it to your teacher (a USB stick, an e-mail); `vault receipts import FILE` attaches the receipt they send back.
            """
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Argument(help: "The assessment id (its latest attempt) or an attempt id.") var id: String
    @Option(help: "Where to write the hand-in file.") var out: String

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let (file, attemptID) = try vault.handInFile(id)
        try SecureFiles.atomicWrite(file, to: out)
        context.console.line(
            tr(
                "Wrote the hand-in of {id} to {file}. Give it to your teacher; the receipt they send back goes in with `vault receipts import FILE`.",
                ["id": id, "file": out]
            )
        )
        context.console.emit(["attempt_id": attemptID, "file": out])
    }
}

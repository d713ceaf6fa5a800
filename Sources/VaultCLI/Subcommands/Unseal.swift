import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultModel
import VaultSync

struct Unseal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open a downloaded sealed exam with the start code the person running it reads out (or, online, once it has opened).",
        discussion: "The code comes from --start-code-stdin, $VAULT_START_CODE_FILE, or a prompt. It is never stored; a wrong code changes nothing."
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Argument(help: "The assessment id.") var id: String
    @OptionGroup var startCode: StartCodeSource
    @Flag(help: "Ask the server for the key instead of a code (works once the exam's opening time has passed).") var online = false

    func run() async throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        guard try vault.isSealed(id) else {
            context.console.line(tr("{id} is not sealed (or already unsealed); it is ready to take.", ["id": id]))
            return
        }
        let document: Assessment
        if online {
            let key = try await NetworkSession.with(vault: vault) { session in try await session.client.sealedKey(id) }
            guard let contentKey = Data(base64Encoded: key.contentKey) else {
                throw VaultError(.invalidData, tr("The server's key for {id} is not a key.", ["id": id]))
            }
            document = try vault.unseal(id, contentKey: contentKey)
        } else {
            document = try vault.unseal(id, startCode: try startCode.read(for: id))
        }
        var sentences = [StartCodeSource.openLine(document)]
        if let limit = document.timeLimitSeconds {
            sentences.append(tr("It is timed: {time}, from when you answer yes to its start screen.", ["time": TakeTimeText.limit(limit)]))
        }
        sentences.append(tr("`vault take {id}` to begin.", ["id": id]))
        context.console.line(sentences.joined(separator: " "))
        context.console.emit(["unsealed": id])
    }
}

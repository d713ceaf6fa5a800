import ArgumentParser
import Foundation
import Hummingbird
import Logging
import VaultAPI
import VaultCore
import VaultServer
import VaultTerminal

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete an assessment: students get 404 from now on.")
    @OptionGroup var options: DataOptions
    @Argument var id: String

    func run() async throws {
        guard try await options.storage().delete(id: id, now: Date()) else { throw ValidationError("There is no assessment \(id).") }
        TerminalText.line("Deleted \(id).")
    }
}

import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultServer
import VaultTerminal

struct ReceiptsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "receipts", abstract: "Check receipts.", subcommands: [Verify.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that a receipt file (from `vault receipts export`) was signed by this server and not changed."
        )
        @OptionGroup var options: DataOptions
        @Argument(help: "The receipt file.") var file: String

        func run() async throws {
            guard let bytes = FileManager.default.contents(atPath: file), bytes.count <= 1 << 20,
                let receipt = try? JSONDecoder().decode(SignedReceipt.self, from: bytes)
            else { throw ValidationError("\(file) is not a receipt file.") }
            let key = try await ReceiptIssuer(storage: try await options.storage()).identity().publicKey
            do {
                let statement = try key.verify(receipt)
                TerminalText.line("Valid receipt \(statement.receiptId), signed by this server (\(key.fingerprint)).")
                TerminalText.line(
                    "\(statement.user) submitted attempt \(statement.attemptId) of \(statement.assessmentId) version \(statement.assessmentVersion)"
                )
                TerminalText.line("at \(statement.submittedAt); received \(statement.receivedAt); \(statement.responses.count) answers.")
            } catch let error as ReceiptError {
                TerminalText.errorLine("Not a valid receipt of this server: \(error)")
                throw ExitCode(65)
            }
        }
    }
}

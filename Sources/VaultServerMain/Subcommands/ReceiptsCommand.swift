import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultServer

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
                print("Valid receipt \(statement.receiptId), signed by this server (\(key.fingerprint)).")
                print(
                    "\(statement.user) submitted attempt \(statement.attemptId) of \(statement.assessmentId) version \(statement.assessmentVersion)"
                )
                print("at \(statement.submittedAt); received \(statement.receivedAt); \(statement.responses.count) answers.")
            } catch let error as ReceiptError {
                FileHandle.standardError.write(Data("Not a valid receipt of this server: \(error)\n".utf8))
                throw ExitCode(65)
            }
        }
    }
}

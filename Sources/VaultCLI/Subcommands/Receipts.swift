import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultTake
import VaultTerminal

struct Receipts: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Signed receipts of what you handed in: list them, export one for a teacher, check one (offline).",
        subcommands: [List.self, Export.self, Verify.self, Import.self],
        defaultSubcommand: List.self
    )

    /// A receipt file (`receipts export`, or a teacher's import): at most 1 MiB, a signed receipt.
    static func read(_ file: String) throws -> SignedReceipt {
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? nil
        guard let size, size <= 1 << 20, let bytes = FileManager.default.contents(atPath: file),
            let receipt = try? JSONDecoder().decode(SignedReceipt.self, from: bytes)
        else { throw VaultError(.invalidData, "\(file) is not a receipt file.") }
        return receipt
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show receipts (ID: a receipt id or an assessment id).")
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources
        @Argument(help: "A receipt id or an assessment id (its latest receipt first).") var id: String?

        func run() throws {
            let context = CommandContext(globals)
            let receipts = try context.openVault(credentials).receipts(matching: id)
            var table = TextTable(["RECEIPT", "ASSESSMENT", "VERSION", "HANDED IN", "ANSWERS"], flexible: 1)
            for receipt in receipts {
                let statement = receipt.statement
                let received = Timestamp.date(statement.receivedAt).map { ReadableDate.relative($0) } ?? statement.receivedAt
                table.add([statement.receiptId, statement.assessmentId, "\(statement.assessmentVersion)", received, "\(statement.responses.count)"])
            }
            if receipts.isEmpty {
                context.console.line(
                    id.map { "No receipt for \($0) yet: it arrives with the `vault sync` that hands the attempt in." } ?? "No receipts yet."
                )
            } else {
                for line in table.render(width: .max) { context.console.line(line) }
                context.console.line(
                    "Each is signed by the server key \(receipts[0].statement.keyFingerprint); `vault receipts export ID --out FILE` writes one to show."
                )
            }
            context.console.emit(["receipts": receipts.map(\.statement)])
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a signed receipt to a file to show a teacher (it holds no answer text, only their hashes)."
        )
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources
        @Argument(help: "A receipt id or an assessment id (its latest receipt).") var id: String
        @Option(help: "Where to write.") var out: String

        func run() throws {
            let context = CommandContext(globals)
            guard let receipt = try context.openVault(credentials).receipts(matching: id).first else {
                throw VaultError(.notFound, "There is no receipt for \(id) in this vault.")
            }
            try SecureFiles.atomicWrite(Data(receipt.signed.storedText.utf8), to: out)
            context.console.line("Wrote receipt \(receipt.statement.receiptId) to \(out).")
            context.console.emit(["receipt_id": receipt.statement.receiptId, "file": out])
        }
    }

    struct Verify: ParsableCommand {
        struct Output: Encodable {
            let receipt: ReceiptStatement
            let mismatchedQuestions: [String]?
            let missingQuestions: [String]?
            enum CodingKeys: String, CodingKey {
                case receipt
                case mismatchedQuestions = "mismatched_questions"
                case missingQuestions = "missing_questions"
            }
        }

        static let configuration = CommandConfiguration(
            abstract: "Check a receipt file: signed by this vault's server, unchanged, and naming the answers this vault holds."
        )
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources
        @Argument(help: "The receipt file.") var file: String

        func run() throws {
            let context = CommandContext(globals)
            let check = try context.openVault(credentials).check(try Receipts.read(file))
            let statement = check.statement
            context.console.line("Valid receipt \(statement.receiptId), signed by the server key \(statement.keyFingerprint).")
            context.console.line(
                "\(statement.user) handed in \(statement.assessmentId) (version \(statement.assessmentVersion)) at \(statement.submittedAt) with \(Plural.count(statement.responses.count, "answer"))."
            )
            context.console.emit(
                Output(receipt: statement, mismatchedQuestions: check.mismatchedQuestions, missingQuestions: check.missingQuestions)
            )
            if check.mismatchedQuestions == nil {
                context.console.line("This vault has no such attempt, so its answers were not compared.")
            } else if check.coversEverything {
                context.console.line("It names every answer of the attempt, each the one this vault holds.")
            } else {
                var problems: [String] = []
                if let mismatched = check.mismatchedQuestions, !mismatched.isEmpty {
                    problems.append("it names other answers than this vault holds for \(mismatched.joined(separator: ", "))")
                }
                if let missing = check.missingQuestions, !missing.isEmpty {
                    problems.append("it does not name this vault's answers to \(missing.joined(separator: ", "))")
                }
                throw VaultError(
                    .invalidData,
                    "The receipt does not prove the whole hand-in: \(problems.joined(separator: "; and ")). Keep this vault and show it to your teacher."
                )
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Attach the receipt a teacher's import wrote for your hand-in file: the attempt counts as handed in, and sync sends nothing more for it."
        )
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources
        @Argument(help: "The receipt file.") var file: String

        func run() throws {
            let context = CommandContext(globals)
            let statement = try context.openVault(credentials).importReceipt(try Receipts.read(file))
            context.console.line("Receipt \(statement.receiptId) attached: \(statement.assessmentId) is handed in.")
            context.console.emit(["receipt_id": statement.receiptId, "attempt_id": statement.attemptId])
        }
    }
}

import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultModel
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
        else { throw VaultError(.invalidData, tr("{file} is not a receipt file.", ["file": file])) }
        return receipt
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show receipts (ID: a receipt id or an assessment id).")
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources
        @Argument(help: "A receipt id or an assessment id (its latest receipt first).") var id: String?

        func run() throws {
            let context = CommandContext(globals)
            let vault = try context.openVault(credentials)
            let receipts = try vault.receipts(matching: id)
            let confirmed = try vault.confirmations()
            let refused = try vault.districtRefusals()
            var table = TextTable([tr("RECEIPT"), tr("ASSESSMENT"), tr("VERSION"), tr("HANDED IN"), tr("ANSWERS")], flexible: 1)
            for receipt in receipts {
                let statement = receipt.statement
                let received = Timestamp.date(statement.receivedAt).map { ReadableDate.relative($0) } ?? statement.receivedAt
                table.add([
                    statement.receiptId, statement.assessmentId, Language.number(statement.assessmentVersion), received,
                    Language.number(statement.responses.count),
                ])
            }
            if receipts.isEmpty, receipts.damaged.isEmpty {
                context.console.line(
                    id.map { tr("No receipt for {id} yet: it arrives with the `vault sync` that hands the attempt in.", ["id": $0]) }
                        ?? tr("No receipts yet.")
                )
            } else {
                context.console.table(table, width: .max)
                context.console.line(
                    tr(
                        "Each is signed by the server key {fingerprint}; `vault receipts export ID --out FILE` writes one to show.",
                        ["fingerprint": receipts[0].statement.keyFingerprint]
                    )
                )
                for receipt in receipts {
                    guard let confirmation = confirmed[receipt.statement.attemptId] else { continue }
                    let when = Timestamp.date(confirmation.confirmedAt).map { ReadableDate.relative($0) } ?? confirmation.confirmedAt
                    context.console.line(
                        tr(
                            "{receipt}: held by classroom {classroom}, confirmed by the district ({district}) {when}.",
                            [
                                "receipt": receipt.statement.receiptId, "classroom": confirmation.classroom, "district": confirmation.district,
                                "when": when,
                            ]
                        )
                    )
                }
            }
            // Work a classroom passed on that the district refused (issue 68): said with the receipts, or alone.
            for (attempt, refusals) in refused.sorted(by: { $0.key < $1.key })
            where id == nil || receipts.values.contains(where: { $0.statement.attemptId == attempt }) {
                guard let first = refusals.first else { continue }
                context.console.line(
                    context.console.yellow(
                        tr(
                            "{assessment} (attempt {attempt}): refused by the district: {reason}",
                            ["assessment": first.assessmentID, "attempt": attempt, "reason": first.message]
                        )
                    )
                )
            }
            let listed = receipts.values.map {
                ListedReceipt(
                    statement: $0.statement,
                    confirmedByDistrict: confirmed[$0.statement.attemptId],
                    refusedByDistrict: refused[$0.statement.attemptId]
                )
            }
            try context.console.emit(Kept(values: listed, damaged: receipts.damaged), as: "receipts")
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
        @Flag(help: "For a hand-in a classroom held: write the classroom's receipt, not the district's.") var classroom = false

        func run() throws {
            let context = CommandContext(globals)
            let vault = try context.openVault(credentials)
            guard let receipt = try vault.receipts(matching: id).first else {
                throw VaultError(.notFound, tr("There is no receipt for {id} in this vault.", ["id": id]))
            }
            // A hand-in a classroom held: the district's own receipt, which anyone can check with the district's key.
            if !classroom, let district = try vault.districtReceipt(attemptID: receipt.statement.attemptId),
                let statement = try? JSONDecoder().decode(ReceiptStatement.self, from: Data(district.statement.utf8))
            {
                try SecureFiles.atomicWrite(Data(district.storedText.utf8), to: out)
                context.console.line(
                    tr(
                        "Wrote the district's receipt {id} to {file} (signed by the district key {fingerprint}).",
                        ["id": statement.receiptId, "file": out, "fingerprint": statement.keyFingerprint]
                    )
                )
                context.console.emit(["receipt_id": statement.receiptId, "file": out])
                return
            }
            try SecureFiles.atomicWrite(Data(receipt.signed.storedText.utf8), to: out)
            context.console.line(tr("Wrote receipt {id} to {file}.", ["id": receipt.statement.receiptId, "file": out]))
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
            context.console.line(
                tr(
                    "Valid receipt {id}, signed by the server key {fingerprint}.",
                    ["id": statement.receiptId, "fingerprint": statement.keyFingerprint]
                )
            )
            context.console.line(
                trn(
                    "{user} handed in {id} (version {version}) on {when} with {n} answer.",
                    "{user} handed in {id} (version {version}) on {when} with {n} answers.",
                    statement.responses.count,
                    [
                        "user": statement.user, "id": statement.assessmentId, "version": statement.assessmentVersion,
                        "when": Timestamp.date(statement.submittedAt).map(PeopleDates.dayAndClock) ?? statement.submittedAt,
                    ]
                )
            )
            context.console.emit(
                Output(receipt: statement, mismatchedQuestions: check.mismatchedQuestions, missingQuestions: check.missingQuestions)
            )
            if check.mismatchedQuestions == nil {
                context.console.line(tr("This vault has no such attempt, so its answers were not compared."))
            } else if check.coversEverything {
                context.console.line(tr("It names every answer of the attempt, each the one this vault holds."))
            } else {
                var sentences = [tr("The receipt does not prove the whole hand-in.")]
                if let mismatched = check.mismatchedQuestions, !mismatched.isEmpty {
                    sentences.append(
                        tr("It names other answers than this vault holds for {questions}.", ["questions": mismatched.joined(separator: ", ")])
                    )
                }
                if let missing = check.missingQuestions, !missing.isEmpty {
                    sentences.append(tr("It does not name this vault's answers to {questions}.", ["questions": missing.joined(separator: ", ")]))
                }
                sentences.append(tr("Keep this vault and show it to your teacher."))
                throw VaultError(.invalidData, sentences.joined(separator: " "))
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
            context.console.line(
                tr("Receipt {receipt} attached: {id} is handed in.", ["receipt": statement.receiptId, "id": statement.assessmentId])
            )
            context.console.emit(["receipt_id": statement.receiptId, "attempt_id": statement.attemptId])
        }
    }
}

/// A receipt as `vault receipts --json` lists it: its statement, and the district's confirmation when a classroom
/// server held the hand-in (issue 58).
struct ListedReceipt: Encodable {
    let statement: ReceiptStatement
    let confirmedByDistrict: Confirmation?
    let refusedByDistrict: [DistrictRefusal]?

    enum CodingKeys: String, CodingKey {
        case confirmedByDistrict = "confirmed_by_district"
        case refusedByDistrict = "refused_by_district"
    }

    func encode(to encoder: any Encoder) throws {
        try statement.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(confirmedByDistrict, forKey: .confirmedByDistrict)
        try container.encodeIfPresent(refusedByDistrict, forKey: .refusedByDistrict)
    }
}

import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

struct Key: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage key slots, rotate the data key, or reveal it for inspection.",
        subcommands: [List.self, Add.self, Remove.self, Rotate.self, Reveal.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the key slots.")
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources

        func run() throws {
            let context = CommandContext(globals)
            let vault = try context.openVault(credentials, allowSession: false)
            let slots = vault.keyFile.slots.map {
                SlotInfo(id: $0.id, label: $0.label, createdAt: $0.createdAt, kdf: $0.kdf.algorithm.rawValue, iterations: $0.kdf.iterations)
            }
            for slot in slots {
                let values: KeyValuePairs<String, any Sendable> = [
                    "id": slot.id, "label": slot.label, "kdf": slot.kdf, "iterations": slot.iterations,
                    "when": Timestamp.date(slot.createdAt).map(PeopleDates.dayAndClock) ?? slot.createdAt,
                ]
                context.console.line(
                    slot.id == vault.unlockedSlot
                        ? tr("slot {id}  {label}  {kdf} x {iterations}  created {when} (this password)", values)
                        : tr("slot {id}  {label}  {kdf} x {iterations}  created {when}", values)
                )
            }
            context.console.emit(["slots": slots])
        }
    }

    struct SlotInfo: Encodable {
        let id: Int
        let label: String
        let createdAt: String
        let kdf: String
        let iterations: Int
        enum CodingKeys: String, CodingKey {
            case id, label, kdf, iterations
            case createdAt = "created_at"
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a slot that opens the vault with another password (e.g. a recovery key).")
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources
        @Option(help: "What the slot is for.") var label = "recovery"
        @OptionGroup var kdf: KDFOptions

        func run() throws {
            let context = CommandContext(globals)
            let vault = try context.openVault(credentials, allowSession: false)
            let password = try PasswordReader.new(credentials)
            let id = try vault.addSlot(label: label, password: password, iterations: kdf.iterations())
            context.console.line(tr("Added key slot {id} ({label}).", ["id": id, "label": label]))
            context.console.emit(["slot": id])
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a key slot (never the last one).")
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources
        @Argument(help: "The slot number from `vault key list`.") var slot: Int

        func run() throws {
            let context = CommandContext(globals)
            let vault = try context.openVault(credentials, allowSession: false)
            try vault.removeSlot(slot)
            context.console.line(tr("Removed key slot {id}.", ["id": slot]))
            context.console.emit(["removed": slot])
        }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new data key and re-encrypt the vault with it.",
            discussion: "Only the slot of the password you give is kept; add other slots again afterwards."
        )
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources

        func run() throws {
            let context = CommandContext(globals)
            guard SecureFiles.exists(context.paths.keyFile) else {
                throw VaultError(
                    .noVault,
                    tr("There is no vault in {directory}. Create one with `vault init`.", ["directory": context.paths.directory])
                )
            }
            let password = try PasswordReader.current(credentials)
            let vault = try Vault.open(paths: context.paths, password: password, logger: context.logger)
            let dropped = try vault.rotateKey(password: password)
            context.console.line(tr("The vault was re-encrypted with a new data key."))
            if !dropped.isEmpty {
                context.console.line(tr("Removed slots (add them again with `vault key add`): {slots}.", ["slots": dropped.joined(separator: ", ")]))
            }
            context.console.emit(RotateResult(rotated: true, removedSlots: dropped))
        }

        struct RotateResult: Encodable {
            let rotated: Bool
            let removedSlots: [String]
            enum CodingKeys: String, CodingKey {
                case rotated
                case removedSlots = "removed_slots"
            }
        }
    }

    struct Reveal: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the raw data key so a tester can open vault.db in the stock sqlcipher shell."
        )
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources
        @Flag(help: "Do not ask for confirmation.") var yes = false

        func run() throws {
            let context = CommandContext(globals)
            let vault = try context.openVault(credentials, allowSession: false)
            if !yes { try confirm() }
            let (literal, pageSize) = vault.revealKey()
            let pragmas = ["PRAGMA key = \"\(literal)\";", "PRAGMA cipher_page_size = \(pageSize);"]
            context.console.line(tr("Anyone with this key can read the whole vault. Paste these lines into `sqlcipher vault.db`:"))
            for pragma in pragmas { context.console.pasteableLine(pragma) }
            context.console.line(
                tr(
                    "The sqlcipher shell keeps what you type in ~/.sqlite_history, the key too: start it as `HOME=$(mktemp -d) sqlcipher vault.db`, or delete that file afterwards."
                )
            )
            context.console.emit(RevealResult(sqlcipherKey: literal, pragmas: pragmas))
        }

        private func confirm() throws {
            guard isatty(STDIN_FILENO) == 1 else {
                throw VaultError(.notAllowed, tr("Revealing the key needs confirmation. Run it in a terminal, or add --yes."))
            }
            FileHandle.standardError.write(Data((tr("This prints the key that decrypts the whole vault. Type 'reveal' to go on:") + " ").utf8))
            guard readLine()?.trimmingCharacters(in: .whitespaces) == "reveal" else {
                throw VaultError(.notAllowed, tr("The key was not revealed."))
            }
        }

        struct RevealResult: Encodable {
            let sqlcipherKey: String
            let pragmas: [String]
            enum CodingKeys: String, CodingKey {
                case pragmas
                case sqlcipherKey = "sqlcipher_key"
            }
        }
    }
}

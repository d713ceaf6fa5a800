import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultTerminal

struct DeadLetters: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dead-letters",
        abstract: "Uploads that gave up: inspect, retry, discard or export them.",
        subcommands: [List.self, Retry.self, Discard.self, Export.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show every dead letter with its reason.")
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources

        func run() throws {
            let context = CommandContext(globals)
            let letters = try context.openVault(credentials).deadLetters()
            var table = TextTable([tr("ID"), tr("KIND"), tr("ASSESSMENT"), tr("WHEN"), tr("REASON")], flexible: 4)
            for letter in letters {
                table.add(["\(letter.id)", letter.kind.rawValue, letter.assessmentID ?? "-", ReadableDate.relative(letter.createdAt), letter.reason])
            }
            if !letters.isEmpty { context.console.table(table, width: .max) }
            if letters.isEmpty { context.console.line(tr("No dead letters: every upload either went through or is still queued.")) }
            context.console.emit(["dead_letters": letters])
        }
    }

    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Put a dead letter back in the queue for the next `vault sync`.")
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources
        @Argument var id: Int

        func run() throws {
            let context = CommandContext(globals)
            try context.openVault(credentials).retryDeadLetter(id)
            context.console.line(tr("Dead letter {id} is back in the queue; it goes up with the next `vault sync`.", ["id": id]))
            context.console.emit(["requeued": id])
        }
    }

    struct Discard: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a dead letter for good.")
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources
        @Argument var id: Int

        func run() throws {
            let context = CommandContext(globals)
            try context.openVault(credentials).discardDeadLetter(id)
            context.console.line(tr("Dead letter {id} was deleted.", ["id": id]))
            context.console.emit(["discarded": id])
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the dead letters to a file to hand to a teacher.",
            discussion:
                "The file is NOT encrypted unless --encrypt is given (the password comes from --new-password-stdin, $VAULT_NEW_PASSWORD_FILE or a prompt)."
        )
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources
        @Option(help: "Where to write.") var output = "dead-letters.json"
        @Flag(help: "Encrypt the file with a password (AES-256-GCM, PBKDF2-HMAC-SHA512).") var encrypt = false

        func run() throws {
            let context = CommandContext(globals)
            let vault = try context.openVault(credentials)
            let letters = try vault.deadLetters()
            var data = try CanonicalJSON.encode(["dead_letters": letters])
            if encrypt {
                data = try ExportEnvelope.seal(data, password: try PasswordReader.new(credentials))
            } else {
                context.console.warn(
                    tr("{file} is not encrypted: anyone who gets it can read these answers. Use --encrypt to protect it.", ["file": output])
                )
            }
            do {
                try SecureFiles.atomicWrite(data, to: output)
            }
            context.console.line(
                trn("Wrote {n} dead letter to {file}.", "Wrote {n} dead letters to {file}.", letters.count, ["file": output])
            )
            context.console.emit(["output": output, "count": "\(letters.count)", "encrypted": encrypt ? "true" : "false"])
        }
    }
}

/// A password-protected export: `{"format", "kdf", "iterations", "salt", "nonce", "ciphertext", "tag"}`.
enum ExportEnvelope {
    static func seal(_ data: Data, password: SecretBytes) throws -> Data {
        let salt = try CryptoRandom.bytes(32)
        let iterations = KDFParameters.defaultIterations
        let key = try PBKDF2.derive(password: password, salt: salt, iterations: iterations, hash: .sha512)
        let box = try AESGCM.seal(SecretBytes(Array(data)), key: key, associatedData: Array("vault-dead-letters-v1".utf8))
        let envelope: [String: String] = [
            "format": "vault-dead-letters-v1", "kdf": "pbkdf2-hmac-sha512", "iterations": String(iterations),
            "salt": Data(salt).base64EncodedString(), "nonce": Data(box.nonce).base64EncodedString(),
            "ciphertext": Data(box.ciphertext).base64EncodedString(), "tag": Data(box.tag).base64EncodedString(),
        ]
        return try CanonicalJSON.encode(envelope)
    }
}

import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultServer
import VaultTerminal

struct KeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "The server's signing and hand-in keys.",
        subcommands: [Show.self]
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the public keys and their fingerprint (made on first use, kept in the store; the private keys never leave it)."
        )
        @OptionGroup var options: DataOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let key = try await ReceiptIssuer(storage: try await options.storage()).identity().publicKey.response
            if json {
                print(String(decoding: try CanonicalJSON.encode(key), as: UTF8.self))
            } else {
                TerminalText.line("Fingerprint:   \(key.fingerprint)")
                TerminalText.line("Signing key:   \(key.signingKey) (Ed25519)")
                TerminalText.line("Hand-in key:   \(key.agreementKey) (X25519)")
            }
        }
    }
}

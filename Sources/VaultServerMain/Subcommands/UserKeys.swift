import ArgumentParser
import Foundation
import VaultAPI
import VaultServer
import VaultTerminal

extension UserCommand {
    /// Who speaks for a student (issue 68): each device key with how it came, when, and when it was last used; a key
    /// ended by `revoke` signs in as nobody and signs nothing the server takes from then on.
    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List an account's device keys: how each came, when, when last used, revoked or not.",
            subcommands: [List.self, Revoke.self],
            defaultSubcommand: List.self
        )

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List an account's device keys.")
            @OptionGroup var options: DataOptions
            @Argument var name: String
            @Flag(
                help:
                    "Print {\"user\",\"keys\":[{\"fingerprint\",\"origin\",\"detail\",\"registered_at\",\"last_used_at\",\"revoked_at\",\"revoked_by\"}]}."
            )
            var json = false

            func run() async throws {
                let storage = try await options.storage()
                guard try await storage.user(named: name) != nil else { throw ValidationError("There is no account \(name).") }
                let keys = try await storage.deviceKeyRecords(user: name)
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys]
                    print(String(decoding: try encoder.encode(Listing(user: name, keys: keys.map(Listing.Key.init))), as: UTF8.self))
                    return
                }
                guard !keys.isEmpty else {
                    TerminalText.line("\(name) has no device keys: no vault has signed in or handed in for them by key.")
                    return
                }
                var table = TextTable(["Key", "How it came", "Since", "Last sign-in", "State"], flexible: 1)
                for key in keys {
                    table.add([
                        key.fingerprint, key.howItCame, Timestamp.readable(key.registeredAt),
                        key.lastUsedAt.map(Timestamp.readable) ?? "never",
                        key.state,
                    ])
                }
                for line in table.render() { TerminalText.line(line) }
            }

            struct Listing: Encodable {
                struct Key: Encodable {
                    let fingerprint: String
                    let origin: String
                    let detail: String?
                    let registeredAt: String
                    let lastUsedAt: String?
                    let revokedAt: String?
                    let revokedBy: String?
                    init(_ record: DeviceKeyRecord) {
                        fingerprint = record.fingerprint
                        origin = record.origin.rawValue
                        detail = record.detail
                        registeredAt = Timestamp.string(record.registeredAt)
                        lastUsedAt = record.lastUsedAt.map(Timestamp.string)
                        revokedAt = record.revokedAt.map(Timestamp.string)
                        revokedBy = record.revokedBy
                    }
                    enum CodingKeys: String, CodingKey {
                        case fingerprint, origin, detail
                        case registeredAt = "registered_at"
                        case lastUsedAt = "last_used_at"
                        case revokedAt = "revoked_at"
                        case revokedBy = "revoked_by"
                    }
                }
                let user: String
                let keys: [Key]
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "End one device key (by its fingerprint) or every one (--all): sign-in by it is refused from the next request."
            )
            @OptionGroup var options: DataOptions
            @Argument var name: String
            @Argument(help: "The key's fingerprint, as `user keys NAME` lists it.") var key: String?
            @Flag(help: "Revoke every live key of the account.") var all = false

            func validate() throws {
                guard (key == nil) == all else { throw ValidationError("Name one key by its fingerprint, or give --all.") }
            }

            func run() async throws {
                let storage = try await options.storage()
                guard try await storage.user(named: name) != nil else { throw ValidationError("There is no account \(name).") }
                let revoked = try await storage.revokeDeviceKeys(user: name, key: key, by: "the server's command line", now: Date())
                guard revoked > 0 else {
                    throw ValidationError(
                        key.map { "\(name) has no live key \($0); `vault-server user keys \(name)` lists them." } ?? "\(name) has no live keys."
                    )
                }
                TerminalText.line(
                    "Revoked \(revoked) device \(revoked == 1 ? "key" : "keys") of \(name): \(revoked == 1 ? "it signs" : "they sign") in as nobody from now on; what \(revoked == 1 ? "it" : "they") signed before is kept."
                )
            }
        }
    }
}

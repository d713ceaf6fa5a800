import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultServer
import VaultTerminal

/// `vault-server unlock` and `lock`: a classroom's encrypted store (issue 69) opened for the day by the teacher's
/// passphrase, its key kept in the kernel keyring (as `vault unlock` keeps a vault's), never in a file.
struct StoreUnlock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Open a classroom's encrypted store for the day: its passphrase is read from the first line of stdin.",
        discussion: """
            The store's key is kept in the kernel keyring for this user until `vault-server lock` or the time is up, \
            so `serve` and the other commands need no passphrase meanwhile. It is never written to a file.
            """
    )
    @OptionGroup var options: DataOptions
    @Option(help: "How many hours it stays unlocked (1 to 24).") var hours = 12

    func run() async throws {
        guard (1...24).contains(hours) else { throw ValidationError("Unlock for 1 to 24 hours.") }
        guard let lock = try StoreLock.read(directory: options.dataDirectory) else {
            TerminalText.line("This server's store is not encrypted; there is nothing to unlock.")
            return
        }
        guard let passphrase = readPasswordLine() else { throw ValidationError("Give the store's passphrase on the first line of standard input.") }
        let key: StoreKey
        do {
            key = try lock.open(passphrase)
            // Proved on the store itself before it is kept.
            _ = try SQLiteServerStorage(directory: options.dataDirectory, key: key)
        } catch let error as StoreLockError {
            TerminalText.errorLine("Error: \(error)")
            throw ExitCode(77)
        }
        let info = try SessionKeyring.store(key.key, vaultID: lock.keyringID, for: .seconds(hours * 3600))
        TerminalText.line(
            "The store is unlocked until \(Timestamp.readable(Timestamp.string(info.expiresAt))). `vault-server lock` locks it again."
        )
    }
}

struct StoreLockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Lock a classroom's encrypted store again: its key leaves the kernel keyring (a running `serve` keeps serving)."
    )
    @OptionGroup var options: DataOptions

    func run() async throws {
        guard let lock = try StoreLock.read(directory: options.dataDirectory) else {
            TerminalText.line("This server's store is not encrypted; there is nothing to lock.")
            return
        }
        TerminalText.line(
            SessionKeyring.remove(vaultID: lock.keyringID)
                ? "The store is locked: the next command needs its passphrase (`vault-server unlock`) or its key file."
                : "The store was not unlocked; nothing changed."
        )
    }
}

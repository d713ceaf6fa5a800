import ArgumentParser
import Foundation
import Hummingbird
import Logging
import VaultAPI
import VaultCore
import VaultServer

/// Options shared by every subcommand.
struct DataOptions: ParsableArguments {
    @Option(help: "The data directory holding server.db.") var data = "./vault-server-data"
    /// PBKDF2 rounds for new password hashes; tests lower it explicitly, never by default.
    @Option(help: .hidden) var passwordIterations = ServerConfiguration().passwordIterations

    /// Opens the store. Every subcommand comes through here, so every file it creates is private (umask 077),
    /// whatever the caller's umask.
    func storage() throws -> SQLiteServerStorage {
        SecureFiles.restrictUmask()
        do {
            return try SQLiteServerStorage(directory: data)
        } catch {
            throw ValidationError("The data directory \(data) cannot be used: \(error)")
        }
    }
}

import ArgumentParser
import Foundation
import Hummingbird
import Logging
import VaultAPI
import VaultCore
import VaultServer
import VaultServerPostgres

/// Options shared by every subcommand: where the data is.
struct DataOptions: ParsableArguments {
    @Option(help: "The data directory holding server.db (the embedded SQLite store).") var data = "./vault-server-data"
    @Option(
        help: ArgumentHelp(
            "A PostgreSQL database instead: postgres://USER@HOST:PORT/DATABASE (or VAULT_SERVER_DATABASE_URL).",
            discussion: "No password in the URL: it comes from PGPASSFILE or ~/.pgpass, or the server needs none."
        )
    )
    var database: String?
    /// PBKDF2 rounds for new password hashes; tests lower it explicitly, never by default.
    @Option(help: .hidden) var passwordIterations = ServerConfiguration().passwordIterations
    /// PBKDF2 rounds that wrap a sealed exam's key under its start code; tests lower it explicitly.
    @Option(help: .hidden) var sealIterations = ServerConfiguration().sealIterations

    /// The PostgreSQL location, from --database or the environment; nil for the embedded store.
    func postgresLocation() throws -> PostgresLocation? {
        guard let url = database ?? ProcessInfo.processInfo.environment["VAULT_SERVER_DATABASE_URL"], !url.isEmpty else { return nil }
        do {
            return try PostgresLocation(url: url)
        } catch let error as StorageError {
            throw ValidationError(error.description)
        }
    }

    /// Opens the store. Every subcommand comes through here, so every file it creates is private (umask 077),
    /// whatever the caller's umask.
    func storage(logger: Logger = Logger(label: "vault-server")) async throws -> any ServerStorage {
        SecureFiles.restrictUmask()
        if let location = try postgresLocation() {
            do {
                return try await PostgresServerStorage(location: location, logger: logger)
            } catch let error as StorageError {
                throw ValidationError("The database cannot be used: \(error)")
            }
        }
        do {
            return try SQLiteServerStorage(directory: data)
        } catch {
            throw ValidationError("The data directory \(data) cannot be used: \(error)")
        }
    }
}

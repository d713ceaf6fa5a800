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
    @Option(help: "The data directory holding server.db (the embedded SQLite store; or VAULT_SERVER_DATA, else ./vault-server-data).")
    var data: String?
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

    /// The embedded store's directory: `--data`, else `VAULT_SERVER_DATA`, else `./vault-server-data`.
    var dataDirectory: String { data ?? ServerEnvironment.current["VAULT_SERVER_DATA"] ?? "./vault-server-data" }

    /// The PostgreSQL location, from --database or the environment; nil for the embedded store. An explicit `--data`
    /// beats a database named only by the environment.
    func postgresLocation() throws -> PostgresLocation? {
        let url = database ?? (data == nil ? ServerEnvironment.current["VAULT_SERVER_DATABASE_URL"] : nil)
        guard let url, !url.isEmpty else { return nil }
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
            return try SQLiteServerStorage(directory: dataDirectory)
        } catch {
            throw ValidationError("The data directory \(dataDirectory) cannot be used: \(error)")
        }
    }

    /// The teacher's desk on the opened store, on the machine's clock (a command's "now" is when it runs).
    func desk() async throws -> TeacherDesk { TeacherDesk(storage: try await storage(), now: { Date() }) }
}

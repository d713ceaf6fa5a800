import ArgumentParser
import Foundation
import Hummingbird
import Logging
import VaultAPI
import VaultCore
import VaultServer
import VaultServerPostgres
import VaultTerminal

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
    @Option(
        help: ArgumentHelp(
            "The key file of an encrypted classroom store (or VAULT_SERVER_STORE_KEY_FILE).",
            discussion: "Without it, the key `vault-server unlock` left in the kernel keyring."
        )
    )
    var storeKeyFile: String?
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
            return try SQLiteServerStorage(directory: dataDirectory, key: try storeKey())
        } catch let error as StoreLockError {
            TerminalText.errorLine("Error: \(error)")
            throw ExitCode(77)
        } catch {
            throw ValidationError("The data directory \(dataDirectory) cannot be used: \(error)")
        }
    }

    /// The key of an encrypted store (a classroom's, issue 69): from its key file (`--store-key-file`, else
    /// `VAULT_SERVER_STORE_KEY_FILE`), else from the kernel keyring (`vault-server unlock`); nil for a plaintext store.
    func storeKey() throws -> StoreKey? {
        guard let lock = try StoreLock.read(directory: dataDirectory) else { return nil }
        if let path = storeKeyFile ?? ServerEnvironment.current[StoreLock.keyFileVariable], !path.isEmpty {
            return try lock.open(try StoreLock.secret(inKeyFile: path))
        }
        if let kept = SessionKeyring.load(vaultID: lock.keyringID) { return StoreKey(key: kept.key, salt: lock.keyFile.databaseSaltBytes) }
        throw StoreLockError.locked
    }

    /// The teacher's desk on the opened store, on the machine's clock (a command's "now" is when it runs).
    func desk() async throws -> TeacherDesk { TeacherDesk(storage: try await storage(), now: { Date() }) }
}

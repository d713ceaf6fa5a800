import Foundation
import Logging
import VaultCore

/// What every subcommand needs: where the vault is, how to print, how to log.
struct CommandContext {
    let globals: GlobalOptions
    let console: Console
    let paths: VaultPaths
    let logger: Logger

    init(_ globals: GlobalOptions, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.globals = globals
        console = Console(globals: globals, environment: environment)
        paths = VaultPaths.resolve(explicit: globals.vaultDirectory, environment: environment)
        var logger = Logger(label: "vault") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = globals.verbose ? .debug : .critical
        self.logger = logger
    }

    /// Reads the password from its source and unlocks the vault.
    func openVault(_ credentials: CredentialSources) throws -> Vault {
        guard SecureFiles.exists(paths.keyFile) || SecureFiles.exists(paths.database) else {
            throw VaultError(.noVault, "There is no vault in \(paths.directory). Create one with `vault init`.")
        }
        let password = try PasswordReader.current(credentials)
        let vault = try Vault.open(paths: paths, password: password, logger: logger)
        // What opening finished on the user's behalf (an interrupted key rotation) is said, on stderr.
        for notice in vault.notices { console.warn(notice) }
        return vault
    }
}

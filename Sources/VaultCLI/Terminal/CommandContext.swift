import Foundation
import Logging
import VaultCore
import VaultLanguage
import VaultModel

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

    /// Unlocks the vault: with the session key `vault unlock` left in the kernel keyring when there is one and no
    /// password source was named (a password on stdin is always read, so what follows it stays in place), else with
    /// the password from its source. Commands that change keys pass `allowSession: false`.
    func openVault(_ credentials: CredentialSources, allowSession: Bool = true) throws -> Vault {
        guard SecureFiles.exists(paths.keyFile) || SecureFiles.exists(paths.database) else {
            throw VaultError(.noVault, tr("There is no vault in {directory}. Create one with `vault init`.", ["directory": paths.directory]))
        }
        let vault: Vault
        if allowSession, !credentials.passwordStdin, PasswordReader.fileVariableUnset(),
            let unlocked = try Vault.openWithSessionKey(paths: paths, logger: logger)
        {
            vault = unlocked
        } else {
            vault = try Vault.open(paths: paths, password: try PasswordReader.current(credentials), logger: logger)
        }
        // What opening finished on the user's behalf (an interrupted key rotation) is said, on stderr.
        for notice in vault.notices { console.warn(notice) }
        // A timed attempt whose time ran out while the student was away is handed in now, and said once. A failure
        // here is said, and the command the student asked for still runs (the next one tries again).
        do {
            for ranOut in try vault.handInWhereTimeRanOut() { console.warn(ranOut.sentence) }
        } catch {
            console.warn(VaultExit.vaultError(for: error)?.message ?? "\(error)")
        }
        return vault
    }
}

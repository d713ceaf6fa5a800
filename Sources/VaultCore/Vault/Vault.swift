import Foundation
import Logging
import VaultAPI
import VaultLanguage

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

/// An unlocked vault: the key file, the data key in a wiped buffer, the open SQLCipher database and the
/// cross-process lock. Not shared between threads; create one per command.
public final class Vault {
    /// The open vault directory every path in `paths` goes through; held for as long as the vault is.
    let directory: VaultDirectory
    public var paths: VaultPaths { directory.paths }
    /// The connection. Not part of the public API: operations span tables in one transaction through `Vault`'s
    /// methods; only tests and the benchmark reach the schema, through `@_spi(Testing) import VaultCore`.
    @_spi(Testing) public internal(set) var database: Database
    public internal(set) var keyFile: KeyFile
    var dataKey: SecretBytes
    /// The slot the password opened.
    /// How the data key was obtained.
    public let unlockedBy: Unlock

    /// The slot the password opened; nil when a session key (`vault unlock`) opened the vault.
    public var unlockedSlot: Int? {
        if case .password(let slot) = unlockedBy { return slot }
        return nil
    }

    public enum Unlock: Sendable, Equatable {
        case password(slot: Int)
        case sessionKey
    }
    let lock: VaultLock
    let logger: Logger
    /// Question hashes per cached version ("id@version"), decoded once: every answer save needs one.
    var questionHashCache: [String: [String: String]] = [:]
    /// Time limits per cached version ("id@version").
    var timeLimitCache: [String: Duration?] = [:]
    /// The clocks timed attempts are measured with (tests inject their own).
    public var clocks: AttemptClocks = .system
    /// Things the user should hear about that happened while opening (an interrupted rotation was finished).
    public internal(set) var notices: [String] = []

    init(
        directory: VaultDirectory,
        database: Database,
        keyFile: KeyFile,
        dataKey: SecretBytes,
        unlock: Unlock,
        lock: VaultLock,
        logger: Logger
    ) {
        self.directory = directory
        self.database = database
        self.keyFile = keyFile
        self.dataKey = dataKey
        self.unlockedBy = unlock
        self.lock = lock
        self.logger = logger
    }

    public var vaultID: String { keyFile.vaultID }

    // MARK: Creating

    /// Creates a new vault in `paths.directory`: a random data key, a key file with one password slot, and an
    /// empty encrypted database at the current schema. Refuses to touch an existing vault, also when another
    /// `init` races this one.
    public static func create(
        paths requested: VaultPaths,
        password: SecretBytes,
        iterations: Int = KDFParameters.defaultIterations,
        logger: Logger = .disabled
    ) throws -> Vault {
        try create(paths: requested, password: password, iterations: iterations, logger: logger, encrypted: true)
    }

    /// The same vault with its database left unkeyed: only for the benchmark's baseline (the product's own code
    /// paths, minus the encryption). Never reachable from the CLI; such a vault cannot be opened again.
    @_spi(Testing) public static func createUnencryptedForBenchmark(paths: VaultPaths) throws -> Vault {
        try create(paths: paths, password: SecretBytes(Array("unencrypted".utf8)), iterations: 1_000, logger: .disabled, encrypted: false)
    }

    private static func create(
        paths requested: VaultPaths,
        password: SecretBytes,
        iterations: Int,
        logger: Logger,
        encrypted: Bool
    ) throws -> Vault {
        SecureFiles.restrictUmask()
        guard !password.isEmpty else { throw VaultError(.usage, tr("The password is empty. Choose a password of at least one character.")) }
        guard (KDFParameters.iterationFloor...KDFParameters.iterationCeiling).contains(iterations) else {
            throw VaultError(
                .usage,
                tr(
                    "The iteration count must be between {iteration_floor} and {iteration_ceiling}.",
                    ["iteration_floor": KDFParameters.iterationFloor, "iteration_ceiling": KDFParameters.iterationCeiling]
                )
            )
        }
        let existing = VaultError(
            .vaultExists,
            tr("A vault already exists in {directory}. It was left untouched.", ["directory": requested.directory])
        )
        if SecureFiles.exists(requested.keyFile) || SecureFiles.exists(requested.database) { throw existing }
        let directory = try VaultDirectory(requested, create: true)
        let paths = directory.paths
        let lock = try VaultLock(path: paths.lock)
        // Again under the lock: another `init` may have finished while this one waited for it.
        if SecureFiles.exists(paths.keyFile) || SecureFiles.exists(paths.database) { throw existing }
        disableCoreDumps()

        let dataKey = try SecretBytes.random(count: 32)
        let salt = try CryptoRandom.bytes(16)
        let vaultID = UUID().uuidString.lowercased()
        let configuration = DatabaseConfiguration()
        var keyFile = KeyFile(vaultID: vaultID, databaseSalt: salt, cipherPageSize: configuration.cipherPageSize)
        // Created before a vault exists to inject its clocks into: the system's wall clock.
        let slot = try keyFile.addSlot(
            label: "password",
            dataKey: dataKey,
            password: password,
            iterations: iterations,
            createdAt: AttemptClocks.system.wall()
        )

        // The database is built under a temporary name. The key file, placed with a no-replace link, is the commit
        // point: of two racing inits exactly one places it. The rename that follows is finished by the next open
        // if a crash comes between the two.
        let staging = paths.stagingDatabase
        unlink(staging)
        do {
            let database = try Database(
                path: staging,
                encryption: encrypted ? .rawKey(dataKey, salt: salt) : .plaintext,
                configuration: configuration
            )
            try VaultSchema.migrator.migrate(database)
            try database.execute("INSERT INTO vault_meta (key, value) VALUES ('vault_id', ?)", [vaultID])
            try database.execute(
                "INSERT INTO vault_meta (key, value) VALUES ('created_at', ?)",
                [Vault.storedTimeText(AttemptClocks.system.wall())]  // before a vault exists to inject its clocks into
            )
            database.close()
            try SecureFiles.fsyncFile(staging)
            try SecureFiles.createNew(try keyFile.encoded(), at: paths.keyFile)
        } catch {
            // Before the commit point (the key file in place): the staged database is a copy being built.
            unlink(staging)
            if let error = error as? DatabaseError { throw error.vaultError }
            throw error
        }
        // Past the commit point nothing is removed: if this rename (or its directory sync) fails, the staged
        // database stays and the next open finishes the creation.
        try SecureFiles.rename(staging, to: paths.database)

        let database = try Database(
            path: paths.database,
            encryption: encrypted ? .rawKey(dataKey, salt: salt) : .plaintext,
            configuration: configuration
        )
        logger.info("created vault", metadata: ["vault_id": "\(vaultID)", "iterations": "\(iterations)"])
        return Vault(
            directory: directory,
            database: database,
            keyFile: keyFile,
            dataKey: dataKey,
            unlock: .password(slot: slot),
            lock: try lock.downgraded(),
            logger: logger
        )
    }

    // MARK: Opening

    /// Unlocks an existing vault. Decides wrong password, damaged key file, key file of another vault and damaged
    /// database apart, and modifies no file in any of those cases (an interrupted `init` or `key rotate` is
    /// finished first, whatever the password: see `VaultRecovery`).
    public static func open(
        paths requested: VaultPaths,
        password: SecretBytes,
        logger: Logger = .disabled,
        lockWait: Duration = .seconds(3)
    ) throws -> Vault {
        guard let vault = try open(paths: requested, with: .password(password), logger: logger, lockWait: lockWait) else {
            throw VaultError.wrongPassword
        }
        return vault
    }

    /// Opens the vault with the data key `vault unlock` left in the kernel keyring, without a password; nil when
    /// there is no valid session key for this vault (or the one there does not open it: it is ignored).
    public static func openWithSessionKey(
        paths requested: VaultPaths,
        logger: Logger = .disabled,
        lockWait: Duration = .seconds(3)
    ) throws -> Vault? {
        guard SecureFiles.exists(requested.keyFile) else { return nil }
        return try open(paths: requested, with: .sessionKey, logger: logger, lockWait: lockWait)
    }

    /// The id of the vault at `paths`, read from its key file (plain text; no password needed).
    public static func vaultID(paths requested: VaultPaths) throws -> String {
        let directory = try VaultDirectory(requested, create: false)
        return try loadKeyFile(directory.paths.keyFile).vaultID
    }

    enum Credential {
        case password(SecretBytes)
        case sessionKey
    }

    private static func open(paths requested: VaultPaths, with credential: Credential, logger: Logger, lockWait: Duration) throws -> Vault? {
        SecureFiles.restrictUmask()
        // A staged database alone is an init that never reached its commit point (the key file): no vault.
        guard SecureFiles.exists(requested.directory),
            SecureFiles.exists(requested.keyFile) || SecureFiles.exists(requested.database)
        else {
            throw VaultError(.noVault, tr("There is no vault in {directory}. Create one with `vault init`.", ["directory": requested.directory]))
        }
        let directory = try VaultDirectory(requested, create: false)
        let paths = directory.paths
        let named = paths.named
        guard SecureFiles.exists(paths.keyFile) || SecureFiles.exists(paths.rotatingKeyFile) else {
            throw VaultError(
                .keyFileDamaged,
                tr("The key file {key_file} is missing, so the vault cannot be opened. Restore it from a backup.", ["key_file": named.keyFile])
            )
        }
        // Shared: other commands may use the vault meanwhile. Finishing an interrupted write replaces files, so it
        // waits to have the vault alone (no rotation can start while anyone holds it shared, so the check holds).
        let lock = try VaultLock(path: paths.lock, wait: lockWait, mode: .shared)
        if VaultRecovery.hasInterruptedWrites(paths: paths) { try lock.set(.exclusive, wait: lockWait) }
        let recovery = try VaultRecovery.finishInterruptedWrites(paths: paths, logger: logger)
        try SecureFiles.checkPrivate(paths.keyFile, isDirectory: false)
        try SecureFiles.checkPrivate(paths.database, isDirectory: false)

        let keyFile = try loadKeyFile(paths.keyFile)
        let key: SecretBytes
        let unlock: Unlock
        switch credential {
        case .password(let password):
            do {
                let unlocked = try keyFile.unlock(password: password)
                (key, unlock) = (unlocked.key, .password(slot: unlocked.slotID))
            } catch {
                logger.notice("unlock refused: no slot accepted the password")
                if let dropped = recovery.droppedSlotError(password: password, current: keyFile) { throw dropped }
                throw VaultError.wrongPassword
            }
        case .sessionKey:
            guard let session = SessionKeyring.load(vaultID: keyFile.vaultID) else { return nil }
            (key, unlock) = (session.key, .sessionKey)
        }
        disableCoreDumps()
        try checkDatabaseBelongs(to: keyFile, paths: paths)

        let database: Database
        do {
            var configuration = DatabaseConfiguration()
            configuration.cipherPageSize = keyFile.cipherPageSize
            database = try Database(
                path: paths.database,
                encryption: .rawKey(key, salt: keyFile.databaseSaltBytes),
                configuration: configuration
            )
            if try database.scalarInt("PRAGMA user_version") < VaultSchema.migrator.latestVersion {
                try lock.set(.exclusive, wait: lockWait)  // a schema change waits to have the vault alone
                try VaultSchema.migrator.migrate(database)
            }
            let storedID = try database.row("SELECT value FROM vault_meta WHERE key = 'vault_id'")?.string(0)
            guard storedID == keyFile.vaultID else {
                throw VaultError(
                    .keyFileMismatch,
                    tr("The key file {key_file} belongs to another vault. Put back this vault's own key file.", ["key_file": named.keyFile])
                )
            }
        } catch let error as DatabaseError {
            // A session key that does not open the database (the vault was rotated since) is ignored, not damage.
            if unlock == .sessionKey, error.resultCode.primaryResultCode == .SQLITE_NOTADB { return nil }
            throw mapOpenError(error, paths: named)
        }
        removeStaleTemporaryFiles(paths)
        let vault = Vault(
            directory: directory,
            database: database,
            keyFile: keyFile,
            dataKey: key,
            unlock: unlock,
            lock: try lock.downgraded(),
            logger: logger
        )
        vault.notices = recovery.notices
        return vault
    }

    static func loadKeyFile(_ rawPath: String) throws -> KeyFile {
        let path = SecureFiles.shown(rawPath)
        let data: Data
        do {
            data = try SecureFiles.read(rawPath, limit: KeyFile.Limits.maxFileBytes)
        } catch let error as VaultError where error.code == .invalidData {
            throw VaultError(
                .keyFileDamaged,
                tr("The key file {path} is far larger than a key file can be. It is damaged or was tampered with.", ["path": path])
            )
        }
        do {
            return try KeyFile.decode(data)
        } catch let error as KeyFileError {
            throw error.vaultError(path: path)
        }
    }

    /// The first 16 bytes of vault.db are the SQLCipher salt. A salt that differs in most bytes is another vault's
    /// key file; one that differs in a few is a damaged header.
    static func checkDatabaseBelongs(to keyFile: KeyFile, paths: VaultPaths) throws {
        guard SecureFiles.exists(paths.database) else {
            throw VaultError(
                .databaseDamaged,
                tr("The vault database {database} is missing. Restore it from a backup.", ["database": paths.named.database])
            )
        }
        let named = paths.named
        let header = try readHeader(paths.database)
        guard header.count == 16 else {
            throw VaultError(
                .databaseDamaged,
                tr("The vault database {database} is truncated. Restore it from a backup.", ["database": named.database])
            )
        }
        let differing = zip(header, keyFile.databaseSaltBytes).filter { $0 != $1 }.count
        if differing >= 8 {
            throw VaultError(
                .keyFileMismatch,
                tr(
                    "The key file {key_file} does not belong to the database {database}. Put back this vault's own key file.",
                    ["key_file": named.keyFile, "database": named.database]
                )
            )
        }
        if differing > 0 {
            throw VaultError(
                .databaseDamaged,
                tr("The vault database {database} has a damaged header. Restore it from a backup.", ["database": named.database])
            )
        }
    }

    static func readHeader(_ path: String) throws -> [UInt8] {
        let descriptor = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw SecureFiles.ioError("open", path) }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: 16)
        let count = header.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, 16) }
        return count == 16 ? header : []
    }

    static func mapOpenError(_ error: DatabaseError, paths: VaultPaths) -> VaultError {
        if error.resultCode.isDamage { return VaultError.databaseDamaged(paths.database, error) }
        if error.isDiskFull || error.resultCode.primaryResultCode == .SQLITE_BUSY { return error.vaultError }
        return VaultError(.io, tr("The vault database {database} could not be opened.", ["database": paths.database]), detail: "\(error)")
    }

    static func removeStaleTemporaryFiles(_ paths: VaultPaths) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: paths.root)) ?? []
        for name in names where name.hasPrefix("vault.key.tmp-") || name.hasPrefix("vault.key.rotating.tmp-") {
            unlink(paths.root + "/" + name)
        }
    }

    /// Keeps keys out of core dumps while the vault is unlocked.
    static func disableCoreDumps() {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
        _ = vault_disable_core_dumps_bridge()
    }
}

import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// An unlocked vault: the key file, the data key in a wiped buffer, the open SQLCipher database and the
/// cross-process lock. Not shared between threads; create one per command.
public final class Vault {
    public let paths: VaultPaths
    public internal(set) var database: Database
    public internal(set) var keyFile: KeyFile
    let dataKey: SecretBytes
    /// The slot the password opened.
    public let unlockedSlot: Int
    let lock: VaultLock
    let logger: Logger
    /// Question hashes per cached version ("id@version"), decoded once: every answer save needs one.
    var questionHashCache: [String: [String: String]] = [:]

    init(paths: VaultPaths, database: Database, keyFile: KeyFile, dataKey: SecretBytes, slot: Int, lock: VaultLock, logger: Logger) {
        self.paths = paths
        self.database = database
        self.keyFile = keyFile
        self.dataKey = dataKey
        self.unlockedSlot = slot
        self.lock = lock
        self.logger = logger
    }

    public var vaultID: String { keyFile.vaultID }

    // MARK: Creating

    /// Creates a new vault in `paths.directory`: a random data key, a key file with one password slot, and an
    /// empty encrypted database at the current schema. Refuses to touch an existing vault.
    public static func create(
        paths: VaultPaths, password: SecretBytes, iterations: Int = KDFParameters.defaultIterations,
        logger: Logger = .disabled
    ) throws -> Vault {
        SecureFiles.restrictUmask()
        guard !password.isEmpty else { throw VaultError(.usage, "The password is empty. Choose a password of at least one character.") }
        guard (KDFParameters.iterationFloor...KDFParameters.iterationCeiling).contains(iterations) else {
            throw VaultError(
                .usage,
                "The iteration count must be between \(KDFParameters.iterationFloor) and \(KDFParameters.iterationCeiling).")
        }
        if SecureFiles.exists(paths.keyFile) || SecureFiles.exists(paths.database) {
            throw VaultError(.vaultExists, "A vault already exists in \(paths.directory). It was left untouched.")
        }
        try SecureFiles.createDirectory(paths.directory)
        try SecureFiles.checkPrivate(paths.directory, isDirectory: true)
        let lock = try VaultLock(path: paths.lock)
        disableCoreDumps()

        let dataKey = try SecretBytes.random(count: 32)
        let salt = try CryptoRandom.bytes(16)
        let vaultID = UUID().uuidString.lowercased()
        let configuration = DatabaseConfiguration()
        var keyFile = KeyFile(vaultID: vaultID, databaseSalt: salt, cipherPageSize: configuration.cipherPageSize)
        let slot = try keyFile.addSlot(label: "password", dataKey: dataKey, password: password, iterations: iterations)

        // The database is built under a temporary name; the key file and then the rename make the vault exist.
        let staging = paths.database + ".init"
        unlink(staging)
        do {
            let database = try Database(path: staging, encryption: .rawKey(dataKey, salt: salt), configuration: configuration)
            try VaultSchema.migrator.migrate(database)
            try database.execute("INSERT INTO vault_meta (key, value) VALUES ('vault_id', ?)", [vaultID])
            try database.execute(
                "INSERT INTO vault_meta (key, value) VALUES ('created_at', ?)", [ISO8601DateFormatter().string(from: Date())])
        }
        try SecureFiles.fsyncFile(staging)
        try SecureFiles.atomicWrite(try keyFile.encoded(), to: paths.keyFile)
        try SecureFiles.rename(staging, to: paths.database)
        chmod(paths.database, 0o600)

        let database = try Database(path: paths.database, encryption: .rawKey(dataKey, salt: salt), configuration: configuration)
        logger.info("created vault", metadata: ["vault_id": "\(vaultID)", "iterations": "\(iterations)"])
        return Vault(paths: paths, database: database, keyFile: keyFile, dataKey: dataKey, slot: slot, lock: lock, logger: logger)
    }

    // MARK: Opening

    /// Unlocks an existing vault. Decides wrong password, damaged key file, key file of another vault and damaged
    /// database apart, and modifies no file in any of those cases.
    public static func open(
        paths: VaultPaths, password: SecretBytes, logger: Logger = .disabled,
        lockWait: Duration = .seconds(3)
    ) throws -> Vault {
        SecureFiles.restrictUmask()
        guard SecureFiles.exists(paths.directory), SecureFiles.exists(paths.keyFile) || SecureFiles.exists(paths.database)
        else {
            throw VaultError(.noVault, "There is no vault in \(paths.directory). Create one with `vault init`.")
        }
        try SecureFiles.checkPrivate(paths.directory, isDirectory: true)
        guard SecureFiles.exists(paths.keyFile) else {
            throw VaultError(
                .keyFileDamaged,
                "The key file \(paths.keyFile) is missing, so the vault cannot be opened. Restore it from a backup.")
        }
        try SecureFiles.checkPrivate(paths.keyFile, isDirectory: false)
        try SecureFiles.checkPrivate(paths.database, isDirectory: false)
        let lock = try VaultLock(path: paths.lock, wait: lockWait)

        var keyFile = try loadKeyFile(paths.keyFile)
        let unlocked: (key: SecretBytes, slotID: Int)
        do {
            unlocked = try keyFile.unlock(password: password)
        } catch {
            logger.notice("unlock refused: no slot accepted the password")
            throw VaultError.wrongPassword
        }
        disableCoreDumps()
        var dataKey = unlocked.key

        // A `key rotate` that stopped after its commit point is finished here; one that stopped before is undone.
        if let rotated = try finishInterruptedRotation(paths: paths, password: password, logger: logger) {
            keyFile = rotated.file
            dataKey = rotated.key
        }
        try checkDatabaseBelongs(to: keyFile, paths: paths)

        let database: Database
        do {
            var configuration = DatabaseConfiguration()
            configuration.cipherPageSize = keyFile.cipherPageSize
            database = try Database(
                path: paths.database, encryption: .rawKey(dataKey, salt: keyFile.databaseSaltBytes),
                configuration: configuration)
            try VaultSchema.migrator.migrate(database)
            let storedID = try database.row("SELECT value FROM vault_meta WHERE key = 'vault_id'")?.string(0)
            guard storedID == keyFile.vaultID else {
                throw VaultError(
                    .keyFileMismatch,
                    "The key file \(paths.keyFile) belongs to another vault. Put back this vault's own key file.")
            }
        } catch let error as DatabaseError {
            throw mapOpenError(error, paths: paths)
        }
        removeStaleTemporaryFiles(paths)
        return Vault(
            paths: paths, database: database, keyFile: keyFile, dataKey: dataKey, slot: unlocked.slotID, lock: lock,
            logger: logger)
    }

    static func loadKeyFile(_ path: String) throws -> KeyFile {
        let data = try SecureFiles.read(path)
        do {
            return try KeyFile.decode(data)
        } catch let error as KeyFileError {
            switch error {
            case .parametersOutOfRange(let iterations):
                throw VaultError(
                    .keyFileDamaged,
                    "The key file \(path) asks for \(iterations) key-derivation rounds, outside the allowed range. It is damaged or was tampered with.")
            default:
                throw VaultError(
                    .keyFileDamaged, "The key file \(path) is damaged. Restore it from a backup.", detail: "\(error)")
            }
        }
    }

    /// The first 16 bytes of vault.db are the SQLCipher salt. A salt that differs in most bytes is another vault's
    /// key file; one that differs in a few is a damaged header.
    static func checkDatabaseBelongs(to keyFile: KeyFile, paths: VaultPaths) throws {
        guard SecureFiles.exists(paths.database) else {
            throw VaultError(.databaseDamaged, "The vault database \(paths.database) is missing. Restore it from a backup.")
        }
        let header = try readHeader(paths.database)
        guard header.count == 16 else {
            throw VaultError(.databaseDamaged, "The vault database \(paths.database) is truncated. Restore it from a backup.")
        }
        let differing = zip(header, keyFile.databaseSaltBytes).filter { $0 != $1 }.count
        if differing >= 8 {
            throw VaultError(
                .keyFileMismatch,
                "The key file \(paths.keyFile) does not belong to the database \(paths.database). Put back this vault's own key file.")
        }
        if differing > 0 {
            throw VaultError(.databaseDamaged, "The vault database \(paths.database) has a damaged header. Restore it from a backup.")
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
        return VaultError(.io, "The vault database \(paths.database) could not be opened.", detail: "\(error)")
    }

    static func removeStaleTemporaryFiles(_ paths: VaultPaths) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: paths.directory)) ?? []
        for name in names where name.hasPrefix("vault.key.tmp-") || name == "vault.db.init" {
            unlink(paths.directory + "/" + name)
        }
    }

    /// Keeps keys out of core dumps while the vault is unlocked.
    static func disableCoreDumps() {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
        _ = vault_disable_core_dumps_bridge()
    }
}

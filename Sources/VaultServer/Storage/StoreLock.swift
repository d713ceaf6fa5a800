import Foundation
import VaultAPI
import VaultCore
import VaultModel

/// A classroom's embedded store under SQLCipher (issue 69): a stolen laptop that is off yields nothing readable.
///
/// `server.db` is keyed with a random data key, as a vault's database is; `store-key.json` beside it holds that key
/// wrapped (`KeyFile`, AES-256-GCM under PBKDF2-HMAC-SHA512) by the teacher's passphrase, by a key file kept on
/// removable media for an unattended laptop, or both. Nothing secret is in `store-key.json`. A district's server
/// (on its own machine, or on PostgreSQL) keeps a plaintext store: no such file, and nothing changes for it.
public struct StoreLock: Sendable {
    public static let fileName = "store-key.json"
    /// Where the key file is, for every command (unattended: the systemd unit's environment file names it).
    public static let keyFileVariable = "VAULT_SERVER_STORE_KEY_FILE"
    /// A key file's secret: 32 random bytes, written as 64 hex digits.
    static let keyFileBytes = 32

    public let keyFile: KeyFile

    /// The kernel keyring's name for this store's data key (`vault-server unlock`).
    public var keyringID: String { "server-store-" + keyFile.vaultID }

    /// The lock of the store in `directory`; nil when the store is not encrypted.
    public static func read(directory: String) throws -> StoreLock? {
        let path = directory + "/" + fileName
        guard SecureFiles.exists(path) else { return nil }
        do {
            return StoreLock(keyFile: try KeyFile.decode(try SecureFiles.read(path, limit: KeyFile.Limits.maxFileBytes)))
        } catch {
            throw StoreLockError.damaged(path)
        }
    }

    /// The store's key, opened by a passphrase or a key file's contents.
    public func open(_ secret: SecretBytes) throws -> StoreKey {
        do {
            return StoreKey(key: try keyFile.unlock(password: secret).key, salt: keyFile.databaseSaltBytes)
        } catch {
            throw StoreLockError.wrongSecret
        }
    }

    /// Encrypts the store in `directory`: a new data key, wrapped by `passphrase` (PBKDF2 at `iterations`) and by a
    /// new key file written at `keyFilePath`, either or both; the plaintext `server.db` there, if any, is copied into
    /// the keyed file, which replaces it. Returns the key to open the store with.
    public static func encrypt(directory: String, passphrase: SecretBytes?, keyFilePath: String?, iterations: Int, now: Date) throws -> StoreKey {
        guard passphrase != nil || keyFilePath != nil else { throw StoreLockError.locked }
        try SecureFiles.createDirectory(directory)
        let dataKey = SecretBytes(try CryptoRandom.bytes(32))
        let salt = try CryptoRandom.bytes(16)
        var keyFile = KeyFile(
            vaultID: Hex.encode(try CryptoRandom.bytes(8)),
            databaseSalt: salt,
            cipherPageSize: DatabaseConfiguration().cipherPageSize
        )
        if let passphrase {
            _ = try keyFile.addSlot(label: "passphrase", dataKey: dataKey, password: passphrase, iterations: iterations, createdAt: now)
        }
        if let keyFilePath {
            let secret = Hex.encode(try CryptoRandom.bytes(keyFileBytes))
            // A random secret needs no stretching: the floor of rounds.
            _ = try keyFile.addSlot(
                label: "key-file",
                dataKey: dataKey,
                password: SecretBytes(Array(secret.utf8)),
                iterations: KDFParameters.iterationFloor,
                createdAt: now
            )
            try SecureFiles.createNew(Data((secret + "\n").utf8), at: keyFilePath)
        }
        let key = StoreKey(key: dataKey, salt: salt)
        let database = directory + "/server.db"
        let keyed = database + ".keyed"
        try? FileManager.default.removeItem(atPath: keyed)
        if SecureFiles.exists(database) {
            // The plaintext store so far (a server that served before it became a classroom), copied whole.
            let plain = try Database(path: database, encryption: .plaintext, configuration: DatabaseConfiguration())
            try plain.export(to: keyed, key: key.key, salt: key.salt, cipherPageSize: keyFile.cipherPageSize)
        }
        // The lock first: a store without its lock could never be opened again.
        try SecureFiles.atomicWrite(try keyFile.encoded(), to: directory + "/" + fileName)
        if SecureFiles.exists(keyed) {
            try SecureFiles.rename(keyed, to: database)
            try? FileManager.default.removeItem(atPath: database + "-journal")
            try SecureFiles.syncDirectory(of: database)
        }
        return key
    }

    /// A key file's secret, as `encrypt` wrote it (surrounding white space ignored).
    public static func secret(inKeyFile path: String) throws -> SecretBytes {
        guard let data = try? SecureFiles.read(path, limit: 1024) else { throw StoreLockError.noKeyFile(path) }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return SecretBytes(Array(text.utf8))
    }
}

/// The raw SQLCipher key of an encrypted store and its database salt.
public struct StoreKey: Sendable {
    public var key: SecretBytes
    public var salt: [UInt8]
    public init(key: SecretBytes, salt: [UInt8]) {
        self.key = key
        self.salt = salt
    }
}

public enum StoreLockError: Error, Sendable, CustomStringConvertible, Equatable {
    case damaged(String)
    case wrongSecret
    case noKeyFile(String)
    /// The store is encrypted and nothing opened it.
    case locked

    public var description: String {
        switch self {
        case .damaged(let path): "\(path) is damaged or not a store's key file; the store cannot be opened without it."
        case .wrongSecret: "That passphrase or key file does not open this server's store. Nothing was changed."
        case .noKeyFile(let path): "The key file \(path) cannot be read (is the removable drive in?)."
        case .locked:
            "This classroom's store is encrypted and locked. Run `vault-server unlock` and type its passphrase, or name its key file with --store-key-file or \(StoreLock.keyFileVariable)."
        }
    }
}

import COpenSSL
import Foundation
import Logging
import VaultLanguage

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

func vault_disable_core_dumps_bridge() -> Int32 { vault_disable_core_dumps() }

/// Password and key-slot management, key rotation and reveal.
extension Vault {
    /// Re-wraps the data key of the slot that was unlocked under `newPassword`. Nothing is re-encrypted.
    public func changePassword(to newPassword: SecretBytes, iterations: Int) throws {
        guard !newPassword.isEmpty else { throw VaultError(.usage, tr("The new password is empty. Choose a password of at least one character.")) }
        let slot = try passwordSlot()
        var updated = keyFile
        try mappingKeyFileErrors {
            try updated.replaceSlot(slot, dataKey: dataKey, password: newPassword, iterations: iterations, createdAt: clocks.wall())
            try writeKeyFile(updated)
        }
        logger.info("password changed", metadata: ["slot": "\(slot)"])
    }

    /// The slot the password opened. Changing keys needs the password itself, never a session key.
    func passwordSlot() throws -> Int {
        guard let slot = unlockedSlot else {
            throw VaultError(.notAllowed, tr("Changing the vault's keys needs its password. Run the command again and type the password."))
        }
        return slot
    }

    /// Adds a slot that opens the vault with another password (for example a printed recovery key).
    @discardableResult
    public func addSlot(label: String, password: SecretBytes, iterations: Int) throws -> Int {
        guard !password.isEmpty else { throw VaultError(.usage, tr("The new password is empty. Choose a password of at least one character.")) }
        var updated = keyFile
        let id = try mappingKeyFileErrors {
            let id = try updated.addSlot(label: label, dataKey: dataKey, password: password, iterations: iterations, createdAt: clocks.wall())
            try writeKeyFile(updated)
            return id
        }
        logger.info("key slot added", metadata: ["slot": "\(id)"])
        return id
    }

    /// Removes a slot; never the last one.
    public func removeSlot(_ id: Int) throws {
        guard keyFile.slots.contains(where: { $0.id == id }) else {
            throw VaultError(.usage, tr("There is no key slot {id}. See the slots with `vault key list`.", ["id": id]))
        }
        guard keyFile.slots.count > 1 else {
            throw VaultError(.notAllowed, tr("Slot {id} is the only way to open this vault, so it cannot be removed.", ["id": id]))
        }
        var updated = keyFile
        updated.slots.removeAll { $0.id == id }
        try writeKeyFile(updated)
        logger.info("key slot removed", metadata: ["slot": "\(id)"])
    }

    /// Runs `body` with the vault alone (no other command using it), then shares it again: what replaces the key
    /// file or the database must not run beside an open connection of another command.
    func alone<T>(_ body: () throws -> T) throws -> T {
        try lock.set(.exclusive)
        defer { try? lock.set(.shared) }
        return try body()
    }

    /// A key file limit hit while changing slots, as the plain sentence naming this vault's key file.
    func mappingKeyFileErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as KeyFileError {
            throw error.vaultError(path: paths.named.keyFile)
        }
    }

    func writeKeyFile(_ file: KeyFile) throws {
        try alone { try SecureFiles.atomicWrite(try file.encoded(), to: paths.keyFile) }
        keyFile = file
    }

    /// Keeps the data key in the kernel keyring for `duration` (`vault unlock`), so later commands need no password.
    public func unlockSession(for duration: Duration) throws -> SessionKeyring.Info {
        try SessionKeyring.store(dataKey, vaultID: vaultID, for: duration)
    }

    /// The raw key and salt as the `x'...'` value the stock `sqlcipher` shell accepts with `PRAGMA key`.
    public func revealKey() -> (literal: String, cipherPageSize: Int) {
        let literal = Database.rawKeyLiteral(key: dataKey, salt: keyFile.databaseSaltBytes)
        let text = literal.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        return (text, keyFile.cipherPageSize)
    }

    /// Makes a new data key and re-encrypts everything into a new file, proven before it replaces the old one.
    ///
    /// Other slots cannot be re-wrapped without their passwords, so only the unlocked slot is kept; the labels of
    /// the removed slots are returned so the user can add them again.
    @discardableResult
    public func rotateKey(password: SecretBytes, iterations: Int? = nil) throws -> [String] {
        let slot = try passwordSlot()
        // The database file is replaced: no other command may hold a connection to the old one meanwhile.
        try lock.set(.exclusive)
        defer { try? lock.set(.shared) }
        let newKey = try SecretBytes.random(count: 32)
        let newSalt = try CryptoRandom.bytes(16)
        unlink(paths.rotatingDatabase)
        unlink(paths.rotatingKeyFile)
        do {
            try database.export(to: paths.rotatingDatabase, key: newKey, salt: newSalt, cipherPageSize: keyFile.cipherPageSize)
        } catch let error as DatabaseError {
            unlink(paths.rotatingDatabase)
            throw VaultError(.io, tr("The vault could not be re-encrypted; the old key is still in use."), detail: "\(error)")
        }
        try SecureFiles.fsyncFile(paths.rotatingDatabase)
        try proveRotatedDatabase(key: newKey, salt: newSalt)

        guard let current = keyFile.slots.first(where: { $0.id == slot }) else {
            throw VaultError(.keyFileDamaged, tr("The key slot in use disappeared from the key file."))
        }
        var rotated = KeyFile(vaultID: keyFile.vaultID, databaseSalt: newSalt, cipherPageSize: keyFile.cipherPageSize)
        rotated.slots = [
            try KeySlot.make(
                id: current.id,
                label: current.label,
                dataKey: newKey,
                password: password,
                iterations: iterations ?? current.kdf.iterations,
                format: rotated.format,
                vaultID: rotated.vaultID,
                createdAt: clocks.wall()
            )
        ]
        try SecureFiles.atomicWrite(try rotated.encoded(), to: paths.rotatingKeyFile)
        // Commit point: vault.db is the new file. An interruption after it is finished by the next open.
        try SecureFiles.rename(paths.rotatingDatabase, to: paths.database)
        try SecureFiles.rename(paths.rotatingKeyFile, to: paths.keyFile)
        var configuration = DatabaseConfiguration()
        configuration.cipherPageSize = rotated.cipherPageSize
        database = try Database(path: paths.database, encryption: .rawKey(newKey, salt: newSalt), configuration: configuration)
        let dropped = keyFile.slots.filter { $0.id != slot }.map(\.label)
        keyFile = rotated
        dataKey = newKey
        logger.info("data key rotated", metadata: ["dropped_slots": "\(dropped.count)"])
        return dropped
    }

    private func proveRotatedDatabase(key: SecretBytes, salt: [UInt8]) throws {
        do {
            var configuration = DatabaseConfiguration()
            configuration.cipherPageSize = keyFile.cipherPageSize
            let copy = try Database(path: paths.rotatingDatabase, encryption: .rawKey(key, salt: salt), configuration: configuration)
            let check = try copy.row("PRAGMA integrity_check")?.string(0)
            let tables = ["attempts", "responses", "assessments", "sync_queue", "dead_letters", "settings", "vault_meta"]
            for table in tables {
                guard try copy.scalarInt("SELECT count(*) FROM \(table)") == database.scalarInt("SELECT count(*) FROM \(table)")
                else { throw VaultError(.io, tr("The re-encrypted copy is missing rows of {table}.", ["table": table])) }
            }
            guard check == "ok", try Vault.readHeader(paths.rotatingDatabase) == salt else {
                throw VaultError(.io, tr("The re-encrypted copy did not pass its integrity check."))
            }
        } catch {
            unlink(paths.rotatingDatabase)
            if let error = error as? VaultError { throw error }
            throw VaultError(.io, tr("The re-encrypted copy could not be verified; the old key is still in use."), detail: "\(error)")
        }
    }
}

import Foundation
import Logging
import VaultLanguage

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

/// Finishes or undoes what a crash interrupted, before any password is tried, so that the outcome never depends on
/// which password was typed.
///
/// The rule for both `init` and `key rotate`: a file written before the commit point is a copy that can be
/// rebuilt, and is removed only when the old state is provably intact; a file written after it (or one that the
/// committed database needs) is never removed.
enum VaultRecovery {
    /// What recovery did, for the message after unlocking.
    struct Outcome {
        /// The key file a finished rotation replaced (read before it was replaced), to explain a dropped slot.
        var replacedKeyFile: KeyFile?
        var notices: [String] = []

        /// When the password opens none of the current slots but opened a slot the rotation dropped, the user is
        /// told so, and which slot still works, instead of "wrong password".
        func droppedSlotError(password: SecretBytes, current: KeyFile) -> VaultError? {
            guard let replaced = replacedKeyFile, let old = try? replaced.unlock(password: password),
                let oldSlot = replaced.slots.first(where: { $0.id == old.slotID })
            else { return nil }
            let kept = current.slots.map { "slot \($0.id) (\"\($0.label)\")" }.joined(separator: ", ")
            return VaultError(
                .wrongPassword,
                tr(
                    "An interrupted key rotation was finished, and it kept only {kept}. The password you typed opened slot {id} (\"{label}\"), which the rotation dropped. Open the vault with the password of {kept}, then add this one again with `vault key add`.",
                    ["kept": kept, "id": oldSlot.id, "label": oldSlot.label]
                )
            )
        }
    }

    /// Whether a crash left something to finish (then opening needs the vault alone).
    static func hasInterruptedWrites(paths: VaultPaths) -> Bool {
        SecureFiles.exists(paths.rotatingKeyFile) || SecureFiles.exists(paths.rotatingDatabase)
            || (SecureFiles.exists(paths.stagingDatabase) && !SecureFiles.exists(paths.database))
    }

    static func finishInterruptedWrites(paths: VaultPaths, logger: Logger) throws -> Outcome {
        try finishInterruptedInit(paths: paths, logger: logger)
        return try finishInterruptedRotation(paths: paths, logger: logger)
    }

    /// `init` placed the key file (its commit point) but stopped before renaming the staged database.
    static func finishInterruptedInit(paths: VaultPaths, logger: Logger) throws {
        guard !SecureFiles.exists(paths.database), SecureFiles.exists(paths.stagingDatabase),
            let keyFile = try? Vault.loadKeyFile(paths.keyFile),
            (try? Vault.readHeader(paths.stagingDatabase)) == keyFile.databaseSaltBytes
        else { return }
        try SecureFiles.rename(paths.stagingDatabase, to: paths.database)
        logger.notice("finished an interrupted vault creation")
    }

    /// `key rotate` writes `vault.db.rotating`, then `vault.key.rotating`, then renames the database (the commit
    /// point), then the key file. Whether the commit point was passed is read from the database header (its salt),
    /// never from whether a password opens something.
    static func finishInterruptedRotation(paths: VaultPaths, logger: Logger) throws -> Outcome {
        let hasRotatingKey = SecureFiles.exists(paths.rotatingKeyFile)
        let hasRotatingDatabase = SecureFiles.exists(paths.rotatingDatabase)
        guard hasRotatingKey || hasRotatingDatabase else { return Outcome() }
        let header = try? Vault.readHeader(paths.database)

        if hasRotatingKey, let rotating = try? Vault.loadKeyFile(paths.rotatingKeyFile), header == rotating.databaseSaltBytes {
            // Past the commit point: vault.db is the new database and vault.key.rotating its only key file.
            let replaced = try? Vault.loadKeyFile(paths.keyFile)
            try SecureFiles.rename(paths.rotatingKeyFile, to: paths.keyFile)
            logger.notice("finished an interrupted key rotation")
            var outcome = Outcome(replacedKeyFile: replaced)
            let dropped = (replaced?.slots ?? []).filter { old in !rotating.slots.contains { $0.id == old.id } }
            outcome.notices.append(
                "A key rotation that was interrupted has been finished; the vault now uses its new key."
                    + (dropped.isEmpty
                        ? ""
                        : " It kept only the slot it was started with, so these slots were removed: "
                            + dropped.map { "\($0.id) (\"\($0.label)\")" }.joined(separator: ", ")
                            + ". Add them again with `vault key add`.")
            )
            return outcome
        }

        // Before the commit point the old database and key file are intact and the rotating files are copies being
        // built. Only when that is provably so (vault.db's header is the salt vault.key names) are they removed;
        // any other state is left exactly as it is for a person to look at.
        guard let current = try? Vault.loadKeyFile(paths.keyFile), header == current.databaseSaltBytes else {
            logger.warning("an unfinished key rotation left files that match neither key file; leaving them")
            return Outcome()
        }
        unlink(paths.rotatingDatabase)
        unlink(paths.rotatingKeyFile)
        logger.notice("discarded an unfinished key rotation")
        return Outcome()
    }
}

import Foundation
import VaultLanguage
import VaultModel

/// How a SQLite failure in the middle of a command reads to a student.
extension DatabaseError {
    /// SQLite reports a full disk or a file-size limit as an I/O error; the errno tells them apart.
    public var isDiskFull: Bool {
        resultCode.primaryResultCode == .SQLITE_FULL || [ENOSPC, EFBIG, EDQUOT].contains(systemErrno)
    }

    public var vaultError: VaultError {
        if isDiskFull {
            return VaultError(
                .diskFull,
                tr("The disk is full, so the change could not be saved. Free some space and try again; everything saved before is intact."),
                detail: description
            )
        }
        return switch resultCode.primaryResultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            VaultError(
                .databaseDamaged,
                tr("The vault database is damaged or has been tampered with. Restore it from a backup."),
                detail: description
            )
        case .SQLITE_BUSY:
            VaultError(.busy, tr("The vault is in use by another program. Wait for it to finish, then try again."), detail: description)
        default:
            VaultError(
                .io,
                tr("The vault could not be written. Check the disk and try again; everything saved before is intact."),
                detail: description
            )
        }
    }
}

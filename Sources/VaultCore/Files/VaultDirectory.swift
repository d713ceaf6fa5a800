import Foundation
import VaultLanguage

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

/// The vault directory, opened once with `O_NOFOLLOW | O_DIRECTORY` and held open while the vault is in use.
///
/// Every file operation afterwards goes through `/proc/self/fd/N/...` of this descriptor (SQLite opens files by
/// path, so a path through the descriptor is how it too stays inside the checked directory). The directory must be
/// a real directory (not a symlink), owned by this user, and private.
public final class VaultDirectory {
    public let descriptor: Int32
    public let paths: VaultPaths

    /// Opens `paths.directory`, creating it (0700, parents too) when `create` is set.
    public init(_ paths: VaultPaths, create: Bool) throws {
        let path = paths.directory
        if create { try SecureFiles.createDirectory(path) }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw VaultError(.noVault, tr("There is no vault in {path}. Create one with `vault init`.", ["path": path]))
        }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            throw VaultError(
                .insecureFiles,
                tr(
                    "{path} is a symbolic link, which the vault refuses because it could point anywhere. Use the real directory's path with --vault.",
                    ["path": path]
                )
            )
        }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOTDIR {
                throw VaultError(.cannotCreate, tr("{path} is not a directory. Choose another place for the vault.", ["path": path]))
            }
            throw SecureFiles.ioError("open", path)
        }
        guard fstat(descriptor, &info) == 0 else {
            let error = SecureFiles.ioError("inspect", path)
            close(descriptor)
            throw error
        }
        if info.st_uid != geteuid() {
            close(descriptor)
            let owner = UserName.of(uid: info.st_uid)
            throw VaultError(
                .insecureFiles,
                tr(
                    "{path} belongs to another user ({owner}), so the vault refuses it. Use a directory of your own, or have it handed to you with `chown`.",
                    ["path": path, "owner": owner]
                )
            )
        }
        if info.st_mode & 0o077 != 0 {
            if create {
                fchmod(descriptor, 0o700)
            } else {
                close(descriptor)
                throw VaultError(.insecureFiles, tr("{path} can be read by other users. Run `chmod 700 {path}` and try again.", ["path": path]))
            }
        }
        self.descriptor = descriptor
        let anchor = "/proc/self/fd/\(descriptor)"
        self.paths = access(anchor, F_OK) == 0 ? paths.anchored(at: anchor) : paths
    }

    deinit { close(descriptor) }
}

/// A user name for a uid, for messages and reports.
public enum UserName {
    public static func of(uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return String(cString: name)
    }
}

import Foundation
import VaultLanguage

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

/// File operations with the vault's rules: 0700 directories, 0600 files, no symlinks, atomic replacement.
public enum SecureFiles {
    /// Makes every file this process creates private, whatever the caller's umask.
    public static func restrictUmask() { umask(0o077) }

    /// Creates `path` as a 0700 directory (and its parents) or checks an existing one.
    public static func createDirectory(_ path: String) throws {
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw VaultError(.cannotCreate, tr("{path} exists and is not a directory. Choose another place for the vault.", ["path": path]))
            }
            if info.st_mode & 0o077 != 0 { chmod(path, 0o700) }
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw VaultError(
                .cannotCreate,
                tr("Could not create the directory {path}. Check that you may write there.", ["path": path]),
                detail: "\(error)"
            )
        }
        chmod(path, 0o700)
    }

    /// Refuses a path that is a symlink or readable by others, saying how to fix it.
    public static func checkPrivate(_ rawPath: String, isDirectory: Bool) throws {
        var info = stat()
        guard lstat(rawPath, &info) == 0 else { return }
        let path = shown(rawPath)
        if (info.st_mode & S_IFMT) == S_IFLNK {
            throw VaultError(
                .insecureFiles,
                isDirectory
                    ? tr("{path} is a symbolic link, which the vault refuses. Replace it with the real directory.", ["path": path])
                    : tr("{path} is a symbolic link, which the vault refuses. Replace it with the real file.", ["path": path])
            )
        }
        if info.st_mode & 0o077 != 0 {
            let mode = isDirectory ? "700" : "600"
            throw VaultError(
                .insecureFiles,
                tr("{path} can be read by other users. Run `chmod {mode} {path}` and try again.", ["path": path, "mode": mode])
            )
        }
    }

    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    public static func size(_ path: String) -> Int {
        var info = stat()
        return lstat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// Reads a whole (small) file that must be a regular, private file.
    public static func read(_ path: String, limit: Int = 1 << 20) throws -> Data {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw ioError("read", path) }
        defer { close(descriptor) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ioError("read", path)
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[0..<count])
            if data.count > limit {
                throw VaultError(.invalidData, tr("{path} is larger than expected ({limit} bytes at most).", ["path": path, "limit": limit]))
            }
        }
    }

    /// Replaces `path` with `data` so that a crash leaves either the old or the new file:
    /// write a temporary file, fsync it, rename it over the target, fsync the directory.
    public static func atomicWrite(_ data: Data, to path: String) throws {
        let temporary = try writeTemporary(data, beside: path)
        do {
            try rename(temporary, to: path)
        } catch {
            unlink(temporary)  // a copy of bytes the caller still holds; the target is untouched
            throw error
        }
    }

    /// Places `data` at `path` only if nothing is there yet (`link()` never replaces): of two processes creating
    /// the same file at once, exactly one succeeds and the other gets `.vaultExists`. When it returns, the file is
    /// in place; the directory is not synced here: the caller's next rename in the same directory syncs both (and a
    /// failure to sync must not be mistaken for the file not being there: after a commit point that matters).
    public static func createNew(_ data: Data, at path: String) throws {
        let temporary = try writeTemporary(data, beside: path)
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST {
                throw VaultError(.vaultExists, tr("{path} already exists. It was left untouched.", ["path": shown(path)]))
            }
            throw ioError("create", path)
        }
    }

    /// A fully written, fsynced private file next to `path` (same directory, so a rename or link stays atomic).
    private static func writeTemporary(_ data: Data, beside path: String) throws -> String {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ioError("create", temporary) }
        do {
            try writeAll(descriptor, data, path: temporary)
            guard fchmod(descriptor, 0o600) == 0, fsync(descriptor) == 0 else { throw ioError("sync", temporary) }
            close(descriptor)
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        return temporary
    }

    /// Renames and then fsyncs the containing directory so the new name is durable.
    ///
    /// A failed rename leaves both files as they were: after a commit point the source may be the only copy of
    /// something (a rotated key file), so it is never removed here.
    public static func rename(_ source: String, to destination: String) throws {
        guard Glibc.rename(source, destination) == 0 else { throw ioError("rename", destination) }
        try syncDirectory(of: destination)
    }

    public static func syncDirectory(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ioError("open", directory) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw ioError("sync", directory) }
    }

    public static func fsyncFile(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw ioError("open", path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw ioError("sync", path) }
    }

    /// A path as a person knows it: `/proc/self/fd/N/name` (how the vault reaches its directory) becomes the
    /// directory's own path.
    public static func shown(_ path: String) -> String {
        let prefix = "/proc/self/fd/"
        guard path.hasPrefix(prefix) else { return path }
        let rest = path.dropFirst(prefix.count)
        let number = rest.prefix { $0.isNumber }
        let tail = rest.dropFirst(number.count)
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(prefix + number, &buffer, buffer.count - 1)
        guard length > 0 else { return path }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) + tail
    }

    static func writeAll(_ descriptor: Int32, _ data: Data, path: String) throws {
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw ioError("write", path)
                }
                offset += written
            }
        }
    }

    /// An I/O error from `errno`, worded for a person: a full disk says so.
    public static func ioError(_ operation: String, _ rawPath: String) -> VaultError {
        let code = errno
        let path = shown(rawPath)
        let reason = String(cString: strerror(code))
        switch code {
        case ENOSPC, EDQUOT, EFBIG:
            return VaultError(
                .diskFull,
                tr("The disk is full, so {path} could not be written. Free some space and try again; nothing was lost.", ["path": path]),
                detail: "\(operation): \(reason)"
            )
        case EACCES, EPERM:
            return VaultError(
                .io,
                tr("Permission denied for {path}. Check who owns the vault directory.", ["path": path]),
                detail: "\(operation): \(reason)"
            )
        case ELOOP:
            return VaultError(.insecureFiles, tr("{path} is a symbolic link, which the vault refuses.", ["path": path]), detail: operation)
        default:
            return VaultError(
                .io,
                tr("{path} could not be used. Check the disk and try again; everything saved before is intact.", ["path": path]),
                detail: "\(operation): \(reason) (errno \(code))"
            )
        }
    }
}

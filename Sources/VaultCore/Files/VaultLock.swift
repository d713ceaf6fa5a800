import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One writer at a time across processes and within one: an open-file-description lock on `vault.lock`.
///
/// OFD locks (byte 0) conflict even inside one process, but do not name their owner; a classic POSIX lock on
/// byte 1 is taken beside it only so that `F_GETLK` can tell a waiting process who holds the vault. The lock file
/// is never written, so a refused open changes no file.
public final class VaultLock {
    private let descriptor: Int32
    private static let ofdSetLock: Int32 = 37  // F_OFD_SETLK, not exported by Glibc's Swift overlay

    /// Takes the lock, waiting up to `wait` seconds, then throws `.busy` naming the holder when it can.
    public init(path: String, wait: Duration = .seconds(3)) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SecureFiles.ioError("open", path) }
        self.descriptor = descriptor
        let deadline = ContinuousClock.now + wait
        while true {
            var exclusive = Self.range(start: 0)
            if fcntl(descriptor, Self.ofdSetLock, &exclusive) == 0 {
                var owner = Self.range(start: 1)
                _ = fcntl(descriptor, F_SETLK, &owner)
                return
            }
            guard errno == EACCES || errno == EAGAIN else {
                close(descriptor)
                throw SecureFiles.ioError("lock", path)
            }
            if ContinuousClock.now >= deadline {
                var probe = Self.range(start: 1)
                let holder =
                    fcntl(descriptor, F_GETLK, &probe) == 0 && probe.l_type != Int16(F_UNLCK) && probe.l_pid > 0
                    ? Int(probe.l_pid) : nil
                close(descriptor)
                let who = holder.map { " (process \($0))" } ?? ""
                throw VaultError(
                    .busy,
                    "The vault is in use by another vault command\(who). Wait for it to finish, then try again."
                )
            }
            usleep(50_000)
        }
    }

    private static func range(start: Int) -> flock {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(start)
        lock.l_len = 1
        return lock
    }

    deinit { close(descriptor) }
}

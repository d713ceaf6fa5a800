import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One writer at a time across processes: a POSIX record lock on `vault.lock`.
///
/// The lock file is never written, so a refused open changes no file. `F_GETLK` names the process holding it.
public final class VaultLock {
    private let descriptor: Int32

    /// Takes the lock, waiting up to `wait` seconds, then throws `.busy` naming the holder.
    public init(path: String, wait: Duration = .seconds(3)) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SecureFiles.ioError("open", path) }
        self.descriptor = descriptor
        let deadline = ContinuousClock.now + wait
        while true {
            var lock = flock()
            lock.l_type = Int16(F_WRLCK)
            lock.l_whence = Int16(SEEK_SET)
            if fcntl(descriptor, F_SETLK, &lock) == 0 { return }
            guard errno == EACCES || errno == EAGAIN else {
                close(descriptor)
                throw SecureFiles.ioError("lock", path)
            }
            if ContinuousClock.now >= deadline {
                var probe = flock()
                probe.l_type = Int16(F_WRLCK)
                probe.l_whence = Int16(SEEK_SET)
                let holder = fcntl(descriptor, F_GETLK, &probe) == 0 && probe.l_type != Int16(F_UNLCK) ? Int(probe.l_pid) : nil
                close(descriptor)
                let who = holder.map { " (process \($0))" } ?? ""
                throw VaultError(
                    .busy, "The vault is in use by another vault command\(who). Wait for it to finish, then try again.")
            }
            usleep(50_000)
        }
    }

    deinit { close(descriptor) }
}

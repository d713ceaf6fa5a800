import Foundation
import VaultLanguage

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

/// Who may use the vault at once, across processes and within one: an open-file-description lock on `vault.lock`.
///
/// Commands hold it **shared** for as long as they run: several may use the vault at once (an open `take` screen
/// and `sync --watch` beside it), and SQLite's own transaction locks order their writes. What replaces files or
/// changes the schema holds it **exclusive**: creating a vault, finishing an interrupted rotation, a migration,
/// `passwd`, `key add|remove|rotate`. They wait until no other command uses the vault, so no open connection can
/// ever keep writing to a database file that a rotation replaced.
///
/// OFD locks (byte 0) conflict even inside one process, but do not name their owner; a classic POSIX lock on
/// byte 1 is taken beside it only so that `F_GETLK` can tell a waiting process who holds the vault. The lock file
/// is never written, so a refused open changes no file.
public final class VaultLock {
    public enum Mode: Sendable { case shared, exclusive }

    private let descriptor: Int32
    private let path: String
    public private(set) var mode: Mode
    private static let ofdSetLock: Int32 = 37  // F_OFD_SETLK, not exported by Glibc's Swift overlay

    /// Takes the lock in `mode`, waiting up to `wait`, then throws `.busy` naming the holder when it can.
    public init(path: String, wait: Duration = .seconds(3), mode: Mode = .exclusive) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SecureFiles.ioError("open", path) }
        self.descriptor = descriptor
        self.path = path
        self.mode = mode
        do {
            try acquire(mode, wait: wait)
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// Changes the mode: a downgrade to shared never waits; an upgrade waits up to `wait` for other users to leave.
    public func set(_ mode: Mode, wait: Duration = .seconds(3)) throws {
        guard mode != self.mode else { return }
        try acquire(mode, wait: wait)
        self.mode = mode
    }

    /// This lock, shared (the state every command runs in once the vault is open).
    func downgraded() throws -> VaultLock {
        try set(.shared)
        return self
    }

    private func acquire(_ mode: Mode, wait: Duration) throws {
        let type = Int16(mode == .exclusive ? F_WRLCK : F_RDLCK)
        let deadline = ContinuousClock.now + wait
        while true {
            var main = Self.range(start: 0, type: type)
            if fcntl(descriptor, Self.ofdSetLock, &main) == 0 {
                var owner = Self.range(start: 1, type: type)
                _ = fcntl(descriptor, F_SETLK, &owner)
                return
            }
            guard errno == EACCES || errno == EAGAIN else { throw SecureFiles.ioError("lock", path) }
            if ContinuousClock.now >= deadline {
                var probe = Self.range(start: 1, type: type)
                let holder =
                    fcntl(descriptor, F_GETLK, &probe) == 0 && probe.l_type != Int16(F_UNLCK) && probe.l_pid > 0
                    ? Int(probe.l_pid) : nil
                let who = holder.map { tr("another vault command (process {pid})", ["pid": "\($0)"]) } ?? tr("another vault command")
                throw VaultError(
                    .busy,
                    mode == .exclusive
                        ? tr(
                            "The vault is in use by {who}, and this needs it alone. Wait for that one to finish (or close `vault take`), then try again.",
                            ["who": who]
                        )
                        : tr("The vault is in use by {who}. Wait for it to finish, then try again.", ["who": who])
                )
            }
            usleep(50_000)
        }
    }

    private static func range(start: Int, type: Int16) -> flock {
        var lock = flock()
        lock.l_type = type
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(start)
        lock.l_len = 1
        return lock
    }

    deinit { close(descriptor) }
}

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Who serves a data directory: `serve` holds a shared `flock` on `serving.lock` there for as long as it runs (the
/// kernel lets go when the process ends, even by kill -9). `classroom init` takes it exclusively before it turns the
/// store into a classroom's: it locks the store under SQLCipher (issue 69), which cannot happen under a server that
/// has the plaintext file open, so a running `serve` is said in a sentence and nothing changes.
public final class ServingLock: Sendable {
    public static let fileName = "serving.lock"
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// The lock of `directory`'s store, held until this value goes; nil when another process holds it in a way that
    /// excludes this one (`exclusive`: any holder).
    public static func take(directory: String, exclusive: Bool) throws -> ServingLock? {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let descriptor = open(directory + "/" + fileName, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: directory + "/" + fileName]) }
        guard flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return ServingLock(descriptor: descriptor)
    }
}

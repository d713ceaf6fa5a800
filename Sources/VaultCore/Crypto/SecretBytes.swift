import COpenSSL
import Foundation

/// Key material or a password in memory that is wiped with `OPENSSL_cleanse` when released.
///
/// A class, so a secret is never silently copied; `description` never shows the bytes. Its bytes are written only
/// while it is made (`init(count:initializingWith:)`) and read-only afterwards, which is what makes sharing it
/// across threads safe (hence `@unchecked Sendable`: the buffer is a raw pointer the compiler cannot check).
public final class SecretBytes: @unchecked Sendable, CustomStringConvertible {
    private let buffer: UnsafeMutableRawBufferPointer

    public init(count: Int) {
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 0), alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    /// Copies `bytes`. The caller's array is not wiped (Swift may hold further copies of it): keep secrets out of
    /// arrays and Strings where possible, and drop them at once where not.
    public convenience init(_ bytes: [UInt8]) {
        self.init(count: bytes.count)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress, let destination = buffer.baseAddress {
                destination.copyMemory(from: base, byteCount: source.count)
            }
        }
    }

    /// `count` bytes written by `body`, the only time they can be written.
    public convenience init(count: Int, initializingWith body: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        self.init(count: count)
        try body(buffer)
    }

    /// Random bytes from OpenSSL's CSPRNG.
    public static func random(count: Int) throws -> SecretBytes {
        try SecretBytes(count: count) { try CryptoRandom.fill($0) }
    }

    deinit {
        if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
        buffer.deallocate()
    }

    public var count: Int { buffer.count }
    public var isEmpty: Bool { buffer.isEmpty }
    public var isAllZero: Bool { buffer.allSatisfy { $0 == 0 } }

    public func withUnsafeBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(buffer))
    }

    /// Constant-time comparison.
    public func isEqual(to other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { mine in
            other.withUnsafeBytes { theirs in
                CRYPTO_memcmp(mine.baseAddress, theirs.baseAddress, count) == 0
            }
        }
    }

    /// A copy whose trailing ASCII whitespace (a newline from a password file) is removed.
    public func trimmingTrailingNewlines() -> SecretBytes {
        var end = count
        while end > 0, buffer[end - 1] == 0x0A || buffer[end - 1] == 0x0D { end -= 1 }
        return prefix(end)
    }

    /// A copy of the first `length` bytes.
    public func prefix(_ length: Int) -> SecretBytes {
        let length = min(max(length, 0), count)
        return SecretBytes(count: length) { destination in
            if let target = destination.baseAddress, let source = buffer.baseAddress, length > 0 {
                target.copyMemory(from: source, byteCount: length)
            }
        }
    }

    public var description: String { "SecretBytes(\(count) bytes, redacted)" }
}

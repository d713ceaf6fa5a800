import COpenSSL
import Foundation

/// Key material or a password in memory that is wiped with `OPENSSL_cleanse` when released.
///
/// A class, so a secret is never silently copied; `description` never shows the bytes.
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

    /// Random bytes from OpenSSL's CSPRNG.
    public static func random(count: Int) throws -> SecretBytes {
        let secret = SecretBytes(count: count)
        try secret.withUnsafeMutableBytes { try CryptoRandom.fill($0) }
        return secret
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

    public func withUnsafeMutableBytes<T>(_ body: (UnsafeMutableRawBufferPointer) throws -> T) rethrows -> T {
        try body(buffer)
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
        let copy = SecretBytes(count: end)
        copy.withUnsafeMutableBytes { destination in
            if let target = destination.baseAddress, let source = buffer.baseAddress, end > 0 {
                target.copyMemory(from: source, byteCount: end)
            }
        }
        return copy
    }

    public var description: String { "SecretBytes(\(count) bytes, redacted)" }
}

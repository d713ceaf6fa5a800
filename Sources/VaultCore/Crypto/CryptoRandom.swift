import COpenSSL

/// OpenSSL's CSPRNG (`RAND_bytes`).
public enum CryptoRandom {
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        guard RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1 else {
            throw CryptoError(.randomFailed, operation: "RAND_bytes")
        }
    }

    public static func bytes(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        try bytes.withUnsafeMutableBytes { try fill($0) }
        return bytes
    }
}

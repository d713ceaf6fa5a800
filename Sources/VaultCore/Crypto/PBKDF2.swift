import COpenSSL

/// PBKDF2 (RFC 8018) through OpenSSL's `PKCS5_PBKDF2_HMAC`.
public enum PBKDF2 {
    public enum Hash: String, Sendable, Codable {
        case sha256 = "pbkdf2-hmac-sha256"
        case sha512 = "pbkdf2-hmac-sha512"

        var digest: OpaquePointer? { self == .sha256 ? EVP_sha256() : EVP_sha512() }
    }

    public static func derive(
        password: SecretBytes,
        salt: [UInt8],
        iterations: Int,
        hash: Hash = .sha512,
        keyLength: Int = 32
    ) throws -> SecretBytes {
        guard iterations > 0, iterations <= Int(Int32.max), keyLength > 0 else {
            throw CryptoError(.kdfFailed, operation: "PBKDF2 parameters")
        }
        var status: Int32 = 0
        let output = SecretBytes(count: keyLength) { outputBytes in
            status = password.withUnsafeBytes { passwordBytes in
                PKCS5_PBKDF2_HMAC(
                    passwordBytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                    Int32(passwordBytes.count),
                    salt,
                    Int32(salt.count),
                    Int32(iterations),
                    hash.digest,
                    Int32(keyLength),
                    outputBytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
                )
            }
        }
        guard status == 1 else { throw CryptoError(.kdfFailed, operation: "PKCS5_PBKDF2_HMAC") }
        return output
    }
}

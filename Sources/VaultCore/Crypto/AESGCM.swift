import COpenSSL

/// AES-256-GCM through OpenSSL's EVP interface, with a 12-byte nonce and a 16-byte tag.
public enum AESGCM {
    public struct SealedBox: Sendable, Equatable {
        public var nonce: [UInt8]
        public var ciphertext: [UInt8]
        public var tag: [UInt8]
    }

    public static func seal(
        _ plaintext: SecretBytes,
        key: SecretBytes,
        nonce: [UInt8]? = nil,
        associatedData: [UInt8]
    ) throws -> SealedBox {
        guard key.count == 32 else { throw CryptoError(.cipherFailed, operation: "AES-256-GCM key length") }
        let nonce = try nonce ?? CryptoRandom.bytes(12)
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError(.cipherFailed, operation: "EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: 16)
        var length: Int32 = 0
        let ok = key.withUnsafeBytes { keyBytes -> Bool in
            guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil) == 1,
                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.count), nil) == 1,
                EVP_EncryptInit_ex(context, nil, nil, keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), nonce) == 1
            else { return false }
            if !associatedData.isEmpty {
                guard EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else { return false }
            }
            let updated = plaintext.withUnsafeBytes { input in
                ciphertext.withUnsafeMutableBufferPointer { output in
                    input.isEmpty
                        ? 1
                        : EVP_EncryptUpdate(
                            context,
                            output.baseAddress,
                            &length,
                            input.baseAddress?.assumingMemoryBound(to: UInt8.self),
                            Int32(input.count)
                        )
                }
            }
            guard updated == 1 else { return false }
            var finalLength: Int32 = 0
            let finished = ciphertext.withUnsafeMutableBufferPointer { output in
                EVP_EncryptFinal_ex(context, output.baseAddress.map { $0 + Int(length) }, &finalLength)
            }
            return finished == 1 && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1
        }
        guard ok else { throw CryptoError(.cipherFailed, operation: "AES-256-GCM seal") }
        return SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag)
    }

    /// Decrypts and authenticates; a wrong key, nonce, tag or associated data throws `.authenticationFailed`.
    public static func open(_ box: SealedBox, key: SecretBytes, associatedData: [UInt8]) throws -> SecretBytes {
        guard key.count == 32, box.tag.count == 16, !box.nonce.isEmpty else {
            throw CryptoError(.authenticationFailed, operation: "AES-256-GCM parameters")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError(.cipherFailed, operation: "EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        var length: Int32 = 0
        var tag = box.tag
        var ok = false
        // Decrypted straight into the wiped buffer; it is handed out only if the tag verified.
        let plaintext = SecretBytes(count: box.ciphertext.count) { output in
            ok = key.withUnsafeBytes { keyBytes -> Bool in
                guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil) == 1,
                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(box.nonce.count), nil) == 1,
                    EVP_DecryptInit_ex(context, nil, nil, keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), box.nonce) == 1
                else { return false }
                if !associatedData.isEmpty {
                    guard EVP_DecryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else { return false }
                }
                let updated =
                    box.ciphertext.isEmpty
                    ? 1
                    : EVP_DecryptUpdate(
                        context,
                        output.baseAddress?.assumingMemoryBound(to: UInt8.self),
                        &length,
                        box.ciphertext,
                        Int32(box.ciphertext.count)
                    )
                guard updated == 1, EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1 else { return false }
                var finalLength: Int32 = 0
                var scratch = [UInt8](repeating: 0, count: 16)
                return EVP_DecryptFinal_ex(context, &scratch, &finalLength) == 1
            }
        }
        guard ok else { throw CryptoError(.authenticationFailed, operation: "AES-256-GCM open") }
        return plaintext
    }
}

import Foundation
import VaultAPI

/// One way to unlock the vault: the data key wrapped with AES-256-GCM under a password-derived key.
public struct KeySlot: Codable, Sendable, Equatable {
    public var id: Int
    /// What the slot is for ("password", "recovery"), chosen by the user; never secret.
    public var label: String
    public var createdAt: String
    public var kdf: KDFParameters
    public var nonce: String
    public var wrappedKey: String
    public var tag: String

    enum CodingKeys: String, CodingKey {
        case id, label, kdf, nonce, tag
        case createdAt = "created_at"
        case wrappedKey = "wrapped_key"
    }

    /// Wraps `dataKey` for a new slot.
    static func make(
        id: Int,
        label: String,
        dataKey: SecretBytes,
        password: SecretBytes,
        iterations: Int,
        format: Int,
        vaultID: String,
        createdAt: Date
    ) throws -> KeySlot {
        let kdf = KDFParameters(iterations: iterations, salt: try CryptoRandom.bytes(32))
        try kdf.validate()
        let wrappingKey = try kdf.deriveKey(from: password)
        var slot = KeySlot(
            id: id,
            label: label,
            createdAt: Timestamp.string(createdAt),
            kdf: kdf,
            nonce: "",
            wrappedKey: "",
            tag: ""
        )
        let box = try AESGCM.seal(dataKey, key: wrappingKey, associatedData: slot.associatedData(format: format, vaultID: vaultID))
        slot.nonce = Data(box.nonce).base64EncodedString()
        slot.wrappedKey = Data(box.ciphertext).base64EncodedString()
        slot.tag = Data(box.tag).base64EncodedString()
        return slot
    }

    /// The data key, or `.wrongPassword` when the GCM tag does not verify (wrong password or tampered slot).
    func unwrap(password: SecretBytes, format: Int, vaultID: String) throws -> SecretBytes {
        try kdf.validate()
        guard let nonce = Data(base64Encoded: nonce), let ciphertext = Data(base64Encoded: wrappedKey),
            let tag = Data(base64Encoded: tag), nonce.count == 12, ciphertext.count == 32, tag.count == 16
        else { throw KeyFileError.malformed("slot \(id) has a malformed wrapped key") }
        let wrappingKey = try kdf.deriveKey(from: password)
        do {
            return try AESGCM.open(
                .init(nonce: Array(nonce), ciphertext: Array(ciphertext), tag: Array(tag)),
                key: wrappingKey,
                associatedData: associatedData(format: format, vaultID: vaultID)
            )
        } catch {
            throw KeyFileError.wrongPassword
        }
    }

    /// Binds the format, vault, slot and KDF parameters to the wrapped key: changing any of them fails the tag.
    func associatedData(format: Int, vaultID: String) -> [UInt8] {
        Array("vault-key-slot|\(format)|\(vaultID)|\(id)|\(kdf.algorithm.rawValue)|\(kdf.iterations)|\(kdf.salt)".utf8)
    }
}

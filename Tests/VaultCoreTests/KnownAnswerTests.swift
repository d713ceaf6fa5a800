import Foundation
import Testing
import VaultCore
import VaultModel

/// Published vectors kept in Keys/known-answer-vectors.json, run against our OpenSSL wrappers.
struct KnownAnswerTests {
    struct Vectors: Decodable {
        struct PBKDF2Vector: Decodable {
            let source, hash, password, salt, expected: String
            let iterations, length: Int
        }
        struct GCMVector: Decodable {
            let source, key, nonce, plaintext, aad, ciphertext, tag: String
        }
        let pbkdf2: [PBKDF2Vector]
        let aes256gcm: [GCMVector]
    }

    static let vectors: Vectors = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let data = try! Data(contentsOf: root.appendingPathComponent("Keys/known-answer-vectors.json"))
        return try! JSONDecoder().decode(Vectors.self, from: data)
    }()

    @Test("PBKDF2-HMAC-SHA256 and SHA512 match published vectors", arguments: vectors.pbkdf2.indices)
    func pbkdf2(index: Int) throws {
        let vector = Self.vectors.pbkdf2[index]
        let derived = try PBKDF2.derive(
            password: SecretBytes(Array(vector.password.utf8)),
            salt: Array(vector.salt.utf8),
            iterations: vector.iterations,
            hash: vector.hash == "sha256" ? .sha256 : .sha512,
            keyLength: vector.length
        )
        #expect(derived.withUnsafeBytes { Hex.encode($0) } == vector.expected, "\(vector.source)")
    }

    @Test("AES-256-GCM seals and opens the NIST vectors", arguments: vectors.aes256gcm.indices)
    func gcm(index: Int) throws {
        let vector = Self.vectors.aes256gcm[index]
        let key = SecretBytes(Hex.decode(vector.key)!)
        let box = try AESGCM.seal(
            SecretBytes(Hex.decode(vector.plaintext)!),
            key: key,
            nonce: Hex.decode(vector.nonce)!,
            associatedData: Hex.decode(vector.aad)!
        )
        #expect(Hex.encode(box.ciphertext) == vector.ciphertext, "\(vector.source)")
        #expect(Hex.encode(box.tag) == vector.tag, "\(vector.source)")
        let opened = try AESGCM.open(box, key: key, associatedData: Hex.decode(vector.aad)!)
        #expect(opened.withUnsafeBytes { Hex.encode($0) } == vector.plaintext)
    }

    @Test("a flipped tag, ciphertext or associated data byte fails authentication")
    func gcmTamper() throws {
        let key = try SecretBytes.random(count: 32)
        let box = try AESGCM.seal(SecretBytes(Array("secret".utf8)), key: key, associatedData: [1, 2, 3])
        var badTag = box
        badTag.tag[0] ^= 1
        var badText = box
        badText.ciphertext[0] ^= 1
        #expect(throws: CryptoError.self) { try AESGCM.open(badTag, key: key, associatedData: [1, 2, 3]) }
        #expect(throws: CryptoError.self) { try AESGCM.open(badText, key: key, associatedData: [1, 2, 3]) }
        #expect(throws: CryptoError.self) { try AESGCM.open(box, key: key, associatedData: [1, 2, 4]) }
        #expect(throws: CryptoError.self) { try AESGCM.open(box, key: try SecretBytes.random(count: 32), associatedData: [1, 2, 3]) }
    }

    @Test("secret bytes never print their content")
    func secretDescription() {
        let secret = SecretBytes(Array("hunter2".utf8))
        #expect(!"\(secret)".contains("hunter2"))
        #expect(!String(reflecting: secret).contains("hunter2"))
    }
}

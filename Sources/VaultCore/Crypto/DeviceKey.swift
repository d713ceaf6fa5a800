import Crypto
import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

/// A vault's own Ed25519 key: made once, kept inside the encrypted vault, registered with the server at login
/// (bound to the user), and used to sign hand-in files, so that nobody can hand in for a student from a device the
/// student never signed in from.
public struct DeviceKey: Sendable {
    private let key: Curve25519.Signing.PrivateKey

    public init() { key = Curve25519.Signing.PrivateKey() }

    public init(material: Data) throws {
        do {
            key = try Curve25519.Signing.PrivateKey(rawRepresentation: material)
        } catch {
            throw VaultError(.databaseDamaged, tr("This vault's signing key cannot be read. Run `vault verify`."))
        }
    }

    /// What the vault keeps (secret: never logged, never leaves the encrypted database).
    public var material: Data { key.rawRepresentation }

    /// The raw 32-byte public key, base64: what the server registers.
    public var publicKey: String { key.publicKey.rawRepresentation.base64EncodedString() }

    public func signature(for bytes: Data) throws -> String { Data(try key.signature(for: bytes)).base64EncodedString() }

    /// Whether `signature` is `publicKey`'s over `bytes` (false for anything malformed).
    public static func isValid(signature: String, for bytes: Data, publicKey: String) -> Bool {
        Signatures.isValid(signature, for: bytes, publicKey: publicKey)
    }

    /// A short name for a public key (first 8 bytes of its SHA-256, in groups of 4 hex digits), for people.
    public static func fingerprint(publicKey: String) -> String {
        let digest = Hex.encode(Crypto.SHA256.hash(data: Data(base64Encoded: publicKey) ?? Data(publicKey.utf8)))
        return stride(from: 0, to: 16, by: 4).map { String(Array(digest)[$0..<$0 + 4]) }.joined(separator: ":")
    }
}

/// The plaintext inside a hand-in file: the payload's canonical JSON, signed by the vault's device key.
public struct SignedHandIn: Codable, Sendable, Equatable {
    public var payload: String
    public var deviceKey: String
    public var signature: String
    enum CodingKeys: String, CodingKey {
        case payload, signature
        case deviceKey = "device_key"
    }
    public init(payload: String, deviceKey: String, signature: String) {
        self.payload = payload
        self.deviceKey = deviceKey
        self.signature = signature
    }

    /// The payload when the signature is the named key's over its exact bytes.
    public func verified() throws -> HandInPayload {
        guard DeviceKey.isValid(signature: signature, for: Data(payload.utf8), publicKey: deviceKey),
            let value = try? JSONDecoder().decode(HandInPayload.self, from: Data(payload.utf8))
        else { throw HandInError.badSignature }
        return value
    }
}

extension DeviceKey {
    /// A hand-in signed by this key (its record signed already, and named by that signature): what lets a classroom
    /// server pass it on to the district, from a sync or from a hand-in file.
    public func signed(_ request: SubmissionRequest) throws -> SubmissionRequest {
        var request = request
        request.deviceKey = publicKey
        request.signature = nil
        request.signature = try signature(for: request.signedStatement())
        return request
    }

    /// An answer signed by this key, as a hand-in file carries it (a classroom passes it on to the district).
    public func signed(_ item: ResponseItem) throws -> ResponseItem {
        var item = item
        item.signature = nil
        item.signature = try signature(for: AnswerSignature.statement(item))
        return item
    }
}

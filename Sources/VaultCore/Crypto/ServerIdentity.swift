import Crypto
import Foundation
import VaultAPI
import VaultModel

/// The server's identity: an Ed25519 key pair that signs receipts and an X25519 key pair that hand-in files are
/// encrypted to. Kept in the server's database (every process of a deployment signs with the same key).
public struct ServerIdentity: Sendable {
    private let signing: Curve25519.Signing.PrivateKey
    private let agreement: Curve25519.KeyAgreement.PrivateKey

    /// A new random identity.
    public init() {
        signing = Curve25519.Signing.PrivateKey()
        agreement = Curve25519.KeyAgreement.PrivateKey()
    }

    /// From `material` (as stored): the two 32-byte private keys, signing first.
    public init(material: Data) throws {
        guard material.count == 64 else { throw ReceiptError.badKeyMaterial }
        do {
            signing = try Curve25519.Signing.PrivateKey(rawRepresentation: material.prefix(32))
            agreement = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: material.suffix(32))
        } catch {
            throw ReceiptError.badKeyMaterial
        }
    }

    /// The X25519 private key hand-in files are opened with.
    var agreementKey: Curve25519.KeyAgreement.PrivateKey { agreement }

    /// The signing key's private bytes, for keys derived from it (`PackageSlip.code`); secret.
    var signingMaterial: Data { signing.rawRepresentation }

    /// What the store keeps (secret: never logged, never served).
    public var material: Data { signing.rawRepresentation + agreement.rawRepresentation }

    public var publicKey: ServerPublicKey {
        ServerPublicKey(signing: signing.publicKey, agreement: agreement.publicKey)
    }

    /// An Ed25519 signature over `bytes`.
    public func signature(for bytes: Data) throws -> Data { Data(try signing.signature(for: bytes)) }

    /// Signs `statement` (its canonical JSON is what is signed, and what the receipt carries).
    public func sign(_ statement: ReceiptStatement) throws -> SignedReceipt {
        let bytes = try CanonicalJSON.encode(statement)
        let signature = try signing.signature(for: bytes)
        return SignedReceipt(statement: String(decoding: bytes, as: UTF8.self), signature: Data(signature).base64EncodedString())
    }
}

/// The public half of a server's identity, as served and as pinned in a vault.
public struct ServerPublicKey: Sendable, Equatable {
    let signing: Curve25519.Signing.PublicKey
    let agreement: Curve25519.KeyAgreement.PublicKey

    public static func == (a: ServerPublicKey, b: ServerPublicKey) -> Bool {
        a.signing.rawRepresentation == b.signing.rawRepresentation && a.agreement.rawRepresentation == b.agreement.rawRepresentation
    }

    init(signing: Curve25519.Signing.PublicKey, agreement: Curve25519.KeyAgreement.PublicKey) {
        self.signing = signing
        self.agreement = agreement
    }

    /// From what `GET /v1/server-key` serves; the fingerprint it names must be the keys' own.
    public init(_ response: ServerKeyResponse) throws {
        guard let signingBytes = Data(base64Encoded: response.signingKey), let agreementBytes = Data(base64Encoded: response.agreementKey),
            let signing = try? Curve25519.Signing.PublicKey(rawRepresentation: signingBytes),
            let agreement = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: agreementBytes)
        else { throw ReceiptError.badKeyMaterial }
        self.init(signing: signing, agreement: agreement)
        guard fingerprint == response.fingerprint else { throw ReceiptError.badKeyMaterial }
    }

    public var response: ServerKeyResponse {
        ServerKeyResponse(
            signingKey: signing.rawRepresentation.base64EncodedString(),
            agreementKey: agreement.rawRepresentation.base64EncodedString(),
            fingerprint: fingerprint
        )
    }

    /// SHA-256 of both public keys, the first 16 bytes in groups of four hex digits: short enough to read aloud,
    /// 128 bits against a second key with the same fingerprint.
    public var fingerprint: String {
        let digest = Array(Crypto.SHA256.hash(data: signing.rawRepresentation + agreement.rawRepresentation)).prefix(16)
        let hex = Hex.encode(digest)
        return stride(from: 0, to: hex.count, by: 4).map { offset in
            String(hex[hex.index(hex.startIndex, offsetBy: offset)..<hex.index(hex.startIndex, offsetBy: offset + 4)])
        }.joined(separator: "-")
    }

    public func isValidSignature(_ signature: Data, for bytes: Data) -> Bool { signing.isValidSignature(signature, for: bytes) }

    /// The statement of `receipt` when its signature is this key's over its exact bytes and it names this key.
    public func verify(_ receipt: SignedReceipt) throws -> ReceiptStatement {
        guard let signature = Data(base64Encoded: receipt.signature),
            signing.isValidSignature(signature, for: Data(receipt.statement.utf8))
        else { throw ReceiptError.badSignature }
        guard let statement = try? JSONDecoder().decode(ReceiptStatement.self, from: Data(receipt.statement.utf8)),
            statement.format == ReceiptStatement.format
        else { throw ReceiptError.malformed }
        guard statement.keyFingerprint == fingerprint else { throw ReceiptError.otherKey(statement.keyFingerprint) }
        return statement
    }
}

public enum ReceiptError: Error, Equatable, CustomStringConvertible {
    case badKeyMaterial
    case badSignature
    case malformed
    case otherKey(String)

    public var description: String {
        switch self {
        case .badKeyMaterial: "The server's keys are not valid keys."
        case .badSignature: "The receipt's signature does not match its content: it was changed or not signed by this server."
        case .malformed: "This is not a receipt this version can read."
        case .otherKey(let fingerprint): "The receipt names another server key (\(fingerprint))."
        }
    }
}

/// What the server serves that decides a grade or a time (a document with its time limit, results), signed by the
/// server key over the exact bytes of the body (before any gzip) with a label, and checked by the vault against the
/// pinned key before it is used. The signature travels in a header, so the bodies stay as the contract says.
public enum ServedSignature {
    public static let header = "vault-signature"

    /// A served document: its bytes.
    public static func document(_ bytes: Data) -> Data { Data("vault-document-v1\n".utf8) + bytes }

    /// The results served to `user`: bound to the user, so one student's results cannot stand for another's.
    public static func results(user: String, _ bytes: Data) -> Data { Data("vault-results-v1\n\(user)\n".utf8) + bytes }

    /// The attempts served to `user` (`GET /v1/attempts`): bound to the user like results, under a label of their own
    /// so neither can stand for the other.
    public static func attempts(user: String, _ bytes: Data) -> Data { Data("vault-attempts-v1\n\(user)\n".utf8) + bytes }

    /// The signature for a header.
    public static func sign(_ labelled: Data, with identity: ServerIdentity) throws -> String {
        try identity.signature(for: labelled).base64EncodedString()
    }

    /// Whether `signature` (from the header) is `key`'s over `labelled`.
    public static func isValid(_ signature: String?, for labelled: Data, key: ServerPublicKey) -> Bool {
        guard let signature, let raw = Data(base64Encoded: signature) else { return false }
        return key.isValidSignature(raw, for: labelled)
    }
}

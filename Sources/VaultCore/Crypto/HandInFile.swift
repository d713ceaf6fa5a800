import Crypto
import Foundation
import VaultAPI

/// A hand-in file: a submitted attempt encrypted to the server's X25519 key, for a student who cannot get online.
///
/// The shape of age's X25519 recipient: an ephemeral X25519 key, the shared secret through HKDF-SHA256 (salt: both
/// public keys; info: the format), AES-256-GCM with the format line, the version and the recipient's fingerprint as
/// associated data. Only the format line is plaintext:
///
///     vault-hand-in-v1\n
///     base64(ephemeral public key (32) | nonce (12) | ciphertext | tag (16))\n
public enum HandInFile {
    public static let formatLine = "vault-hand-in-v1"
    public static let version = 1
    /// Larger files are refused before they are read (a hand-in is a few hundred KB at most).
    public static let maxBytes = 16 * 1024 * 1024

    public static func seal(_ payload: Data, to recipient: ServerPublicKey) throws -> Data {
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let key = try symmetricKey(
            secret: ephemeral.sharedSecretFromKeyAgreement(with: recipient.agreement),
            ephemeral: ephemeral.publicKey.rawRepresentation,
            recipient: recipient
        )
        let sealed = try AES.GCM.seal(payload, using: key, authenticating: associatedData(recipient))
        guard let combined = sealed.combined else { throw HandInError.damaged }
        let body = ephemeral.publicKey.rawRepresentation + combined
        return Data("\(formatLine)\n\(body.base64EncodedString())\n".utf8)
    }

    public static func open(_ file: Data, with identity: ServerIdentity) throws -> Data {
        guard file.count <= maxBytes else { throw HandInError.tooLarge }
        let text = String(decoding: file, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first.map(String.init) == formatLine else { throw HandInError.notAHandIn }
        guard lines.count >= 2, let body = Data(base64Encoded: String(lines[1])), body.count > 32 + 12 + 16 else { throw HandInError.damaged }
        let recipient = identity.publicKey
        do {
            let ephemeral = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: body.prefix(32))
            let key = try symmetricKey(
                secret: identity.agreementKey.sharedSecretFromKeyAgreement(with: ephemeral),
                ephemeral: body.prefix(32),
                recipient: recipient
            )
            return try AES.GCM.open(AES.GCM.SealedBox(combined: body.dropFirst(32)), using: key, authenticating: associatedData(recipient))
        } catch {
            // A changed byte, a truncated file and a file for another server all end here: GCM's tag cannot tell them apart.
            throw HandInError.notForThisServer
        }
    }

    static func symmetricKey(secret: SharedSecret, ephemeral: Data, recipient: ServerPublicKey) throws -> SymmetricKey {
        secret.hkdfDerivedSymmetricKey(
            using: Crypto.SHA256.self,
            salt: ephemeral + recipient.agreement.rawRepresentation,
            sharedInfo: Data(formatLine.utf8),
            outputByteCount: 32
        )
    }

    static func associatedData(_ recipient: ServerPublicKey) -> Data {
        Data("\(formatLine)|\(version)|\(recipient.fingerprint)".utf8)
    }
}

public enum HandInError: Error, Equatable, CustomStringConvertible {
    case notAHandIn, damaged, notForThisServer, tooLarge, badSignature

    public var description: String {
        switch self {
        case .notAHandIn: "This is not a hand-in file."
        case .damaged: "The hand-in file is damaged (cut short or changed)."
        case .notForThisServer: "The hand-in file cannot be opened: it was changed, cut short, or made for another server."
        case .tooLarge: "The file is far larger than any hand-in; it was not read."
        case .badSignature: "The hand-in file is not signed by the vault that made it (it was changed or made by someone else)."
        }
    }
}

/// What a hand-in file carries: the attempt's answers as a sync batch would send them, and its submission.
public struct HandInPayload: Codable, Sendable, Equatable {
    public var user: String
    public var responses: [ResponseItem]
    public var submission: SubmissionRequest
    /// A vault enrolled by a package (issue 57): the package's one-time enrolment secret (base64), which binds this
    /// vault's key to the student at the first import. Inside the encrypted file, never on the stick in the clear.
    public var enrolment: String?
    public init(user: String, responses: [ResponseItem], submission: SubmissionRequest, enrolment: String? = nil) {
        self.user = user
        self.responses = responses
        self.submission = submission
        self.enrolment = enrolment
    }
}

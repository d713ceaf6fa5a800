import Foundation

/// One student's assessment by file (issue 57): their own served document as a download would bring it (with its
/// served signature), the server's public key, a one-time enrolment secret for that student, and the server key's
/// signature over all of it. Made by `vault-server package`, read by `vault import` with no network at all.
public struct AssessmentPackage: Codable, Sendable, Equatable {
    public static let formatName = "vault-package-v1"

    public var format: String
    public var user: String
    public var assessmentId: String
    public var version: Int
    /// The served bytes (base64), exactly as `GET /v1/assessments/{id}` sends them to this student.
    public var document: String
    /// The served signature over those bytes (`vault-document-v1`), as the download's header carries it.
    public var documentSignature: String
    public var serverKey: ServerKeyResponse
    /// The one-time enrolment secret (32 random bytes, base64): what binds a vault key to this student at the first
    /// hand-in made from the package. The server keeps only its SHA-256.
    public var enrolment: String
    public var issuedAt: String
    /// The package is refused after this time.
    public var expiresAt: String
    /// The server key's Ed25519 signature (base64) over `signedBytes`.
    public var signature: String
    /// Set when the document and the enrolment are sealed under the student's slip code (issue 68): the content key
    /// wrapped under the code; `document` and `enrolment` then hold their AES-GCM boxes.
    public var slip: WrappedKey?

    enum CodingKeys: String, CodingKey {
        case format, user, version, document, enrolment, signature, slip
        case assessmentId = "assessment_id"
        case documentSignature = "document_signature"
        case serverKey = "server_key"
        case issuedAt = "issued_at"
        case expiresAt = "expires_at"
    }

    public init(
        user: String,
        assessmentId: String,
        version: Int,
        document: Data,
        documentSignature: String,
        serverKey: ServerKeyResponse,
        enrolment: String,
        issuedAt: String,
        expiresAt: String
    ) {
        format = Self.formatName
        self.user = user
        self.assessmentId = assessmentId
        self.version = version
        self.document = document.base64EncodedString()
        self.documentSignature = documentSignature
        self.serverKey = serverKey
        self.enrolment = enrolment
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        signature = ""
    }

    /// What the server signs: a label, then the canonical JSON of the package without its signature.
    public var signedBytes: Data {
        get throws {
            var unsigned = self
            unsigned.signature = ""
            return Data("\(Self.formatName)\n".utf8) + (try CanonicalJSON.encode(unsigned))
        }
    }

    /// The largest package read (a served document may be 10 MB; base64 and the rest on top).
    public static let maxBytes = 16 * 1024 * 1024
}

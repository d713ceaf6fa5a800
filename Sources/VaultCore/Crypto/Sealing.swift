import Crypto
import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

/// Sealed exams: a random content key per published version encrypts the questions; the key is wrapped under a start
/// code the proctor reads out. See `SealedContent` and `WrappedKey` for the formats.
public enum Sealing {
    /// Base32 without look-alikes (no I, O, 0, 1): 12 characters are 60 bits, read aloud as `K7Q2-M9X4-PT3R`.
    static let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
    public static let codeLength = 12
    /// PBKDF2-HMAC-SHA512 rounds for a start code: each guess costs this much (docs/threat-model.md).
    public static let defaultIterations = 1_000_000

    public static func newStartCode() throws -> String {
        let characters = try CryptoRandom.bytes(codeLength).map { alphabet[Int($0) & 31] }
        return stride(from: 0, to: codeLength, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// The code as typed (any case, dashes and spaces ignored), or nil when it cannot be a start code.
    public static func normalized(_ typed: String) -> String? {
        let characters = typed.uppercased().filter { $0 != "-" && !$0.isWhitespace }
        guard characters.count == codeLength, characters.allSatisfy(alphabet.contains) else { return nil }
        return characters
    }

    public static func newContentKey() -> Data { SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) } }

    static func codeKey(_ code: String, salt: [UInt8], iterations: Int) throws -> SymmetricKey {
        guard let normalized = normalized(code) else { throw SealingError.wrongCode }
        let derived = try PBKDF2.derive(password: SecretBytes(Array(normalized.utf8)), salt: salt, iterations: iterations, hash: .sha512)
        return derived.withUnsafeBytes { SymmetricKey(data: Data($0)) }
    }

    public static func wrap(contentKey: Data, code: String, iterations: Int, id: String, version: Int) throws -> WrappedKey {
        let salt = try CryptoRandom.bytes(16)
        let key = try codeKey(code, salt: salt, iterations: iterations)
        let box = try AES.GCM.seal(contentKey, using: key, authenticating: Data("\(id)|\(version)".utf8))
        return WrappedKey(salt: Data(salt).base64EncodedString(), iterations: iterations, sealed: box.combined!.base64EncodedString())
    }

    /// The content key, or `.wrongCode`.
    public static func unwrap(_ wrapped: WrappedKey, code: String, id: String, version: Int) throws -> Data {
        guard (1_000...100_000_000).contains(wrapped.iterations), let salt = Data(base64Encoded: wrapped.salt),
            let sealed = Data(base64Encoded: wrapped.sealed)
        else { throw SealingError.damaged }
        let key = try codeKey(code, salt: Array(salt), iterations: wrapped.iterations)
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key, authenticating: Data("\(id)|\(version)".utf8))
        } catch {
            throw SealingError.wrongCode
        }
    }

    static func associatedData(_ document: Assessment) -> Data {
        Data("\(document.id)|\(document.version ?? 0)|\(document.contentHash ?? "")".utf8)
    }

    /// The sealed form of an unsealed served document (version, hashes and content hash set), signed by `identity`.
    public static func seal(_ document: Assessment, contentKey: Data, wrappedKey: WrappedKey, identity: ServerIdentity) throws -> Assessment {
        let box = try AES.GCM.seal(
            try CanonicalJSON.encode(document.questions),
            using: SymmetricKey(data: contentKey),
            authenticating: associatedData(document)
        )
        var sealed = document
        sealed.questions = []
        sealed.questionCount = document.questions.count
        sealed.sealedContent = SealedContent(ciphertext: box.combined!.base64EncodedString(), wrappedKey: wrappedKey)
        let signature = try identity.signature(for: try CanonicalJSON.encode(sealed)).base64EncodedString()
        sealed.sealedContent?.signature = signature
        return sealed
    }

    /// Checks a sealed document's signature against the pinned key (at download: nothing is stored otherwise).
    public static func verifySignature(_ sealed: Assessment, key: ServerPublicKey) throws {
        guard var content = sealed.sealedContent, let signature = content.signature.flatMap({ Data(base64Encoded: $0) }) else {
            throw SealingError.damaged
        }
        content.signature = nil
        var unsigned = sealed
        unsigned.sealedContent = content
        guard key.isValidSignature(signature, for: try CanonicalJSON.encode(unsigned)) else { throw SealingError.damaged }
    }

    /// The document as it reads once unsealed; its content hash and question hashes are checked.
    public static func unseal(_ sealed: Assessment, contentKey: Data) throws -> Assessment {
        guard let content = sealed.sealedContent, let combined = Data(base64Encoded: content.ciphertext) else { throw SealingError.damaged }
        let plaintext: Data
        do {
            plaintext = try AES.GCM.open(
                AES.GCM.SealedBox(combined: combined),
                using: SymmetricKey(data: contentKey),
                authenticating: associatedData(sealed)
            )
        } catch {
            throw SealingError.damaged
        }
        guard let questions = try? JSONDecoder().decode([Question].self, from: plaintext), questions.count == sealed.questionCount else {
            throw SealingError.damaged
        }
        var document = sealed
        document.questions = questions
        document.questionCount = nil
        document.sealedContent = nil
        do { try ServedDocument.verify(document) } catch { throw SealingError.damaged }
        return document
    }
}

public enum SealingError: Error, Equatable, CustomStringConvertible {
    case wrongCode, damaged

    public var description: String {
        switch self {
        case .wrongCode: tr("That start code is not right. Check it with the person running the exam and try again.")
        case .damaged: tr("This sealed exam was changed on its way or is damaged; it cannot be opened. Download it again.")
        }
    }
}

/// A package's slip code (issue 68): the document and the enrolment secret inside a package are sealed under a code
/// the teacher hands the student on paper, never on the stick, so a stolen or copied stick imports nothing. Guessing
/// it offline costs what guessing a sealed exam's start code costs (the same 60 bits and the same PBKDF2 rounds).
public enum PackageSlip {
    /// The student's code for a package, derived by the server from its own key and the package's enrolment, so the
    /// desk can show it again for a package already made; never stored.
    public static func code(identity: ServerIdentity, user: String, assessmentID: String, enrolmentHash: String) -> String {
        let mac = HMAC<Crypto.SHA256>.authenticationCode(
            for: Data("vault-slip-v1|\(user)|\(assessmentID)|\(enrolmentHash)".utf8),
            using: SymmetricKey(data: Crypto.SHA256.hash(data: Data("vault-slip-key-v1".utf8) + identity.signingMaterial))
        )
        let characters = Array(mac).prefix(Sealing.codeLength).map { Sealing.alphabet[Int($0) & 31] }
        return stride(from: 0, to: Sealing.codeLength, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    static func context(_ package: AssessmentPackage) -> String { "package|\(package.user)|\(package.assessmentId)" }

    /// Seals the package's document and enrolment (before it is signed) under `code`.
    public static func seal(_ package: inout AssessmentPackage, code: String, iterations: Int) throws {
        let contentKey = Sealing.newContentKey()
        let key = SymmetricKey(data: contentKey)
        func sealed(_ text: String, _ part: String) throws -> String {
            try AES.GCM.seal(Data(text.utf8), using: key, authenticating: Data("\(context(package))|\(package.version)|\(part)".utf8)).combined!
                .base64EncodedString()
        }
        package.slip = try Sealing.wrap(contentKey: contentKey, code: code, iterations: iterations, id: context(package), version: package.version)
        package.document = try sealed(package.document, "document")
        package.enrolment = try sealed(package.enrolment, "enrolment")
    }

    /// The package as it reads with the right code (document and enrolment in the clear); `.wrongCode` otherwise, or
    /// `.damaged`. A package without a slip is returned as it is.
    public static func open(_ package: AssessmentPackage, code: String) throws -> AssessmentPackage {
        guard let slip = package.slip else { return package }
        let contentKey = try Sealing.unwrap(slip, code: code, id: context(package), version: package.version)
        let key = SymmetricKey(data: contentKey)
        func opened(_ text: String, _ part: String) throws -> String {
            guard let combined = Data(base64Encoded: text), let box = try? AES.GCM.SealedBox(combined: combined),
                let plain = try? AES.GCM.open(box, using: key, authenticating: Data("\(context(package))|\(package.version)|\(part)".utf8))
            else { throw SealingError.damaged }
            return String(decoding: plain, as: UTF8.self)
        }
        var open = package
        open.document = try opened(package.document, "document")
        open.enrolment = try opened(package.enrolment, "enrolment")
        open.slip = nil
        return open
    }
}

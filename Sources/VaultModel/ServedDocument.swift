import Foundation
import VaultAPI

/// The served form of an assessment, in one place for both sides: the server hashes what it publishes, the client
/// verifies what it downloads, with the same canonical bytes.
///
/// It lives in VaultModel, not VaultAPI, because hashing is crypto (SHA-256 on swift-crypto) and VaultAPI stays plain
/// Codable values; the rules (server) and the vault (client) both import VaultModel, neither through OpenSSL.
public enum ServedDocument {
    /// Why a served document does not match its hashes.
    public enum Mismatch: Error, Sendable, Equatable {
        case contentHashMissing
        case contentHash
        case questionHash(questionID: String)
    }

    /// `document` (already stripped of grading data) at `version`, with every question's hash and the content hash set.
    public static func hashed(_ document: Assessment, version: Int) throws -> Assessment {
        var served = document
        served.version = version
        served.contentHash = nil
        for index in served.questions.indices {
            // A template item's instances first: each is hashed as the question a student gets.
            if let variants = served.questions[index].variants {
                served.questions[index].variants = try variants.map { variant in
                    var hashed = variant
                    hashed.hash = try questionHash(variant)
                    return hashed
                }
            }
            served.questions[index].hash = try questionHash(served.questions[index])
        }
        served.contentHash = try contentHash(served)
        return served
    }

    /// Checks the content hash and every question's hash against the document's own bytes.
    public static func verify(_ document: Assessment) throws {
        guard let claimed = document.contentHash else { throw Mismatch.contentHashMissing }
        guard try contentHash(document) == claimed else { throw Mismatch.contentHash }
        for question in document.questions where try question.hash != questionHash(question) {
            throw Mismatch.questionHash(questionID: question.id)
        }
    }

    /// Why served bytes are not a document a vault may store, in words for `ServerError.badResponse` and `vault import`.
    public struct Problem: Error, Sendable, Equatable {
        public let message: String
    }

    /// Served bytes as a vault takes them (a download or a package): the named assessment at a version, with its content
    /// hash; a sealed one in the sealed form (its hashes are checked once unsealed); any other within the format's
    /// rules, without grading data, matching its content and question hashes. The served signature is the caller's.
    public static func checked(_ bytes: Data, id: String) throws -> Assessment {
        let document: Assessment
        do {
            document = try JSONDecoder().decode(Assessment.self, from: bytes)
        } catch {
            throw Problem(message: "the assessment is not valid JSON of the expected shape")
        }
        guard document.id == id, let version = document.version, version >= 1, document.contentHash != nil else {
            throw Problem(message: "the assessment has the wrong id or no version")
        }
        if document.sealed == true {
            guard document.questions.isEmpty, (document.questionCount ?? 0) > 0, document.sealedContent != nil else {
                throw Problem(message: "the sealed assessment is not in the sealed form")
            }
            return document
        }
        do {
            try AssessmentValidator.validate(document, requireAnswerKeyAbsent: true)
        } catch {
            throw Problem(message: "the assessment breaks the format rules: \(error)")
        }
        do {
            try verify(document)
        } catch Mismatch.questionHash(let questionID) {
            throw Problem(message: "question \(questionID) does not match its hash")
        } catch {
            throw Problem(message: "the assessment does not match its content hash")
        }
        return document
    }

    public static func contentHash(_ document: Assessment) throws -> String {
        Digest.hex(try CanonicalJSON.contentBytes(document))
    }

    public static func questionHash(_ question: Question) throws -> String {
        Digest.hex(try CanonicalJSON.questionBytes(question))
    }
}

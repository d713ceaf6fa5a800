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

    public static func contentHash(_ document: Assessment) throws -> String {
        Digest.hex(try CanonicalJSON.contentBytes(document))
    }

    public static func questionHash(_ question: Question) throws -> String {
        Digest.hex(try CanonicalJSON.questionBytes(question))
    }
}

import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

extension Vault {
    /// Unseals a downloaded sealed exam with the start code (or with the content key the server gives once it has
    /// opened): the questions are decrypted and checked against the content hash, the readable document replaces the
    /// sealed one and the content key is kept, all inside the encrypted vault. The code itself is never stored. A
    /// wrong code changes nothing. A timed exam's clock does not start here: the student starts it on the start
    /// screen of `take`, as for any timed test (the proctor reads the code out before everyone is ready).
    @discardableResult
    public func unseal(_ id: String, startCode: String? = nil, contentKey: Data? = nil, now: Date? = nil) throws -> Assessment {
        let now = now ?? clocks.wall()
        let (sealed, _) = try loadAssessment(id: id, now: now, allowSealed: true)
        guard let content = sealed.sealedContent, let version = sealed.version else {
            throw VaultError(.notAllowed, tr("{title} is not sealed; it is ready to take.", ["title": sealed.title]))
        }
        let key: Data
        do {
            if let contentKey {
                key = contentKey
            } else if let startCode {
                key = try Sealing.unwrap(content.wrappedKey, code: startCode, id: sealed.id, version: version)
            } else {
                throw VaultError(.usage, tr("Give the start code."))
            }
        } catch let error as SealingError {
            throw VaultError(error == .wrongCode ? .notAllowed : .invalidData, error.description)
        }
        let document: Assessment
        do {
            document = try Sealing.unseal(sealed, contentKey: key)
        } catch let error as SealingError {
            throw VaultError(.invalidData, error == .damaged ? SealingError.damaged.description : tr("That key does not open this exam."))
        }
        // The same format rules as any download (answer keys absent, bounds), now that the questions can be read.
        do {
            try AssessmentValidator.validate(document, requireAnswerKeyAbsent: true)
        } catch {
            throw VaultError(.invalidData, tr("The unsealed exam breaks the format rules ({error}); it was not stored.", ["error": error]))
        }
        let bytes = try CanonicalJSON.encode(document)
        let compressed = try Gzip.compress(bytes)
        let hashes = Dictionary(uniqueKeysWithValues: document.questions.map { ($0.id, $0.hash ?? "") })
        try database.inTransaction {
            try database.execute(
                """
                UPDATE assessments SET document = ?, compressed_bytes = ?, uncompressed_bytes = ?, question_hashes = ?, sealed = 0
                WHERE id = ? AND version = ?
                """,
                [compressed, compressed.count, bytes.count, String(decoding: try CanonicalJSON.encode(hashes), as: UTF8.self), id, version]
            )
            try database.execute(
                "INSERT OR REPLACE INTO sealed_keys (assessment_id, version, content_key, unsealed_at) VALUES (?, ?, ?, ?)",
                [id, version, key, now.millisecondsSince1970]
            )
        }
        // The attempt opens now, so `list` says "not started" until the student starts its clock.
        if document.timeLimitSeconds != nil { _ = try openAttempt(on: id, now: now) }
        return document
    }

    /// Sealed exams downloaded and not yet unsealed.
    public func isSealed(_ id: String) throws -> Bool {
        try loadAssessment(id: id, allowSealed: true).assessment.sealedContent != nil
    }
}

import Foundation
import VaultAPI
import VaultRules

/// A stored assessment document, decoded by both stores: one that does not decode is damaged, named by its id and
/// version, and never read as "no such assessment".
public enum StoredDocument {
    public static func decode(_ bytes: Data, _ key: DocumentKey) throws -> Assessment {
        do {
            return try JSONDecoder().decode(Assessment.self, from: bytes)
        } catch {
            throw StorageError.damaged("assessment \(key.id) version \(key.version): its stored document cannot be read")
        }
    }

    /// `ResultInput.assemble` over stored sources: each decoded once (a damaged one throws), and a submission whose
    /// version's document is missing is damaged too.
    public static func inputs(
        records: [SubmissionRecord],
        sources: [DocumentKey: Data],
        draws: [DrawKey: Draw] = [:],
        released: Set<String>,
        answers: [(attemptID: String, questionID: String, answer: String)],
        grades: [(attemptID: String, questionID: String, points: Double)],
        feedback: [(attemptID: String, questionID: String, text: String)]
    ) throws -> [ResultInput] {
        let documents = try Dictionary(uniqueKeysWithValues: sources.map { ($0.key, try decode($0.value, $0.key)) })
        do {
            return try ResultInput.assemble(
                records: records,
                documents: documents,
                draws: draws,
                released: released,
                answers: answers,
                grades: grades,
                feedback: feedback
            )
        } catch let missing as ResultInput.MissingDocument {
            throw StorageError.damaged("assessment \(missing.key.id) version \(missing.key.version): a submission names it, but it is not stored")
        }
    }
}

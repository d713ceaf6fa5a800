import Foundation
import VaultAPI

/// What both stores build from the rows they read, built here once.
extension CatalogEntry {
    /// The catalog entry of a current version, from its served document and stored facts.
    public init(served document: Assessment, version: Int, contentHash: String, servedBytes: Int, updatedAt: Double) {
        self.init(
            id: document.id,
            title: document.title,
            version: version,
            contentHash: contentHash,
            sizeBytes: servedBytes,
            updatedAt: Timestamp.string(epoch: updatedAt),
            notAfter: document.notAfter,
            sealed: document.sealed,
            opensAt: document.opensAt
        )
    }
}

extension ResultInput {
    /// A submitted attempt's result input from its stored rows: the teacher's source document, the current answers
    /// (question id, canonical answer JSON) and the grades; nil when the source cannot be read.
    public init?(record: SubmissionRecord, source: Data, released: Bool, answers: [(String, String)], grades: [(String, Double)]) {
        guard let document = try? JSONDecoder().decode(Assessment.self, from: source) else { return nil }
        var values: [String: JSONValue] = [:]
        for (question, answer) in answers { values[question] = try? JSONDecoder().decode(JSONValue.self, from: Data(answer.utf8)) }
        self.init(
            record: record,
            document: document,
            answers: values,
            grades: Dictionary(grades, uniquingKeysWith: { _, last in last }),
            released: released
        )
    }
}

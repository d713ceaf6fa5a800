import Foundation
import VaultAPI
import VaultCore
import VaultModel

/// Served assessments for tests, hashed as the server serves them.
public enum TestDocuments {
    /// A one-essay assessment `id` at `version`; `padding` makes the prompt longer (for size limits).
    public static func served(_ id: String, version: Int = 1, notAfter: String? = nil, padding: Int = 0) -> (Assessment, Data) {
        let document = try! ServedDocument.hashed(
            Assessment(
                id: id,
                title: "Title \(id)",
                notAfter: notAfter,
                questions: [Question(id: "q1", type: .essay, prompt: "Write. " + String(repeating: "x", count: padding))]
            ),
            version: version
        )
        return (document, try! CanonicalJSON.encode(document))
    }
}

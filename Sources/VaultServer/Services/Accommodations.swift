import Foundation
import VaultAPI
import VaultCore
import VaultModel

/// Extra time: the served document carries the student's own time limit, hashed like any served document, so the
/// vault enforces it offline as it enforces everyone's.
public enum Accommodations {
    /// True for served bytes of a timed assessment (canonical JSON: a cheap check before any decoding).
    public static func isTimed(_ served: Data) -> Bool {
        CanonicalJSON.mentions(#""time_limit_seconds":"#, in: served)
    }

    public static func withExtraTime(_ served: Data, minutes: Int) throws -> (bytes: Data, contentHash: String) {
        var document = try JSONDecoder().decode(Assessment.self, from: served)
        guard let limit = document.timeLimitSeconds else { return (served, document.contentHash ?? "") }
        document.timeLimitSeconds = limit + minutes * 60
        document.contentHash = nil
        let hash = try ServedDocument.contentHash(document)
        document.contentHash = hash
        return (try CanonicalJSON.encode(document), hash)
    }
}

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
}

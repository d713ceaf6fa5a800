import Foundation
import Synchronization
import VaultAPI
import VaultRules

/// Served versions decoded once and kept: a version never changes once published. Each store has one; a document
/// that does not decode is a damaged row (`StoredDocument.decode`), never "no assessment".
public final class DocumentCache: Sendable {
    private let documents = Mutex<[DocumentKey: Assessment]>([:])

    public init() {}

    /// The version decoded from its served bytes, or as decoded before.
    public func decoded(_ key: DocumentKey, bytes: Data) throws -> Assessment {
        if let cached = cached(key) { return cached }
        let document = try StoredDocument.decode(bytes, key)
        documents.withLock { $0[key] = document }
        return document
    }

    /// The version if it was decoded before (a batch reads the served bytes only of those that were not).
    public func cached(_ key: DocumentKey) -> Assessment? { documents.withLock { $0[key] } }
}

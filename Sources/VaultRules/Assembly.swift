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

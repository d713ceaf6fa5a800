import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultModel

/// Fetches assessments for offline use: verified by the client, then stored compressed in the vault.
public struct Downloader {
    public enum Outcome: Sendable, Equatable {
        case stored(id: String, version: Int, evicted: [String], expiresAt: Date)
        case alreadyCurrent(id: String, version: Int)
    }

    let client: ServerClient
    let vault: any DownloadStore
    let diskSpace: DiskSpace
    let now: @Sendable () -> Date

    /// `now`: the vault's own wall clock unless another is given (one clock for what the vault stores and reads).
    public init(client: ServerClient, vault: any DownloadStore, diskSpace: DiskSpace = .system, now: (@Sendable () -> Date)? = nil) {
        self.client = client
        self.vault = vault
        self.diskSpace = diskSpace
        self.now = now ?? vault.clocks.wall
    }

    /// Downloads one assessment; a cached current copy is confirmed with If-None-Match (304) instead.
    public func download(_ id: String, progress: (@Sendable (Int, Int?) -> Void)? = nil) async throws -> Outcome {
        guard AssessmentValidator.isValidID(id) else {
            throw VaultError(.usage, tr("{id} is not an assessment id (a-z, 0-9 and '-'). `vault catalog` lists them.", ["id": id]))
        }
        let cached = try vault.cachedVersion(of: id)
        switch try await client.assessment(id, etag: cached?.etag, progress: progress) {
        case .notModified:
            guard let cached else { throw ServerError.badResponse("the server said not modified for a copy we do not have") }
            try vault.refreshCached(id: id, version: cached.version, now: now())
            return .alreadyCurrent(id: id, version: cached.version)
        case .document(let document, let bytes, let etag, let signature):
            // Its time limit decides a grade: nothing is stored unless the pinned key signed these exact bytes.
            let key = try await pinnedKey()
            guard ServedSignature.isValid(signature, for: ServedSignature.document(bytes), key: key) else {
                throw ServerError.badResponse("the assessment is not signed by this vault's server, so it was not stored")
            }
            if document.sealed == true {
                do {
                    try Sealing.verifySignature(document, key: key)
                } catch let error as SealingError {
                    throw ServerError.badResponse("the sealed exam is not signed by this vault's server (\(error))")
                }
            }
            let outcome = try vault.storeAssessment(document, bytes: bytes, etag: etag, source: .server, now: now(), diskSpace: diskSpace)
            return .stored(id: id, version: document.version ?? 0, evicted: outcome.evicted.map(\.id), expiresAt: outcome.expiresAt)
        }
    }

    /// After a download: the student's latest attempt in progress that the server holds (begun on another device)
    /// is continued here, with its answers and its clock (`Vault.continueAttempt`). The server's word is taken only
    /// when the pinned key signed it for this user. Nil when there is nothing to continue.
    public func continueAttempt(_ id: String) async throws -> AttemptContinuation? {
        guard let user = try vault.account()?.user else { return nil }
        let held = try await client.attempts(assessmentID: id, user: user, key: try await pinnedKey())
        let open = held.filter { $0.state == .inProgress }
            .max { ($0.startedAt.flatMap(Timestamp.date) ?? .distantPast) < ($1.startedAt.flatMap(Timestamp.date) ?? .distantPast) }
        guard let open else { return nil }
        return try vault.continueAttempt(open, now: now())
    }

    /// The pinned server key; a vault that has none pins the server's now (trust on first use, as `vault login` does).
    func pinnedKey() async throws -> ServerPublicKey {
        if try vault.pinnedServerKey() == nil {
            let served = try await client.serverKey()
            do {
                try vault.pinServerKey(served, serverURL: "")
            } catch {
                throw ServerError.badResponse("the server's key is not valid")
            }
        }
        return try vault.serverPublicKey()
    }

    /// The ids `--next N` picks: offered, not yet downloaded (or outdated), in catalog order.
    public static func next(_ count: Int, catalog: [CatalogEntry], cached: [CachedAssessment]) -> [String] {
        catalog.filter { entry in
            let newest = cached.filter { $0.id == entry.id }.map(\.version).max()
            return newest == nil || newest! < entry.version
        }.prefix(count).map(\.id)
    }
}

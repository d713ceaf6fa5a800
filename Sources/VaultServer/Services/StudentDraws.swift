import Foundation
import Synchronization
import VaultAPI
import VaultRules

/// Pools and shuffling at download: a student gets their own served document (their questions, order and choice
/// orders, drawn once and kept by the store), hashed like any served document, so the vault verifies and enforces it
/// as it does everyone's. A document without pools or shuffling is served as stored, byte for byte.
///
/// Kept in memory, per process: each version's served document decoded once, and the last students' own documents
/// (a draw made for a version never changes, so an entry is right for as long as the version is the current one).
public final class StudentDraws: Sendable {
    public init() {}

    private struct OwnKey: Hashable {
        var id: String
        var version: Int
        var user: String
    }

    private let documents = DocumentCache()
    private let own = Mutex<[OwnKey: (bytes: Data, contentHash: String)]>([:])
    /// How many students' own documents are kept (about 15 KB each for 100 questions).
    static let kept = 2_048

    /// Whether served bytes may ask for a draw (canonical JSON: a cheap check before any decoding).
    static func mayDraw(_ served: Data) -> Bool {
        [#""sections":"#, #""shuffle":true"#, #""shuffle_choices":true"#, #""variants":"#].contains {
            CanonicalJSON.mentions($0, in: served)
        }
    }

    /// What `user` is served of the current version `current`: a student's own draw (pools and shuffling), and
    /// anyone's own time limit when they have extra time (both hashed like any served document). The download and
    /// a package by file (`StudentPackages`) serve the same bytes through this.
    func served(
        _ current: (bytes: Data, contentHash: String, version: Int),
        id: String,
        user: String?,
        student: Bool,
        storage: some ResponseStore,
        now: Date
    ) async throws -> (bytes: Data, contentHash: String) {
        var served = (bytes: current.bytes, contentHash: current.contentHash)
        // Pools and shuffling: a student gets their own draw (the same on every device and every re-download).
        if student, let user, let own = try await own(current.bytes, id: id, version: current.version, user: user, storage: storage, now: now) {
            served = own
        }
        // A student entitled to extra time gets a document of their own: their time limit, its own content hash.
        if let user, Accommodations.isTimed(served.bytes) {
            let extra = try await storage.extraMinutes(assessmentID: id, user: user)
            if extra > 0 { served = try Accommodations.withExtraTime(served.bytes, minutes: extra) }
        }
        return served
    }

    /// `user`'s own served document of `served` (the current version's), or nil when it draws nothing per student.
    func own(
        _ served: Data,
        id: String,
        version: Int,
        user: String,
        storage: some ResponseStore,
        now: Date
    ) async throws -> (bytes: Data, contentHash: String)? {
        guard Self.mayDraw(served) else { return nil }
        let key = OwnKey(id: id, version: version, user: user)
        if let kept = own.withLock({ $0[key] }) { return kept }
        let document = try documents.decoded(DocumentKey(id: id, version: version), bytes: served)
        guard document.drawsPerStudent else { return nil }
        let draw = try await storage.studentDraw(assessmentID: id, version: version, user: user, now: now)
        let theirs = try DrawPlan.apply(draw, to: document)
        let made = (bytes: try CanonicalJSON.encode(theirs), contentHash: theirs.contentHash ?? "")
        own.withLock { kept in
            // Past the bound the oldest are not known without more bookkeeping: start again (a student's next
            // download reads their draw from the store, as the first did).
            if kept.count >= Self.kept { kept.removeAll(keepingCapacity: true) }
            kept[key] = made
        }
        return made
    }
}

import Foundation
import VaultAPI
import VaultRules

/// Pools and shuffling at download: a student gets their own served document (their questions, order and choice
/// orders, drawn once and kept by the store), hashed like any served document, so the vault verifies and enforces it
/// as it does everyone's. A document without pools or shuffling is served as stored, byte for byte.
enum StudentDraws {
    /// Whether served bytes may ask for a draw (canonical JSON: a cheap check before any decoding).
    static func mayDraw(_ served: Data) -> Bool {
        served.firstRange(of: Data(#""sections":"#.utf8)) != nil || served.firstRange(of: Data(#""shuffle":true"#.utf8)) != nil
            || served.firstRange(of: Data(#""shuffle_choices":true"#.utf8)) != nil || served.firstRange(of: Data(#""variants":"#.utf8)) != nil
    }

    /// The decoded served document when it draws per student, else nil.
    static func drawing(_ served: Data) throws -> Assessment? {
        guard mayDraw(served) else { return nil }
        let document = try JSONDecoder().decode(Assessment.self, from: served)
        return document.drawsPerStudent ? document : nil
    }

    /// `user`'s own served document of `served` (the current version's), or nil when it draws nothing per student.
    static func own(
        _ served: Data,
        id: String,
        version: Int,
        user: String,
        storage: some ResponseStore,
        now: Date
    ) async throws -> (bytes: Data, contentHash: String)? {
        guard let document = try drawing(served) else { return nil }
        let draw = try await storage.studentDraw(assessmentID: id, version: version, user: user, now: now)
        let own = try DrawPlan.apply(draw, to: document)
        return (try CanonicalJSON.encode(own), own.contentHash ?? "")
    }
}

import Foundation
import NIOPosix
import VaultAPI
import VaultCore
import VaultRules

/// Sealed exams on the server: each published version of a sealed assessment gets a content key and a start code
/// once (stored; every process serves the same), and is served with its questions encrypted and the document signed.
public final class SealedExams: Sendable {
    private let storage: any PublishingStore
    private let receipts: ReceiptIssuer
    let iterations: Int

    public init(storage: any PublishingStore, receipts: ReceiptIssuer, iterations: Int) {
        self.storage = storage
        self.receipts = receipts
        self.iterations = iterations
    }

    /// Served bytes that may be a sealed assessment (canonical JSON: a cheap check before any decoding; a question
    /// quoting the text can match too, so the decoded document decides).
    public static func mayBeSealed(_ served: Data) -> Bool {
        CanonicalJSON.mentions(#""sealed":true"#, in: served)
    }

    /// The decoded document when it is sealed, else nil.
    public static func sealedDocument(_ served: Data) throws -> Assessment? {
        guard mayBeSealed(served) else { return nil }
        let document = try JSONDecoder().decode(Assessment.self, from: served)
        return document.sealed == true ? document : nil
    }

    /// The version's sealing, made on first use (the PBKDF2 wrap runs on NIO's blocking pool, not an event loop).
    public func material(id: String, version: Int) async throws -> SealingMaterial {
        if let stored = try await storage.sealing(assessmentID: id, version: version) { return stored }
        let iterations = self.iterations
        let fresh = try await NIOThreadPool.singleton.runIfActive {
            let key = Sealing.newContentKey()
            let code = try Sealing.newStartCode()
            let wrapped = try Sealing.wrap(contentKey: key, code: code, iterations: iterations, id: id, version: version)
            return SealingMaterial(contentKey: key, startCode: code, wrappedKey: wrapped)
        }
        return try await storage.storeSealing(assessmentID: id, version: version, material: fresh)
    }

    /// What a student downloads: no question text, the questions as one ciphertext, signed by the server (served
    /// bytes of an assessment that is not sealed come back as they are).
    public func downloadBytes(_ served: Data) async throws -> Data {
        guard let document = try Self.sealedDocument(served) else { return served }
        let material = try await material(id: document.id, version: document.version ?? 1)
        let sealed = try Sealing.seal(
            document,
            contentKey: material.contentKey,
            wrappedKey: material.wrappedKey,
            identity: try await receipts.identity()
        )
        return try CanonicalJSON.encode(sealed)
    }
}

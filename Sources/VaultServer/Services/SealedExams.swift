import Foundation
import NIOPosix
import VaultAPI
import VaultCore
import VaultRules

/// Sealed exams on the server: each published version of a sealed assessment gets a content key and a start code
/// once (stored; every process serves the same), and is served with its questions encrypted and the document signed.
public final class SealedExams: Sendable {
    private let storage: any ServerStorage
    private let receipts: ReceiptIssuer
    private let iterations: Int

    public init(storage: any ServerStorage, receipts: ReceiptIssuer, iterations: Int) {
        self.storage = storage
        self.receipts = receipts
        self.iterations = iterations
    }

    /// True for served bytes of a sealed assessment (canonical JSON: a cheap check before any decoding).
    public static func isSealed(_ served: Data) -> Bool {
        served.firstRange(of: Data(#""sealed":true"#.utf8)) != nil
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

    /// What a student downloads: no question text, the questions as one ciphertext, signed by the server.
    public func sealedBytes(_ served: Data) async throws -> Data {
        let document = try JSONDecoder().decode(Assessment.self, from: served)
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

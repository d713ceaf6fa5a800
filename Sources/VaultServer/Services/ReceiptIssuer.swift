import Foundation
import Synchronization
import VaultAPI
import VaultCore
import VaultRules

/// Signs receipts with the deployment's identity (read from the store once, made there by whichever process asks
/// first). A receipt is signed once and stored; a repeated submission gets the stored one.
public final class ReceiptIssuer: Sendable {
    private let storage: any KeyStore
    private let cached = Mutex<ServerIdentity?>(nil)

    public init(storage: any KeyStore) {
        self.storage = storage
    }

    public func identity() async throws -> ServerIdentity {
        if let identity = cached.withLock({ $0 }) { return identity }
        let material = try await storage.serverIdentityMaterial { ServerIdentity().material }
        let identity = try ServerIdentity(material: material)
        cached.withLock { $0 = identity }
        return identity
    }

    /// The signed receipt of a stored submission.
    public func receipt(for record: SubmissionRecord) async throws -> SubmissionReceipt {
        if record.signedReceipt != nil { return record.receipt }
        let identity = try await identity()
        guard let material = try await storage.receiptMaterial(attemptID: record.attemptID) else { throw StorageError.damaged("the submission") }
        let statement = ReceiptRules.statement(for: record, material: material, fingerprint: identity.publicKey.fingerprint)
        var record = record
        record.signedReceipt = try await storage.attachReceipt(attemptID: record.attemptID, signed: try identity.sign(statement))
        return record.receipt
    }
}

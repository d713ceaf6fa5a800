import Foundation
import VaultAPI
import VaultCore

/// The students' own signatures on what they send (issue 58): every answer and hand-in a vault signs with its key.
/// A server takes an unsigned one (an older vault) as before; a signed one must verify, or it was changed on its way.
enum VaultSignatures {
    /// Whether an answer's signature, if it has one, is `deviceKey`'s over the answer as it arrived.
    static func isValid(_ item: ResponseItem, deviceKey: String?) -> Bool {
        guard let signature = item.signature else { return true }
        return isSigned(item, signature: signature, by: deviceKey)
    }

    /// Whether an answer is signed by `deviceKey` (the district's check on what a classroom passes on: a signature
    /// is required).
    static func isSigned(_ item: ResponseItem, by deviceKey: String?) -> Bool {
        item.signature.map { isSigned(item, signature: $0, by: deviceKey) } ?? false
    }

    private static func isSigned(_ item: ResponseItem, signature: String, by deviceKey: String?) -> Bool {
        guard let deviceKey, let statement = try? AnswerSignature.statement(item) else { return false }
        return DeviceKey.isValid(signature: signature, for: statement, publicKey: deviceKey)
    }

    /// Whether a hand-in's signature, if it has one, is its named key's.
    static func isValid(_ submission: SubmissionRequest) -> Bool {
        submission.signature == nil || isSigned(submission)
    }

    /// Whether a hand-in is signed by the key it names.
    static func isSigned(_ submission: SubmissionRequest) -> Bool {
        guard let signature = submission.signature, let key = submission.deviceKey, let statement = try? submission.signedStatement() else {
            return false
        }
        return DeviceKey.isValid(signature: signature, for: statement, publicKey: key)
    }

    /// A vault's batch stored: its answers whose signatures do not verify are refused one by one, the others go to
    /// the store together; the results in the batch's order.
    static func recordSigned(_ batch: BatchRequest, user: String, storage: some ResponseStore, now: Date) async throws -> [ItemResult] {
        let valid = batch.responses.filter { isValid($0, deviceKey: batch.deviceKey) }
        guard valid.count < batch.responses.count else {
            return try await storage.recordBatch(batch.responses, user: user, device: batch.device, now: now)
        }
        let stored = valid.isEmpty ? [] : try await storage.recordBatch(valid, user: user, device: batch.device, now: now)
        let byID = Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return batch.responses.map { item in
            byID[item.id] ?? ItemResult(id: item.id, status: .rejected, message: changedOnItsWay)
        }
    }

    static let changedOnItsWay = "This answer was changed on its way: its signature does not match. It was not stored."
}

/// What a classroom server keeps for its district: each answer and hand-in as the student's vault sent it, once the
/// classroom holds it.
public enum ClassroomOutbox {
    /// A hand-in file imported on a classroom (issue 69): its answers and hand-in go up like a sync's, signed by the
    /// student's key (a file from an older vault, unsigned, is refused by the district and shown in `classroom
    /// status`). Nothing on a server that is not a classroom.
    public static func keepImported(
        _ responses: [ResponseItem],
        submission: SubmissionRequest,
        user: String,
        deviceKey: String,
        storage: some ServerStorage,
        now: Date
    ) async throws {
        guard try await storage.classroomLink() != nil else { return }
        let results = responses.map { ItemResult(id: $0.id, status: .accepted) }
        try await keep(BatchRequest(responses: responses, deviceKey: deviceKey), results: results, user: user, storage: storage, now: now)
        try await keep(submission, user: user, storage: storage, now: now)
    }

    static func keep(_ batch: BatchRequest, results: [ItemResult], user: String, storage: some ClassroomStore, now: Date) async throws {
        let held = Set(results.filter { [.accepted, .duplicate, .superseded].contains($0.status) }.map(\.id))
        let items = try batch.responses.filter { held.contains($0.id) }.map { item in
            UpstreamItem(
                kind: .answer,
                itemID: item.id,
                user: user,
                deviceKey: batch.deviceKey,
                body: String(decoding: try CanonicalJSON.encode(item), as: UTF8.self)
            )
        }
        if !items.isEmpty { try await storage.keepForUpstream(items, now: now) }
    }

    static func keep(_ submission: SubmissionRequest, user: String, storage: some ClassroomStore, now: Date) async throws {
        let item = UpstreamItem(
            kind: .submission,
            itemID: submission.attemptId,
            user: user,
            deviceKey: submission.deviceKey,
            body: String(decoding: try CanonicalJSON.encode(submission), as: UTF8.self)
        )
        try await storage.keepForUpstream([item], now: now)
    }
}

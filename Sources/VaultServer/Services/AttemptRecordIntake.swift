import Foundation
import VaultAPI
import VaultRules

/// An attempt's record as it arrives with a hand-in (sync or file): checked (`RecordRules.check`) and kept, verified
/// or not; the hand-in itself was stored before, so a record that does not verify never costs the answers.
public enum AttemptRecordIntake {
    /// Keeps `submission`'s record, if it carries one, for `user`'s accepted hand-in `record`.
    public static func keep(_ submission: SubmissionRequest, of record: SubmissionRecord, storage: some ServerStorage, now: Date) async throws {
        guard let upload = submission.record else { return }
        var problem = RecordRules.check(upload, attemptID: record.attemptID, registeredKeys: try await storage.deviceKeys(user: record.user))
        var events = upload.events
        // What is kept is what a record may hold: never a text a hostile client put where a question id goes.
        if !events.allSatisfy(isWellFormed) {
            problem = "some of its events are not well formed"
            events = events.filter(isWellFormed)
        }
        try await storage.keepRecord(
            StoredAttemptRecord(
                attemptID: record.attemptID,
                deviceKey: upload.deviceKey,
                user: record.user,
                assessmentID: record.assessmentID,
                events: events,
                verified: problem == nil,
                problem: problem,
                receivedAt: now.timeIntervalSince1970
            )
        )
    }

    /// Every field of an event as a vault writes it: a time, a question id, a count in bounds, hex hashes.
    public static func isWellFormed(_ event: RecordEvent) -> Bool {
        func isHash(_ text: String) -> Bool {
            text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        }
        let question =
            event.question.map { id in
                !id.isEmpty && id.utf8.count <= 64
                    && id.unicodeScalars.allSatisfy {
                        $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
                    }
            } ?? true
        return question && Timestamp.milliseconds(event.at) != nil && event.at.utf8.count <= 40 && abs(event.count ?? 0) <= 10_000_000
            && isHash(event.previous) && isHash(event.hash) && event.seq >= 1
    }
}

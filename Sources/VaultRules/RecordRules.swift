import Foundation
import VaultAPI
import VaultModel

/// One device's record of an attempt as the server keeps it: the events, and whether they verified on arrival.
public struct StoredAttemptRecord: Sendable, Equatable {
    public var attemptID: String
    public var deviceKey: String
    public var user: String
    public var assessmentID: String
    public var events: [RecordEvent]
    public var verified: Bool
    /// Why it does not verify, in words (nil when it does).
    public var problem: String?
    public var receivedAt: Double

    public init(
        attemptID: String,
        deviceKey: String,
        user: String,
        assessmentID: String,
        events: [RecordEvent],
        verified: Bool,
        problem: String?,
        receivedAt: Double
    ) {
        self.attemptID = attemptID
        self.deviceKey = deviceKey
        self.user = user
        self.assessmentID = assessmentID
        self.events = events
        self.verified = verified
        self.problem = problem
        self.receivedAt = receivedAt
    }
}

/// The rules of an attempt's record on arrival and for the teacher's eyes.
public enum RecordRules {
    /// Whether an uploaded record verifies: signed by one of the student's registered vault keys over the attempt,
    /// the head and the length of exactly these events, and every link of the chain whole. A record that does not
    /// verify never costs the student the answers: the hand-in is stored as always, and the record is kept with why.
    public static func check(_ upload: AttemptLogUpload, attemptID: String, registeredKeys: [String]) -> String? {
        guard registeredKeys.contains(upload.deviceKey) else { return "it is signed by a key that is not one of this student's vaults" }
        if let problem = RecordChain.verify(upload.events) { return "\(problem)" }
        let statement = AttemptLogUpload.statement(attemptID: attemptID, head: RecordChain.head(upload.events), count: upload.events.count)
        guard Signatures.isValid(upload.signature, for: statement, publicKey: upload.deviceKey) else {
            return "the vault's signature does not cover these \(upload.events.count) events: some were removed, added or changed on the way"
        }
        return nil
    }

    /// What an attempt's records leave out, in sentences (issue 70): a chain kept whole can still be cut short or
    /// rewritten by a student holding their own vault's key, so each record must begin where an attempt begins
    /// ("started", or "continued_elsewhere" on a second device), and every question the hand-in has an answer to
    /// must have an "answered" event in one of them. `answered`: the attempt's questions with an answer (nil: not
    /// known, only the beginning is checked). No record at all (a vault from before records) leaves nothing out.
    public static func gaps(_ records: [StoredAttemptRecord], answered: Set<String>?) -> [String] {
        guard !records.isEmpty else { return [] }
        var gaps: [String] = []
        for record in records {
            guard let first = record.events.first else {
                gaps.append("a record from one device holds no event")
                continue
            }
            // A blank hand-in of an untimed test has no start: an untimed attempt starts with its first answer.
            let blank = answered?.isEmpty == true && !record.events.contains { $0.kind == .answered }
            if first.kind != .started && first.kind != .continuedElsewhere && !blank {
                gaps.append("a record does not begin where the attempt began (it starts with \"\(RecordWords.english(first))\")")
            }
        }
        // An attempt continued on another device: the first device's record may not have come (it hands nothing in),
        // so its answers are not looked for.
        let continued = records.contains { $0.events.first?.kind == .continuedElsewhere }
        let recorded = Set(records.flatMap(\.events).filter { $0.kind == .answered }.compactMap(\.question))
        let missing = continued ? [] : (answered ?? []).subtracting(recorded).sorted()
        if !missing.isEmpty {
            gaps.append("its record has no event for the \(missing.count == 1 ? "answer" : "answers") to \(missing.joined(separator: ", "))")
        }
        return gaps
    }

    /// The summary of a student's records, with `answered` (each attempt's questions with an answer, by attempt id)
    /// to tell what the records leave out (`gaps`).
    public static func summary(_ records: [StoredAttemptRecord], answered: [String: Set<String>]? = nil) -> RecordSummary {
        var summary = RecordSummary()
        for (attempt, kept) in Dictionary(grouping: records, by: \.attemptID).sorted(by: { $0.key < $1.key }) {
            let gaps = gaps(kept, answered: answered?[attempt])
            if !gaps.isEmpty { summary.gaps = (summary.gaps ?? []) + gaps }
        }
        for record in records {
            if !record.verified { summary.unverified += 1 }
            for event in record.events {
                switch event.kind {
                case .left: summary.left += 1
                case .pasted: summary.pasted[event.question ?? "?", default: 0] += max(0, event.count ?? 0)
                case .resumed: summary.resumed += 1
                case .clockMoved: summary.clockMovedMinutes += event.count ?? 0
                default: break
                }
            }
        }
        return summary
    }

    /// Every device's events of an attempt, merged by wall time for reading (each chain stays in its own order).
    public static func timeline(_ records: [StoredAttemptRecord]) -> [(device: String, event: RecordEvent)] {
        records.flatMap { record in record.events.map { (device: record.deviceKey, event: $0) } }.enumerated().sorted {
            let a = Timestamp.milliseconds($0.element.event.at) ?? 0
            let b = Timestamp.milliseconds($1.element.event.at) ?? 0
            return (a, $0.offset) < (b, $1.offset)
        }.map(\.element)
    }
}

/// An event in words, for the teacher (the server's English): what happened, and to which question.
public enum RecordWords {
    public static func english(_ event: RecordEvent) -> String {
        let question = event.question ?? "?"
        let count = event.count ?? 0
        return switch event.kind {
        case .started: "started"
        case .answered: "answered \(question)"
        case .flagged: "flagged \(question)"
        case .unflagged: "took the flag off \(question)"
        case .left: "left the exam screen" + (event.question.map { " (on \($0))" } ?? "")
        case .returned: "came back to the exam screen"
        case .pasted: "pasted \(count.formatted()) \(count == 1 ? "character" : "characters") into \(question)"
        case .endedUncleanly: "the session before ended without leaving the exam (killed, terminal closed or power lost)"
        case .resumed: "resumed"
        case .clockMoved: "the device clock moved \(count < 0 ? "back" : "forward") \(abs(count)) minutes"
        case .timeUp: "the time ran out"
        case .submitted: "submitted"
        case .handedInByFile: "made the hand-in file"
        case .continuedElsewhere: "continued here, begun on another device"
        }
    }
}

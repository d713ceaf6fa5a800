import Foundation

/// What one `vault sync` did; the keys scripts rely on are in docs/cli.md.
public struct SyncReport: Codable, Sendable, Equatable {
    public var uploaded = 0
    public var duplicates = 0
    public var superseded = 0
    public var conflicts = 0
    public var gone = 0
    public var deadLetters = 0
    public var remaining = 0
    public var submitted = 0
    public var receipts: [String] = []
    public var refreshed: [String] = []
    /// Results of handed-in attempts the server showed (kept in the vault).
    public var results = 0
    /// Attempts whose receipt left answers out, with those questions: not handed in yet, the answers sent again.
    public var unconfirmed: [String: [String]] = [:]
    /// Sentences the server added to a receipt for the student (a hand-in that arrived after the exam closed).
    public var notices: [String] = []
    /// Hand-ins a classroom server held whose district receipts arrived with this sync (issue 58).
    public var confirmedByDistrict = 0
    /// New refusals by the district of work a classroom passed on, a sentence per attempt (issue 68).
    public var refusedByDistrict: [String] = []
    /// Attempts the district refused at an earlier sync (told then; `vault receipts` shows them).
    public var refusedEarlier = 0

    enum CodingKeys: String, CodingKey {
        case uploaded, duplicates, superseded, conflicts, gone, remaining, submitted, receipts, refreshed, results, unconfirmed, notices
        case deadLetters = "dead_letters"
        case confirmedByDistrict = "confirmed_by_district"
        case refusedByDistrict = "refused_by_district"
        case refusedEarlier = "refused_earlier"
    }

    public init() {}

    /// Something waits for the student: a conflict to decide, a dead letter, answers the server has not confirmed, or
    /// work the district refused.
    public var needsAttention: Bool { conflicts > 0 || deadLetters > 0 || !unconfirmed.isEmpty || !refusedByDistrict.isEmpty }
}

/// The run stopped with work kept in the queue: the network went away or the next retry is far off.
public struct SyncStopped: Error, Sendable {
    public let report: SyncReport
    public let nextTryAt: Date?
    public let reason: ServerError
}

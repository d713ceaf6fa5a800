import Foundation

/// One event of an attempt's own record (its integrity log): when it happened by the wall clock and the boot clock,
/// what happened, the question it concerns where one does, a count where one says more (characters pasted, minutes the
/// clock moved), and its place in a hash chain. Never keystrokes, never answer or pasted text.
public struct RecordEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// The start screen accepted, or the first answer of an untimed test.
        case started
        case answered
        case flagged
        case unflagged
        /// The terminal reported that the exam screen lost focus, then got it back.
        case left
        case returned
        /// Text pasted (bracketed paste): `count` characters, never the text.
        case pasted
        /// The last session on this device ended without leaving (kill -9, a closed terminal, power loss), found at
        /// the next start; then `resumed`.
        case endedUncleanly = "ended_uncleanly"
        case resumed
        /// The wall clock and the boot clock disagree by more than a minute: `count` minutes (negative: back).
        case clockMoved = "clock_moved"
        case timeUp = "time_up"
        case submitted
        case handedInByFile = "handed_in_by_file"
        case continuedElsewhere = "continued_elsewhere"
    }

    /// 1, 2, … on its device's chain.
    public var seq: Int
    /// Wall time, RFC 3339 with milliseconds.
    public var at: String
    /// Milliseconds since boot (suspend included): the clock no user can set.
    public var bootMs: Int64
    public var kind: Kind
    public var question: String?
    public var count: Int?
    /// The hash of the event before (64 zeros for the first).
    public var previous: String
    /// SHA-256 (hex) of this event's canonical text (`RecordEvent.canonical`).
    public var hash: String

    enum CodingKeys: String, CodingKey {
        case seq, at, kind, question, count, previous, hash
        case bootMs = "boot_ms"
    }

    public init(seq: Int, at: String, bootMs: Int64, kind: Kind, question: String? = nil, count: Int? = nil, previous: String, hash: String = "") {
        self.seq = seq
        self.at = at
        self.bootMs = bootMs
        self.kind = kind
        self.question = question
        self.count = count
        self.previous = previous
        self.hash = hash
    }

    /// What the hash covers: every field but the hash, in one fixed order ("|" never occurs in a field: a timestamp,
    /// a kind, a question id of letters, digits, '-' and '_', numbers, hex).
    public var canonical: String {
        "vault-record-v1|\(seq)|\(at)|\(bootMs)|\(kind.rawValue)|\(question ?? "")|\(count.map(String.init) ?? "")|\(previous)"
    }

    public static let firstPrevious = String(repeating: "0", count: 64)
}

/// An attempt's record from one device as a hand-in carries it: its events, and the vault key's signature over the
/// attempt id, the chain's head and its length (`statement`), so that dropping, reordering or changing any event,
/// the last ones too, is seen.
public struct AttemptLogUpload: Codable, Sendable, Equatable {
    public var events: [RecordEvent]
    /// The vault's device public key (raw Ed25519, base64) that signed it.
    public var deviceKey: String
    public var signature: String

    enum CodingKeys: String, CodingKey {
        case events, signature
        case deviceKey = "device_key"
    }

    public init(events: [RecordEvent], deviceKey: String, signature: String) {
        self.events = events
        self.deviceKey = deviceKey
        self.signature = signature
    }

    /// The bytes the vault key signs.
    public static func statement(attemptID: String, head: String, count: Int) -> Data {
        Data("vault-record-v1\n\(attemptID)\n\(head)\n\(count)".utf8)
    }

    /// The most events one hand-in carries (a 3-hour exam with an answer every few seconds stays far below).
    public static let maxEvents = 10_000
}

/// What a teacher should look at in a student's attempts' records (issue 55), counted over every device's record.
public struct RecordSummary: Sendable, Equatable, Codable {
    public var left: Int = 0
    /// Characters pasted, by question.
    public var pasted: [String: Int] = [:]
    public var resumed: Int = 0
    /// Minutes the wall clock moved (negative: back), added up.
    public var clockMovedMinutes: Int = 0
    public var unverified: Int = 0
    /// What the records leave out, in sentences (a record cut short or rewritten, answers with no event); nil: nothing.
    public var gaps: [String]?

    enum CodingKeys: String, CodingKey {
        case left, pasted, resumed, gaps
        case clockMovedMinutes = "clock_moved_minutes"
        case unverified = "does_not_verify"
    }

    public init() {}

    public var isEmpty: Bool { left == 0 && pasted.isEmpty && resumed == 0 && clockMovedMinutes == 0 && unverified == 0 && gaps == nil }

    /// Short phrases for the roster: "left the exam screen 6 times", "pasted 1,240 characters into q3".
    public var words: [String] {
        var words: [String] = []
        if left > 0 { words.append(left == 1 ? "left the exam screen once" : "left the exam screen \(left) times") }
        for (question, count) in pasted.sorted(by: { $0.key < $1.key }) {
            words.append("pasted \(count.formatted()) \(count == 1 ? "character" : "characters") into \(question)")
        }
        if resumed > 0 { words.append(resumed == 1 ? "resumed once after an unclean end" : "resumed \(resumed) times after an unclean end") }
        if clockMovedMinutes != 0 {
            words.append("clock moved \(clockMovedMinutes < 0 ? "back" : "forward") \(abs(clockMovedMinutes)) minutes")
        }
        if unverified > 0 || gaps != nil { words.append("its record does not verify") }
        words += gaps ?? []
        return words
    }
}

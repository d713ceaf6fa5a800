import Foundation
import Testing
import VaultCore

struct EvictionPolicyTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static func daysAgo(_ days: Double) -> Date { now.addingTimeInterval(-days * 86_400) }
    static func inDays(_ days: Double) -> Date { now.addingTimeInterval(days * 86_400) }

    static func entry(
        _ id: String,
        bytes: Int = 100,
        downloaded: Double = 1,
        opened: Double? = nil,
        expiresIn: Double = 5,
        open: Bool = false,
        unsynced: Bool = false,
        synced: Bool = false
    ) -> EvictionPolicy.Entry {
        EvictionPolicy.Entry(
            id: id,
            version: 1,
            storedBytes: bytes,
            downloadedAt: daysAgo(downloaded),
            lastOpenedAt: opened.map(daysAgo),
            expiresAt: inDays(expiresIn),
            hasOpenAttempt: open,
            hasUnsyncedWork: unsynced,
            hasSyncedAttempt: synced
        )
    }

    let policy = EvictionPolicy(limits: .init(maxBytes: 1_000, maxCount: 5), now: now)

    struct TierCase: Sendable, CustomTestStringConvertible {
        let name: String
        let entry: EvictionPolicy.Entry
        let tier: EvictionPolicy.Tier?
        var testDescription: String { name }
    }

    static let tierCases: [TierCase] = [
        TierCase(name: "expired, nothing pending", entry: entry("a", expiresIn: -1), tier: .expiredAndSynced),
        TierCase(name: "expired but answers pending", entry: entry("a", expiresIn: -1, unsynced: true), tier: nil),
        TierCase(name: "expired with an attempt in progress", entry: entry("a", expiresIn: -1, open: true), tier: nil),
        TierCase(
            name: "completed, uploaded, not opened for 8 days",
            entry: entry("a", downloaded: 20, opened: 8, synced: true),
            tier: .completedNotOpenedForAWeek
        ),
        TierCase(
            name: "completed, uploaded, opened 2 days ago",
            entry: entry("a", downloaded: 20, opened: 2, synced: true),
            tier: .leastRecentlyOpened
        ),
        TierCase(name: "never opened, downloaded 4 days ago", entry: entry("a", downloaded: 4), tier: .neverOpenedAfterThreeDays),
        TierCase(name: "never opened, downloaded yesterday", entry: entry("a", downloaded: 1), tier: .leastRecentlyOpened),
        TierCase(name: "opened, nothing special", entry: entry("a", downloaded: 10, opened: 1), tier: .leastRecentlyOpened),
        TierCase(name: "submitted, not acknowledged", entry: entry("a", downloaded: 30, opened: 20, unsynced: true), tier: nil),
        TierCase(name: "attempt in progress", entry: entry("a", downloaded: 30, opened: 20, open: true), tier: nil),
    ]

    @Test("each entry falls in the right tier, or is kept", arguments: tierCases)
    func tiers(_ testCase: TierCase) {
        #expect(policy.tier(of: testCase.entry) == testCase.tier)
    }

    @Test("order: by tier, then least recently used; protected entries never appear")
    func order() {
        let entries = [
            Self.entry("lru-old", downloaded: 10, opened: 5),
            Self.entry("lru-new", downloaded: 10, opened: 1),
            Self.entry("never-opened", downloaded: 4),
            Self.entry("done-stale", downloaded: 20, opened: 9, synced: true),
            Self.entry("expired", expiresIn: -1),
            Self.entry("in-progress", downloaded: 30, opened: 29, open: true),
            Self.entry("unsent", downloaded: 30, opened: 29, unsynced: true),
        ]
        #expect(policy.order(entries).map(\.id) == ["expired", "done-stale", "never-opened", "lru-old", "lru-new"])
    }

    @Test("a plan evicts just enough for both the byte and the count limit")
    func plans() {
        let entries = (0..<5).map { Self.entry("e\($0)", bytes: 150, downloaded: 10, opened: Double(10 - $0)) }
        // 750 bytes, 5 entries: a sixth needs one slot (count) and, at 400 bytes, 150 more bytes.
        #expect(
            policy.plan(entries: entries, incomingBytes: 100) == .evict([.init(id: "e0", version: 1, storedBytes: 150, tier: .leastRecentlyOpened)])
        )
        if case .evict(let chosen) = policy.plan(entries: entries, incomingBytes: 500) {
            #expect(chosen.map(\.id) == ["e0", "e1"])
        } else {
            Issue.record("expected a plan")
        }
        #expect(policy.plan(entries: Array(entries.prefix(2)), incomingBytes: 100) == .evict([]))
    }

    @Test("when protected work fills the cache, the plan says it cannot fit and evicts nothing")
    func cannotFit() {
        let entries = [
            Self.entry("a", bytes: 600, open: true),
            Self.entry("b", bytes: 300, unsynced: true),
            Self.entry("c", bytes: 50),
        ]
        #expect(policy.plan(entries: entries, incomingBytes: 200) == .cannotFit(neededBytes: 200, freeableBytes: 50))
        #expect(policy.plan(entries: [], incomingBytes: 2_000) == .cannotFit(neededBytes: 2_000, freeableBytes: 0))
    }

    @Test("5,000 entries are ordered and planned without trouble")
    func large() {
        let entries: [EvictionPolicy.Entry] = (0..<5_000).map { index in
            let opened: Double? = index % 3 == 0 ? nil : Double(index % 7)
            return Self.entry("e\(index)", bytes: 1_000, downloaded: Double(index % 30), opened: opened, open: index % 11 == 0)
        }
        let big = EvictionPolicy(limits: .init(maxBytes: 4_000_000, maxCount: 5_000), now: Self.now)
        if case .evict(let chosen) = big.plan(entries: entries, incomingBytes: 10_000) {
            #expect(chosen.count >= 1_010)
            #expect(!chosen.contains { Int($0.id.dropFirst())! % 11 == 0 })
        } else {
            Issue.record("expected a plan")
        }
    }
}

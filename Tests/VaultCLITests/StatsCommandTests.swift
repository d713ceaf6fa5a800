import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultTestSupport

/// `vault stats` (issue 59): the vault's own counts of its use, each event counted once, through the real binaries.
@Suite(.ownThreads)
struct StatsCommandTests {
    @Test("vault stats after a submission online, a conflict, an offline sync failure, an offline take and an eviction: each counted once")
    func eachCountedOnce() throws {
        let (vault, server) = try CLIFixtures.prepared()
        #expect(try vault.unlocked(["download", "science-timed", "reading-fa-en"]).status == 0)
        // A conflict: the teacher changes q1 after it was answered.
        let changed = vault.root.file("v2.json")
        var document = try JSONDecoder().decode(Assessment.self, from: Data(contentsOf: Binaries.sampleURL("algebra-1")))
        document.questions[0].prompt = "3x = 15. What is x?"
        try CanonicalJSON.encode(document).write(to: URL(fileURLWithPath: changed))
        #expect(try server.admin(["publish", changed]).status == 0)
        #expect(try vault.unlocked(["sync", "--on-conflict", "keep"]).status == 3)
        #expect(try vault.unlocked(["sync", "--on-conflict", "submit"]).status == 0)
        // Offline: a sync that fails, then a take on the train.
        server.stop()
        #expect(try vault.unlocked(["sync"]).status == 69)
        let take = try vault.unlocked(["take", "science-timed", "--yes", "--non-interactive"], extraInput: "b\n:q\n")
        #expect(take.status == 0, "\(take.stderr)")
        #expect(try vault.unlocked(["take", "not-here", "--non-interactive"]).status != 0)
        // Room made by hand.
        #expect(try vault.unlocked(["evict", "reading-fa-en"]).status == 0)

        let stats = try vault.unlocked(["stats", "--json"])
        #expect(stats.status == 0, "\(stats.stderr)")
        let counts = try #require(stats.json as? [String: Int], "\(stats.stdout)")
        #expect(counts["attempts_submitted"] == 1 && counts["attempts_submitted_offline"] == 0, "\(counts)")
        #expect(counts["conflicts"] == 1, "\(counts)")
        #expect(counts["sync_successes"] == 2 && counts["sync_failures"] == 1, "\(counts)")
        #expect(counts["offline_sessions"] == 1, "\(counts)")
        #expect(counts["evictions"] == 1, "\(counts)")
        #expect(counts["answers_uploaded"] == 3, "the three answers, acknowledged once: \(counts)")
        #expect(counts["cache_hits"] == 2 && counts["cache_misses"] == 1, "two attempts opened from the cache, one not there: \(counts)")
        let text = try vault.unlocked(["stats"]).stdout
        #expect(text.contains("Syncs: 2 succeeded, 1 failed (66 %)") && text.contains("Evictions: 1"), "\(text)")
    }
}

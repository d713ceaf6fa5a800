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

    @Test(
        "client stats: off by default, a sync sends none of them (the server's metrics and its requests say so); turned on, the next sync's counts reach /metrics once, and a later sync adds only what is new"
    )
    func clientStatsReachTheServer() throws {
        let (vault, server) = try CLIFixtures.prepared()
        #expect(try vault.unlocked(["sync"]).status == 0)
        var scraped = try MetricsCommandTests.scrape(server)
        #expect(scraped.status == "200")
        #expect(!scraped.samples.keys.contains { $0.hasPrefix("vault_client_") || $0.contains("client-stats") }, "\(scraped.samples.keys.sorted())")
        #expect(try server.admin(["settings", "show", "--json"]).stdout.contains("\"client-stats\":\"off\""))
        let refused = try server.admin(["settings", "set", "client-stats", "maybe"])
        #expect(refused.status != 0 && refused.stderr.contains("off or on"), "\(refused.stderr)")

        #expect(try server.admin(["settings", "set", "client-stats", "on"]).status == 0)
        #expect(try vault.unlocked(["sync"]).status == 0)
        scraped = try MetricsCommandTests.scrape(server)
        func sample(_ name: String) -> Double? { scraped.samples["vault_client_\(name)_total{}"] }
        #expect(
            sample("attempts_submitted") == 1 && sample("answers_uploaded") == 3,
            "\(scraped.samples.filter { $0.key.hasPrefix("vault_client") })"
        )
        #expect(
            sample("sync_successes") == 1,
            "the first sync's success, counted after it ended: \(scraped.samples.filter { $0.key.hasPrefix("vault_client") })"
        )
        #expect(try vault.unlocked(["sync"]).status == 0)
        scraped = try MetricsCommandTests.scrape(server)
        #expect(sample("attempts_submitted") == 1 && sample("sync_successes") == 2, "\(scraped.samples.filter { $0.key.hasPrefix("vault_client") })")
        // A student cannot send counts of their own making while the school has them off.
        #expect(try server.admin(["settings", "set", "client-stats", "off"]).status == 0)
        let before = try MetricsCommandTests.scrape(server).samples.filter { $0.key.hasPrefix("vault_client") }
        #expect(try vault.unlocked(["sync"]).status == 0)
        #expect(try MetricsCommandTests.scrape(server).samples.filter { $0.key.hasPrefix("vault_client") } == before)
    }

    @Test(
        "vault-server status: after a vault's sync, the last hour holds its requests and its 3 answers, the store answers with its size, the slowest routes are templates; the text has a chart; a forwarded request gets no status"
    )
    func serverStatus() throws {
        let (vault, server) = try CLIFixtures.prepared()
        #expect(try vault.unlocked(["sync"]).status == 0)
        let result = try Binaries.run("vault-server", ["status", "--url", server.url, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let status = try JSONDecoder().decode(ServerStatus.self, from: Data(result.stdout.utf8))
        #expect(status.lastHour.count == 60)
        #expect(status.lastHour.map(\.answers).reduce(0, +) == 3, "\(status.lastHour.filter { $0.requests > 0 })")
        #expect(status.lastHour.map(\.requests).reduce(0, +) >= 4)
        #expect(status.store.kind == "sqlite" && status.store.state == "ok" && (status.store.bytes ?? 0) > 0, "\(status.store)")
        #expect(!status.slowest.isEmpty && status.slowest.allSatisfy { !$0.route.contains("algebra-1") }, "\(status.slowest)")
        let text = try Binaries.run("vault-server", ["status", "--url", server.url])
        #expect(text.stdout.contains("Requests a minute") && text.stdout.contains("█") && text.stdout.contains("Store: sqlite"), "\(text.stdout)")
        let forwarded = try Binaries.system(
            "curl",
            ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "X-Forwarded-For: 10.0.0.9", server.url + APIPath.serverStatus]
        )
        #expect(forwarded.stdout == "404")
        let nobody = try Binaries.run("vault-server", ["status", "--url", "http://127.0.0.1:1"])
        #expect(nobody.status != 0 && nobody.stderr.contains("No server answers"), "\(nobody.stderr)")
    }
}

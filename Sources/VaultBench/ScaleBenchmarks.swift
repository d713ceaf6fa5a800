import Foundation
import VaultAPI
@_spi(Testing) import VaultCore

/// Eviction over 5,000 cache entries and `storage` over 100,000 answers, against a fixed 50 ms budget.
enum ScaleBenchmarks {
    static func eviction(entries count: Int) -> BenchRow {
        let now = Date()
        var entries: [EvictionPolicy.Entry] = []
        entries.reserveCapacity(count)
        for index in 0..<count {
            let downloaded = now.addingTimeInterval(-Double(index % 30) * 86_400)
            let opened: Date? = index % 3 == 0 ? nil : now.addingTimeInterval(-Double(index % 11) * 86_400)
            let expires = now.addingTimeInterval(Double(index % 9 - 2) * 86_400)
            entries.append(
                EvictionPolicy.Entry(
                    id: "a\(index)",
                    version: 1,
                    storedBytes: 50_000 + index,
                    downloadedAt: downloaded,
                    lastOpenedAt: opened,
                    expiresAt: expires,
                    hasOpenAttempt: index % 13 == 0,
                    hasUnsyncedWork: index % 17 == 0,
                    hasSyncedAttempt: index % 5 == 0
                )
            )
        }
        let policy = EvictionPolicy(limits: .init(maxBytes: 200_000_000, maxCount: count), now: now)
        var samples = Samples()
        for _ in 0..<20 { _ = samples.time { policy.plan(entries: entries, incomingBytes: 10_000_000) } }
        return BenchRow(
            workload: "eviction decision, \(count) entries",
            ours: samples.median,
            baseline: 0.050,
            unit: "s",
            goal: "< 50 ms (baseline = budget)"
        )
    }

    static func storage(directory: String, answers: Int) throws -> BenchRow {
        let vault = try Vault.create(paths: VaultPaths(directory: directory + "/storage"), password: SecretBytes(Array("pw".utf8)), iterations: 1_000)
        try vault.database.inTransaction {
            for index in 0..<50 {
                // A real stored document (the report reads each cached one back, as `vault storage` does).
                let json = try JSONEncoder().encode(
                    Assessment(id: "a\(index)", title: "T", questions: [Question(id: "q1", type: .essay, prompt: "p")])
                )
                let document = try Gzip.compress(json)
                try vault.database.execute(
                    """
                    INSERT INTO assessments (id, version, title, content_hash, question_hashes, document, compressed_bytes, uncompressed_bytes,
                        downloaded_at, expires_at, last_accessed_at) VALUES (?, 1, 'T', 'h', '{}', ?, ?, ?, 0, 9e9, 0)
                    """,
                    ["a\(index)", document, document.count, json.count]
                )
                try vault.database.execute(
                    "INSERT INTO attempts (id, assessment_id, assessment_version, state, started_at) VALUES (?, ?, 1, 'in_progress', 0)",
                    ["t\(index)", "a\(index)"]
                )
            }
            let insert = try vault.database.cachedStatement(
                "INSERT INTO responses (id, attempt_id, question_id, question_hash, answer, answered_at, state) VALUES (?, ?, ?, 'h', '\"x\"', 1767225600000, ?)"
            )
            for index in 0..<answers {
                try insert.execute(["r\(index)", "t\(index % 50)", "q\(index)", index % 4 == 0 ? "pending" : "synced"])
            }
        }
        var samples = Samples()
        for _ in 0..<10 { _ = try samples.time { try vault.storage() } }
        return BenchRow(
            workload: "storage report, \(answers) answers",
            ours: samples.median,
            baseline: 0.050,
            unit: "s",
            goal: "< 50 ms (baseline = budget)"
        )
    }
}

import Foundation
import VaultAPI
@_spi(Testing) import VaultCore
import VaultModel
import VaultTake

/// Saving an essay line by line, through the take screen's own path: `TakeSession` turns each typed line into the
/// draft to record, and `Vault.recordAnswer` saves it durably, on an encrypted vault against the same on an unkeyed
/// one (the screen's driver only forwards the effect).
enum EssayBenchmarks {
    /// A one-essay assessment; each round takes a new one (a vault holds one attempt per assessment).
    static func essay(_ round: Int) -> Assessment {
        Assessment(id: "essay-\(round)", title: "Essay", questions: [Question(id: "e1", type: .essay, prompt: "Write.", maxLength: 20_000)])
    }

    /// 200 lines of 99 characters and a newline: a 20,000-character essay.
    static let lines = (0..<200).map { index in String(repeating: "word ", count: 19) + String(format: "%04d", index) }

    static func lineSaves(directory: String, essays: Int) throws -> [BenchRow] {
        let encrypted = try Vault.create(
            paths: VaultPaths(directory: directory + "/essay"),
            password: SecretBytes(Array("pw".utf8)),
            iterations: 1_000
        )
        let plain = try Vault.createUnencryptedForBenchmark(paths: VaultPaths(directory: directory + "/essay-plain"))
        var ours = Samples()
        var baseline = Samples()
        var oursWhole = Samples()
        var baselineWhole = Samples()
        for round in 0..<essays {
            let (document, bytes) = try BenchServing.served(essay(round))
            for (vault, isOurs) in [(encrypted, true), (plain, false)] {
                _ = try vault.storeAssessment(document, bytes: bytes, etag: nil, diskSpace: .fixed(1 << 40))
                let attempt = try vault.openAttempt(on: document.id)
                var session = TakeSession(attempt: attempt, needsStartConfirmation: false)
                let now = TakeSession.Now(time: vault.timeStatus(of: attempt), elapsed: .zero)
                _ = session.handle(.begin, now: now)
                let start = ContinuousClock.now
                for line in lines {
                    for case .record(let question, let value, let spent) in session.handle(.line(line), now: now) {
                        let save = {
                            try vault.recordAnswer(attemptID: attempt.id, questionID: question, answer: value, timeSpentMilliseconds: spent)
                        }
                        if isOurs { try ours.time(save) } else { try baseline.time(save) }
                    }
                }
                let seconds = (ContinuousClock.now - start).inSeconds
                if isOurs { oursWhole.seconds.append(seconds) } else { baselineWhole.seconds.append(seconds) }
            }
        }
        return [
            BenchRow(
                workload: "essay line save p50 (encrypted vs unkeyed)",
                ours: ours.median,
                baseline: baseline.median,
                unit: "s",
                goal: .ratioAtMost(1.2)
            ),
            BenchRow(
                workload: "essay line save p99 (encrypted vs unkeyed)",
                ours: ours.percentile(0.99),
                baseline: baseline.percentile(0.99),
                unit: "s",
                goal: .ratioAtMost(1.5)
            ),
            BenchRow(
                workload: "20,000-character essay typed as 200 lines (whole)",
                ours: oursWhole.median,
                baseline: baselineWhole.median,
                unit: "s",
                goal: "every line durable"
            ),
        ]
    }
}

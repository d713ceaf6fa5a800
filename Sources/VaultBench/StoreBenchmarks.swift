import Foundation
import VaultAPI
@_spi(Testing) import VaultCore
import VaultModel

/// Unlock and durable answer saves: the vault against the same primitives without the vault around them.
enum StoreBenchmarks {
    static func unlock(directory: String, iterations: Int, rounds: Int) throws -> BenchRow {
        let paths = VaultPaths(directory: directory + "/unlock")
        let password = SecretBytes(Array("bench password".utf8))
        _ = try Vault.create(paths: paths, password: password, iterations: iterations)
        var ours = Samples()
        var baseline = Samples()
        let salt = [UInt8](repeating: 3, count: 32)
        for _ in 0..<rounds {
            _ = try ours.time { try Vault.open(paths: paths, password: password) }
            _ = try baseline.time { try PBKDF2.derive(password: password, salt: salt, iterations: iterations, hash: .sha512) }
        }
        return BenchRow(
            workload: "unlock (PBKDF2-SHA512 x \(iterations) + open)",
            ours: ours.median,
            baseline: baseline.median,
            unit: "s",
            goal: "KDF dominates"
        )
    }

    /// `Vault.recordAnswer` itself (attempt check, hash lookup, replacing a pending answer, the queue row, progress,
    /// the clock checkpoint, access) on an encrypted vault, against the same call on the same library with the
    /// database unkeyed; and the physical floor: one small write and `fsync` on the same disk.
    static func answerSave(directory: String, count: Int) throws -> (p50: BenchRow, p99: BenchRow, floor: BenchRow) {
        let encrypted = try Vault.create(
            paths: VaultPaths(directory: directory + "/save"),
            password: SecretBytes(Array("pw".utf8)),
            iterations: 1_000
        )
        let plain = try Vault.createUnencryptedForBenchmark(paths: VaultPaths(directory: directory + "/save-plain"))
        let (document, bytes) = try BenchServing.served(SyncSetup.assessment)
        var attempts: [String] = []
        for vault in [encrypted, plain] {
            _ = try vault.storeAssessment(document, bytes: bytes, etag: nil, diskSpace: .fixed(1 << 40))
            attempts.append(try vault.openAttempt(on: document.id).id)
        }
        let questions = document.questions.map(\.id)
        let answer = JSONValue.string("an answer of ordinary length, a sentence or two typed by a student")
        var ours = Samples()
        var baseline = Samples()
        for index in 0..<count {
            let question = questions[index % questions.count]
            try ours.time { try encrypted.recordAnswer(attemptID: attempts[0], questionID: question, answer: answer) }
            try baseline.time { try plain.recordAnswer(attemptID: attempts[1], questionID: question, answer: answer) }
        }
        var floor = Samples()
        let path = directory + "/fsync-floor"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(descriptor) }
        let block = [UInt8](repeating: 7, count: 512)
        for _ in 0..<count {
            floor.time {
                _ = pwrite(descriptor, block, block.count, 0)
                fsync(descriptor)
            }
        }
        floorMedian = floor.median
        return (
            BenchRow(
                workload: "recordAnswer p50 (encrypted vs unkeyed)",
                ours: ours.median,
                baseline: baseline.median,
                unit: "s",
                goal: .ratioAtMost(1.2)
            ),
            BenchRow(
                workload: "recordAnswer p99 (encrypted vs unkeyed)",
                ours: ours.percentile(0.99),
                baseline: baseline.percentile(0.99),
                unit: "s",
                goal: .ratioAndValueAtMost(1.5, 0.005)
            ),
            BenchRow(
                workload: "recordAnswer p50 vs one fsync (the floor)",
                ours: ours.median,
                baseline: floor.median,
                unit: "s",
                goal: "journal DELETE: 3 fsyncs a commit"
            )
        )
    }

    /// The fsync floor measured by `answerSave`, reused by the journal-mode rows.
    nonisolated(unsafe) static var floorMedian = 0.0

    /// `recordAnswer` p50 on an encrypted vault under each rollback-journal mode, and WAL (one connection only:
    /// security.md), each beside the physical floor: which mode comes closest to one fsync.
    static func journalModes(directory: String, count: Int) throws -> [BenchRow] {
        let (document, bytes) = try BenchServing.served(SyncSetup.assessment)
        let answer = JSONValue.string("an answer of ordinary length, a sentence or two typed by a student")
        return try ["DELETE", "TRUNCATE", "PERSIST", "WAL"].map { mode in
            let vault = try Vault.create(
                paths: VaultPaths(directory: directory + "/journal-\(mode)"),
                password: SecretBytes(Array("pw".utf8)),
                iterations: 1_000
            )
            _ = try vault.database.rows("PRAGMA journal_mode = \(mode)")
            _ = try vault.storeAssessment(document, bytes: bytes, etag: nil, diskSpace: .fixed(1 << 40))
            let attempt = try vault.openAttempt(on: document.id).id
            var samples = Samples()
            for index in 0..<count {
                let question = document.questions[index % document.questions.count].id
                try samples.time { try vault.recordAnswer(attemptID: attempt, questionID: question, answer: answer) }
            }
            return BenchRow(
                workload: "recordAnswer p50, journal \(mode) vs one fsync",
                ours: samples.median,
                baseline: floorMedian,
                unit: "s",
                goal: mode == "DELETE" ? "the vault's mode" : "-"
            )
        }
    }
}

import Foundation
@_spi(Testing) import VaultCore

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

    /// One answer saved the way the vault saves it (an IMMEDIATE transaction, synchronous=FULL, journal DELETE),
    /// encrypted, against the same statement on the same library unkeyed with the same settings.
    static func answerSave(directory: String, count: Int) throws -> (p50: BenchRow, p99: BenchRow) {
        let vault = try Vault.create(
            paths: VaultPaths(directory: directory + "/save"),
            password: SecretBytes(Array("pw".utf8)),
            iterations: 1_000
        )
        try seedAttempt(vault.database)
        let plain = try Database(path: directory + "/plain.db", encryption: .plaintext)
        try plain.execute(VaultSchemaExport.version1)
        try seedAttempt(plain)
        var ours = Samples()
        var baseline = Samples()
        for index in 0..<count {
            try ours.time { try save(vault.database, index) }
            try baseline.time { try save(plain, index) }
        }
        return (
            BenchRow(workload: "durable answer save p50", ours: ours.median, baseline: baseline.median, unit: "s", goal: "ratio <= 1.2"),
            BenchRow(
                workload: "durable answer save p99",
                ours: ours.percentile(0.99),
                baseline: baseline.percentile(0.99),
                unit: "s",
                goal: "ratio <= 1.2"
            )
        )
    }

    static func seedAttempt(_ database: Database) throws {
        try database.execute(
            """
            INSERT INTO assessments (id, version, title, content_hash, question_hashes, document, compressed_bytes, uncompressed_bytes,
                downloaded_at, expires_at, last_accessed_at) VALUES ('bench', 1, 'Bench', 'h', '{}', x'00', 1, 1, 0, 0, 0);
            INSERT INTO attempts (id, assessment_id, assessment_version, state, started_at) VALUES ('a', 'bench', 1, 'in_progress', 0);
            """
        )
    }

    static func save(_ database: Database, _ index: Int) throws {
        try database.inTransaction {
            try database.execute(
                """
                INSERT INTO responses (id, attempt_id, question_id, question_hash, answer, time_spent_ms, answered_at, state)
                VALUES (?, 'a', ?, 'hash', ?, 1000, '2026-11-22T10:00:00.000Z', 'pending')
                """,
                ["r\(index)", "q\(index % 50)", "\"an answer of ordinary length, a sentence or two typed by a student\""]
            )
        }
    }
}

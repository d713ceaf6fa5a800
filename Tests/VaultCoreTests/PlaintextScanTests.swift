import Foundation
import Testing
@_spi(Testing) import VaultCore
import VaultTestSupport

/// No plaintext of an assessment, an answer, a token or the password in any file the vault writes, nor in TMPDIR.
@Suite(.ownThreads)
struct PlaintextScanTests {
    let directory = TemporaryDirectory()

    static let canaries = [
        "CANARY-ASSESSMENT-PROMPT-7f3a", "CANARY-ANSWER-TEXT-91bc", "CANARY-TOKEN-55e1", "CANARY-PASSWORD-0d2e",
        "CANARY-SERVER-USER-aa11",
    ]

    @Test("canaries written to every table, mid-transaction and after close, appear in no file")
    func scan() throws {
        let tmp = NSTemporaryDirectory()
        let tmpBefore = Set((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? [])
        let vault = try TestVault.create(in: directory, password: "CANARY-PASSWORD-0d2e")
        let document = try Gzip.compress(Data(#"{"title":"Quiz","questions":[{"prompt":"CANARY-ASSESSMENT-PROMPT-7f3a"}]}"#.utf8))
        try vault.database.inTransaction {
            try vault.database.execute(
                "INSERT INTO account (id, server_url, user_name, token) VALUES (1, 'http://127.0.0.1:1', ?, ?)",
                ["CANARY-SERVER-USER-aa11", "CANARY-TOKEN-55e1"]
            )
            try vault.database.execute(
                """
                INSERT INTO assessments (id, version, title, content_hash, question_hashes, document, compressed_bytes,
                    uncompressed_bytes, downloaded_at, expires_at, last_accessed_at)
                VALUES ('quiz', 1, 'CANARY-ASSESSMENT-PROMPT-7f3a', 'h', '{}', ?, 1, 1, 0, 0, 0)
                """,
                [document]
            )
            try vault.database.execute(
                "INSERT INTO attempts (id, assessment_id, assessment_version, state, started_at) VALUES ('a1', 'quiz', 1, 'in_progress', 0)"
            )
            try vault.database.execute(
                """
                INSERT INTO responses (id, attempt_id, question_id, question_hash, answer, answered_at, state)
                VALUES ('r1', 'a1', 'q1', 'h', ?, '2026-01-01T00:00:00.000Z', 'pending')
                """,
                ["\"CANARY-ANSWER-TEXT-91bc\""]
            )
            // While the transaction is open the rollback journal exists: scan it too.
            let hits = TestVault.filesContaining(Self.canaries, in: directory.allFiles())
            #expect(hits.isEmpty, "during transaction: \(hits)")
        }
        // Force page churn: secure_delete must not leave old cells readable either.
        try vault.database.execute("UPDATE responses SET answer = '\"changed\"' WHERE id = 'r1'", [])
        let hits = TestVault.filesContaining(Self.canaries, in: directory.allFiles())
        #expect(hits.isEmpty, "while open: \(hits)")
        _ = consume vault
        #expect(TestVault.filesContaining(Self.canaries, in: directory.allFiles()).isEmpty)
        let newTmp = Set((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).subtracting(tmpBefore)
        let tmpFiles = newTmp.map { tmp + "/" + $0 }
        #expect(TestVault.filesContaining(Self.canaries, in: tmpFiles).isEmpty)
    }
}

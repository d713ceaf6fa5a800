import Foundation
import VaultAPI
@_spi(Testing) import VaultCore
import VaultModel
import VaultSync

/// Builds the sync workload: a vault holding N pending answers, and the same answers (fresh ids) as prepared
/// gzip batches for the bare-client baseline.
enum SyncSetup {
    static let questions = 2_000

    static var assessment: Assessment {
        Assessment(
            id: "bench-sync",
            title: "Sync bench",
            questions: (0..<questions).map {
                Question(id: "q\($0)", type: .shortText, prompt: "Question \($0)", maxLength: 500)
            }
        )
    }

    static func prepare(directory: String, answers: Int) throws {
        let served = try BenchServing.served(assessment)
        let vault = try Vault.create(paths: VaultPaths(directory: directory + "/sync-vault"), password: NetworkBenchmarks.password, iterations: 1_000)
        _ = try vault.storeAssessment(served.document, bytes: served.bytes, etag: nil, diskSpace: .fixed(1 << 40))
        let attempts = (answers + questions - 1) / questions
        var baseline: [ResponseItem] = []
        try vault.database.inTransaction {
            for attempt in 0..<attempts {
                try vault.database.execute(
                    "INSERT INTO attempts (id, assessment_id, assessment_version, state, started_at) VALUES (?, 'bench-sync', 1, 'in_progress', 0)",
                    ["ours-\(attempt)"]
                )
            }
            for index in 0..<answers {
                let question = served.document.questions[index % questions]
                let id = "ours-r\(index)"
                let answer = "An answer of ordinary length, a sentence or two typed by a student (\(index))."
                try vault.database.execute(
                    """
                    INSERT INTO responses (id, attempt_id, question_id, question_hash, answer, time_spent_ms, answered_at, state)
                    VALUES (?, ?, ?, ?, ?, 1000, 1763805600000, 'pending')  -- 2026-11-22T10:00:00Z in milliseconds
                    """,
                    [id, "ours-\(index / questions)", question.id, question.hash ?? "", "\"\(answer)\""]
                )
                try vault.database.execute("INSERT INTO sync_queue (kind, ref_id, enqueued_at) VALUES ('response', ?, 0)", [id])
                baseline.append(
                    ResponseItem(
                        id: "base-r\(index)",
                        attemptId: "base-\(index / questions)",
                        assessmentId: "bench-sync",
                        assessmentVersion: 1,
                        questionId: question.id,
                        questionHash: question.hash ?? "",
                        answer: .string(answer),
                        timeSpentMs: 1000,
                        answeredAt: "2026-11-22T10:00:00.000Z"
                    )
                )
            }
        }
        let batches = try stride(from: 0, to: baseline.count, by: 100).map { start in
            try Gzip.compress(try CanonicalJSON.encode(BatchRequest(responses: Array(baseline[start..<min(start + 100, baseline.count)]))))
        }
        try JSONEncoder().encode(batches).write(to: URL(fileURLWithPath: directory + "/baseline-batches.json"))
    }
}

/// The served form as the server computes it (hashes set), so the bench vault holds what a download would.
enum BenchServing {
    static func served(_ assessment: Assessment) throws -> (document: Assessment, bytes: Data) {
        let served = try ServedDocument.hashed(assessment.served, version: 1)
        return (served, try CanonicalJSON.encode(served))
    }
}

import Foundation
import VaultAPI

extension Vault {
    /// Keeps the results the server showed (inside the encrypted database), replacing older copies; only for
    /// attempts of this vault.
    public func saveResults(_ results: [AttemptResult], now: Date = Date()) throws {
        try database.inTransaction {
            for result in results where try knowsAttempt(result.attemptId) {
                try database.execute(
                    "INSERT OR REPLACE INTO results (attempt_id, assessment_id, fetched_at, result) VALUES (?, ?, ?, ?)",
                    [
                        result.attemptId, result.assessmentId, now.timeIntervalSince1970,
                        String(decoding: try CanonicalJSON.encode(result), as: UTF8.self),
                    ]
                )
            }
        }
    }

    /// Results kept in the vault; `id` narrows to an assessment or an attempt.
    public func results(matching id: String? = nil) throws -> [AttemptResult] {
        let rows =
            if let id {
                try database.rows("SELECT result FROM results WHERE assessment_id = ? OR attempt_id = ? ORDER BY fetched_at DESC", [id, id])
            } else {
                try database.rows("SELECT result FROM results ORDER BY assessment_id, fetched_at DESC")
            }
        return rows.compactMap { try? JSONDecoder().decode(AttemptResult.self, from: Data($0.string(0).utf8)) }
    }
}

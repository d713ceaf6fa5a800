import Foundation
import VaultAPI
import VaultModel

extension Vault {
    /// Keeps the results the server showed (inside the encrypted database), replacing older copies; only for
    /// attempts of this vault.
    public func saveResults(_ results: [AttemptResult], now: Date? = nil) throws {
        let now = now ?? clocks.wall()
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

    /// Results kept in the vault; `id` narrows to an assessment or an attempt. A row that does not decode is named in
    /// `damaged`, never left out in silence.
    public func results(matching id: String? = nil) throws -> Kept<AttemptResult> {
        let rows =
            if let id {
                try database.rows(
                    "SELECT attempt_id, result FROM results WHERE assessment_id = ? OR attempt_id = ? ORDER BY fetched_at DESC",
                    [id, id]
                )
            } else {
                try database.rows("SELECT attempt_id, result FROM results ORDER BY assessment_id, fetched_at DESC")
            }
        var kept = Kept<AttemptResult>()
        for row in rows {
            do {
                guard case .text(let text) = row[1] else { throw CocoaError(.coderValueNotFound) }
                kept.values.append(try JSONDecoder().decode(AttemptResult.self, from: Data(text.utf8)))
            } catch {
                kept.damaged.append(DamagedRow(table: "results", key: row.string(0), reason: "the result does not decode: \(error)"))
            }
        }
        return kept
    }
}

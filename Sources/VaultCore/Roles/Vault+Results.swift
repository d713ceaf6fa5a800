import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

extension Vault {
    /// Keeps the results the server showed (inside the encrypted database), replacing older copies; only for
    /// attempts of this vault. Returns the released scores that changed from the ones kept (a regrade, a teacher's points), for a sentence.
    @discardableResult
    public func saveResults(_ results: [AttemptResult], now: Date? = nil) throws -> [ScoreChange] {
        let now = now ?? clocks.wall()
        var changes: [ScoreChange] = []
        try database.inTransaction {
            for result in results where try knowsAttempt(result.attemptId) {
                if result.released, let kept = try keptResult(attemptID: result.attemptId), kept.released,
                    kept.score != result.score || kept.maxScore != result.maxScore
                {
                    changes.append(ScoreChange(assessmentID: result.assessmentId, old: kept.score, new: result.score, maxScore: result.maxScore))
                }
                try database.execute(
                    "INSERT OR REPLACE INTO results (attempt_id, assessment_id, fetched_at, result) VALUES (?, ?, ?, ?)",
                    [
                        result.attemptId, result.assessmentId, now.millisecondsSince1970,
                        String(decoding: try CanonicalJSON.encode(result), as: UTF8.self),
                    ]
                )
            }
        }
        return changes
    }

    /// The result kept for an attempt, to compare a new one with. A damaged row reads as none: the new result being
    /// saved replaces it (the damage is repaired, not hidden; `vault verify` names it until then).
    private func keptResult(attemptID: String) throws -> AttemptResult? {
        guard case .text(let text)? = try database.row("SELECT result FROM results WHERE attempt_id = ?", [attemptID])?[0] else { return nil }
        do {
            return try JSONDecoder().decode(AttemptResult.self, from: Data(text.utf8))
        } catch {
            return nil
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
                kept.damaged.append(DamagedRow(table: "results", key: try row.string(0), reason: "the result does not decode: \(error)"))
            }
        }
        return kept
    }
}

/// A released score that changed since the vault last kept it.
public struct ScoreChange: Sendable, Equatable {
    public var assessmentID: String
    public var old: Double
    public var new: Double
    public var maxScore: Double

    /// The sentence a student reads after a sync.
    public var sentence: String {
        let (old, new, max) = (Self.points(old), Self.points(new), Self.points(maxScore))
        return tr(
            "Your score on {id} changed from {old} to {new} of {max}. Run `vault results {id}` to see each question.",
            ["id": assessmentID, "old": old, "new": new, "max": max]
        )
    }

    /// Points as the student's language writes a decimal.
    static func points(_ value: Double) -> String { Language.decimal(AttemptResult.pointsText(value)) }
}

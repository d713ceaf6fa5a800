import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

/// What a handed-in attempt was: the questions as the student saw them and the answers they gave. Results are read
/// against it (the question, the student's own answer, the correct one, in the letters the student saw), so it is
/// kept apart from the cache: when an assessment is evicted, the answer sheets of its handed-in attempts stay (inside
/// the encrypted database, like everything else) and results that arrive later still find their attempt.
extension Vault {
    /// The questions and answers of `attemptID`: from the cache while the attempt is there, else from its kept sheet.
    public func answerSheet(attemptID: String) throws -> (assessment: Assessment, answers: [String: JSONValue])? {
        if let row = try database.row(
            """
            SELECT a.document FROM attempts t JOIN assessments a ON a.id = t.assessment_id AND a.version = t.assessment_version
            WHERE t.id = ?
            """,
            [attemptID]
        ) {
            return (try Self.decodeDocument(try row.data(0), id: attemptID), try currentAnswers(attemptID: attemptID))
        }
        guard let row = try database.row("SELECT document, answers FROM answer_sheets WHERE attempt_id = ?", [attemptID]) else { return nil }
        let answers: [String: JSONValue]
        do {
            answers = try JSONDecoder().decode([String: JSONValue].self, from: Data(try row.string(1).utf8))
        } catch {
            throw VaultError(.databaseDamaged, tr("The kept answers of attempt {attempt} are damaged.", ["attempt": attemptID]), detail: "\(error)")
        }
        return (try Self.decodeDocument(try row.data(0), id: attemptID), answers)
    }

    /// Inside the transaction that evicts `id` at `version`: the sheets of its handed-in attempts are kept.
    func keepAnswerSheets(id: String, version: Int, now: Date) throws {
        let attempts = try database.rows(
            "SELECT id FROM attempts WHERE assessment_id = ? AND assessment_version = ? AND state != \(AttemptRecord.State.inProgress.sql)",
            [id, version]
        )
        guard !attempts.isEmpty,
            let document = try database.row("SELECT document FROM assessments WHERE id = ? AND version = ?", [id, version])?.data(0)
        else { return }
        for attempt in attempts {
            let attemptID = try attempt.string(0)
            let answers = String(decoding: try CanonicalJSON.encode(JSONValue.object(try currentAnswers(attemptID: attemptID))), as: UTF8.self)
            try database.execute(
                "INSERT OR REPLACE INTO answer_sheets (attempt_id, assessment_id, assessment_version, document, answers, kept_at) VALUES (?, ?, ?, ?, ?, ?)",
                [attemptID, id, version, document, answers, now.millisecondsSince1970]
            )
        }
    }

    /// True when `attemptID` is an attempt of this vault, in the cache or kept as a sheet.
    func knowsAttempt(_ attemptID: String) throws -> Bool {
        try database.row("SELECT 1 FROM attempts WHERE id = ? UNION ALL SELECT 1 FROM answer_sheets WHERE attempt_id = ?", [attemptID, attemptID])
            != nil
    }

    private static func decodeDocument(_ compressed: Data, id: String) throws -> Assessment {
        do {
            return try JSONDecoder().decode(Assessment.self, from: try Gzip.decompress(compressed))
        } catch {
            throw VaultError(.databaseDamaged, tr("The stored questions of attempt {id} are damaged.", ["id": id]), detail: "\(error)")
        }
    }
}

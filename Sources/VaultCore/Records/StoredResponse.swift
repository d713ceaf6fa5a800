import Foundation
import VaultAPI

/// One recorded answer with what an upload needs from its attempt: the columns and their order in one place, used
/// by the sync queue and by the dead letters.
struct StoredResponse {
    /// The selected columns, in order; `r` is `responses`, `t` its attempt.
    enum Column: Int, CaseIterable {
        case id, attemptID, assessmentID, assessmentVersion, questionID, questionHash, answer, timeSpentMs, answeredAt, force
        case attemptStartedAt

        var sql: String {
            switch self {
            case .id: "r.id"
            case .attemptID: "r.attempt_id"
            case .assessmentID: "t.assessment_id"
            case .assessmentVersion: "t.assessment_version"
            case .questionID: "r.question_id"
            case .questionHash: "r.question_hash"
            case .answer: "r.answer"
            case .timeSpentMs: "r.time_spent_ms"
            case .answeredAt: "r.answered_at"
            case .force: "r.force_pending"
            // The attempt's clock start (a timed test's timer), else when the attempt began.
            case .attemptStartedAt: "COALESCE(t.timer_started_at, t.started_at)"
            }
        }
    }

    /// `SELECT` list for these columns, placed after any columns a query puts first (`offset` of them).
    static let selection = Column.allCases.map(\.sql).joined(separator: ", ")
    static let fromClause = "responses r JOIN attempts t ON t.id = r.attempt_id"

    let id: String
    let attemptID: String
    let assessmentID: String
    let questionID: String
    /// The answer as stored (canonical JSON text).
    let storedAnswer: String
    /// The upload item, or nil when the stored answer no longer decodes (it is never sent in another form).
    let item: ResponseItem?

    init(_ row: Row, offset: Int = 0) throws {
        func at(_ column: Column) -> Int { offset + column.rawValue }
        id = try row.string(at(.id))
        attemptID = try row.string(at(.attemptID))
        assessmentID = try row.string(at(.assessmentID))
        questionID = try row.string(at(.questionID))
        storedAnswer = try row.string(at(.answer))
        let assessmentVersion = try row.int(at(.assessmentVersion))
        let questionHash = try row.string(at(.questionHash))
        let timeSpent = try row.int(at(.timeSpentMs))
        let answeredAt = try row.date(at(.answeredAt))
        let force = try row.bool(at(.force))
        let attemptStartedAt = try row.optionalDate(at(.attemptStartedAt))
        item = Self.decodeAnswer(storedAnswer).map { [id, attemptID, assessmentID, questionID] answer in
            ResponseItem(
                id: id,
                attemptId: attemptID,
                assessmentId: assessmentID,
                assessmentVersion: assessmentVersion,
                questionId: questionID,
                questionHash: questionHash,
                answer: answer,
                timeSpentMs: timeSpent,
                answeredAt: Timestamp.string(answeredAt),
                force: force,
                attemptStartedAt: attemptStartedAt.map(Timestamp.string)
            )
        }
    }

    /// An answer as stored, or nil when it does not decode. Never hidden: such an answer is sent to no server, it
    /// becomes a dead letter saying so, and `vault verify` lists it (docs/threat-model.md).
    static func decodeAnswer(_ text: String) -> JSONValue? { JSONReader.storedAnswer(text) }
}

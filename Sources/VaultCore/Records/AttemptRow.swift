import Foundation

/// The `attempts` columns an `AttemptRecord` is built from, in order, in one place.
struct AttemptRow {
    enum Column: Int, CaseIterable {
        case assessmentID, assessmentVersion, state, startedAt, submittedAt, activeMs, currentQuestion, flags
        var name: String {
            switch self {
            case .assessmentID: "assessment_id"
            case .assessmentVersion: "assessment_version"
            case .state: "state"
            case .startedAt: "started_at"
            case .submittedAt: "submitted_at"
            case .activeMs: "active_ms"
            case .currentQuestion: "current_question"
            case .flags: "flags"
            }
        }
    }

    static let selection = Column.allCases.map(\.name).joined(separator: ", ")

    let assessmentID: String
    let assessmentVersion: Int
    let state: AttemptRecord.State
    let startedAt: Date
    let submittedAt: Date?
    let activeMilliseconds: Int
    let currentQuestion: Int
    /// Question ids, stored comma-separated.
    let flagged: Set<String>

    init(_ row: Row) throws {
        assessmentID = row.string(Column.assessmentID.rawValue)
        assessmentVersion = row.int(Column.assessmentVersion.rawValue)
        state = try row.state(AttemptRecord.State.self, Column.state.rawValue)
        startedAt = Date(timeIntervalSince1970: row.double(Column.startedAt.rawValue))
        submittedAt = row.optionalDouble(Column.submittedAt.rawValue).map { Date(timeIntervalSince1970: $0) }
        activeMilliseconds = row.int(Column.activeMs.rawValue)
        currentQuestion = row.int(Column.currentQuestion.rawValue)
        flagged = Set(row.string(Column.flags.rawValue).split(separator: ",").map(String.init))
    }
}

import Foundation
import VaultModel

/// The `attempts` columns an `AttemptRecord` is built from, in order, in one place.
struct AttemptRow {
    enum Column: Int, CaseIterable {
        case assessmentID, assessmentVersion, state, startedAt, submittedAt, activeMs, currentQuestion, flags
        case timerStartedAt, countedMs, bootID, bootCheckpointMs, lastWall, wallBackMs, continuedAt
        var name: String {
            switch self {
            case .timerStartedAt: "timer_started_at"
            case .countedMs: "counted_ms"
            case .bootID: "boot_id"
            case .bootCheckpointMs: "boot_checkpoint_ms"
            case .lastWall: "last_wall_at"
            case .wallBackMs: "wall_back_ms"
            case .continuedAt: "continued_at"
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
    let time: AttemptTime
    /// When this vault continued an attempt begun on another device.
    let continuedAt: Date?

    init(_ row: Row) throws {
        assessmentID = row.string(Column.assessmentID.rawValue)
        assessmentVersion = row.int(Column.assessmentVersion.rawValue)
        state = try row.state(AttemptRecord.State.self, Column.state.rawValue)
        startedAt = Date(timeIntervalSince1970: row.double(Column.startedAt.rawValue))
        submittedAt = row.optionalDouble(Column.submittedAt.rawValue).map { Date(timeIntervalSince1970: $0) }
        activeMilliseconds = row.int(Column.activeMs.rawValue)
        currentQuestion = row.int(Column.currentQuestion.rawValue)
        flagged = Set(row.string(Column.flags.rawValue).split(separator: ",").map(String.init))
        var time = AttemptTime()
        time.startedAt = row.optionalDouble(Column.timerStartedAt.rawValue).map { Date(timeIntervalSince1970: $0) }
        time.countedMilliseconds = row.int(Column.countedMs.rawValue)
        time.bootID = row.optionalString(Column.bootID.rawValue)
        time.bootCheckpointMilliseconds = row.optionalInt(Column.bootCheckpointMs.rawValue)
        time.lastWall = row.optionalDouble(Column.lastWall.rawValue).map { Date(timeIntervalSince1970: $0) }
        time.wallMovedBackMilliseconds = row.int(Column.wallBackMs.rawValue)
        self.time = time
        continuedAt = row.optionalDouble(Column.continuedAt.rawValue).map { Date(timeIntervalSince1970: $0) }
    }

    /// The columns `store` writes, as `SET` assignments.
    static let timeAssignments =
        "timer_started_at = ?, counted_ms = ?, boot_id = ?, boot_checkpoint_ms = ?, last_wall_at = ?, wall_back_ms = ?"

    static func timeValues(_ time: AttemptTime) -> [any DatabaseValueConvertible] {
        [
            time.startedAt?.timeIntervalSince1970, time.countedMilliseconds, time.bootID, time.bootCheckpointMilliseconds,
            time.lastWall?.timeIntervalSince1970, time.wallMovedBackMilliseconds,
        ]
    }
}

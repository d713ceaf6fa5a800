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
        func name(_ column: Column) -> String { column.name }
        assessmentID = try row.string(name(.assessmentID))
        assessmentVersion = try row.int(name(.assessmentVersion))
        state = try row.state(AttemptRecord.State.self, name(.state))
        startedAt = try row.date(name(.startedAt))
        submittedAt = try row.optionalDate(name(.submittedAt))
        activeMilliseconds = try row.int(name(.activeMs))
        currentQuestion = try row.int(name(.currentQuestion))
        flagged = Set(try row.string(name(.flags)).split(separator: ",").map(String.init))
        var time = AttemptTime()
        time.startedAt = try row.optionalDate(name(.timerStartedAt))
        time.countedMilliseconds = try row.int(name(.countedMs))
        time.bootID = try row.optionalString(name(.bootID))
        time.bootCheckpointMilliseconds = try row.optionalInt(name(.bootCheckpointMs))
        time.lastWall = try row.optionalDate(name(.lastWall))
        time.wallMovedBackMilliseconds = try row.int(name(.wallBackMs))
        self.time = time
        continuedAt = try row.optionalDate(name(.continuedAt))
    }

    /// The columns `store` writes, as `SET` assignments.
    static let timeAssignments =
        "timer_started_at = ?, counted_ms = ?, boot_id = ?, boot_checkpoint_ms = ?, last_wall_at = ?, wall_back_ms = ?"

    static func timeValues(_ time: AttemptTime) -> [any DatabaseValueConvertible] {
        [
            time.startedAt?.millisecondsSince1970, time.countedMilliseconds, time.bootID, time.bootCheckpointMilliseconds,
            time.lastWall?.millisecondsSince1970, time.wallMovedBackMilliseconds,
        ]
    }
}

import VaultLanguage
import VaultModel

/// Where a student stands on a downloaded assessment, as `list`, `show` and `status` say it (and `--json` spells it).
/// A timed attempt whose start screen was answered "no" is `notStarted`: its clock has not begun, so "in progress"
/// would be untrue.
public enum AttemptProgress: String, Codable, Sendable, CaseIterable {
    case none
    case notStarted = "not_started"
    case inProgress = "in_progress"
    case submitted, synced

    /// The state of `state`, not started when the attempt is timed and its clock has not begun.
    public init(_ state: AttemptRecord.State, timed: Bool, clockStarted: Bool) {
        switch state {
        case .inProgress: self = timed && !clockStarted ? .notStarted : .inProgress
        case .submitted: self = .submitted
        case .synced: self = .synced
        }
    }

    /// In words, for tables and sentences.
    public var words: String {
        switch self {
        case .none: trc("attempt", "none")
        case .notStarted: tr("not started")
        case .inProgress: tr("in progress")
        case .submitted: tr("submitted")
        case .synced: tr("synced")
        }
    }

    /// An attempt that has not been handed in (started or not).
    public var isOpen: Bool { self == .inProgress || self == .notStarted }
}

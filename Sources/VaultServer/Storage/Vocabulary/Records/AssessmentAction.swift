import Foundation

/// A teacher's action on an assessment that changes what students can do or see, and that can be undone: closing
/// and reopening, releasing results and hiding them again.
public enum AssessmentChange: Sendable, Equatable {
    /// Closes it at a time (now, or later).
    case close(at: Date)
    /// Undoes a close: new attempts are taken again.
    case reopen
    /// Students see their results at their next sync.
    case release
    /// Undoes a release: results are hidden from students at their next sync.
    case hideResults

    public var kind: AssessmentAction.Kind {
        switch self {
        case .close: .closed
        case .reopen: .reopened
        case .release: .released
        case .hideResults: .resultsHidden
        }
    }
}

/// One recorded action: what, who, when; shown on the assessment's page.
public struct AssessmentAction: Sendable, Equatable, StoredRecord {
    public enum Kind: String, Sendable, Equatable {
        case closed, reopened, released
        case resultsHidden = "results_hidden"
        /// A hand-in that arrived after closing: accepted, given 0, or its decision undone (`subject`: the student).
        case lateAccepted = "late_accepted"
        case lateZeroed = "late_zeroed"
        case lateUndone = "late_undone"
        /// Hand-ins of earlier versions scored again against the current version's keys (`subject`: how many).
        case regraded
        /// The hand-in the server made at closing, replaced by the student's own made before closing that arrived
        /// after it (`subject`: the student).
        case closingReplaced = "closing_replaced"
        /// A new package for a student superseded their earlier one (issue 68): its enrolment ended and the vault key
        /// it had bound revoked (`subject`: the student).
        case packageRenewed = "package_renewed"
    }

    public var kind: Kind
    /// The teacher's user name, or "the server's command line".
    public var actor: String
    public var at: Date
    /// Whom it concerns, for an action on one student's hand-in.
    public var subject: String?

    public init(kind: Kind, actor: String, at: Date, subject: String? = nil) {
        self.kind = kind
        self.actor = actor
        self.at = at
        self.subject = subject
    }

    public static let columns = ["action", "actor", "at", "subject"]

    public init(row: some StoredRow) throws {
        let text = try row.string("action")
        guard let kind = Kind(rawValue: text) else { throw StorageError.damaged("column action holds \(text), which is no action") }
        self.init(
            kind: kind,
            actor: try row.string("actor"),
            at: Date(timeIntervalSince1970: try row.double("at")),
            subject: try row.optionalString("subject")
        )
    }
}

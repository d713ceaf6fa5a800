import Foundation

/// How a submission reached the server.
public enum SubmissionChannel: String, Codable, Sendable, CaseIterable {
    /// `POST /v1/submissions` from a vault.
    case sync
    /// `vault-server import` of a hand-in file.
    case handIn = "hand_in"
    /// The server, when the exam closed: the attempt had answers there and was not handed in.
    case closing
}

/// The teacher's decision on a submission that arrived after the exam closed, or that a device they revoked handed
/// in (`SubmissionFlag.revokedDevice`: `zeroed` is then "discarded", kept apart and counted nowhere).
public enum LateDecision: String, Codable, Sendable, CaseIterable {
    /// It counts like any other.
    case accepted
    /// It scores 0.
    case zeroed
}

/// What a roster marks on a student's row.
public enum RosterFlag: String, Codable, Sendable, CaseIterable {
    case clockMovedBack = "clock_moved_back"
    case timeMissing = "time_missing"
    case overTime = "over_time"
    case clockDisagrees = "clock_disagrees"
    case secondAttempt = "second_attempt"
    case afterClosing = "after_closing"
    case changedAfterHandIn = "changed_after_hand_in"
    case answersAfterHandIn = "answers_after_hand_in"
    case revokedDevice = "revoked_device"
    /// Answering, and past the deadline (the limit, the student's extra time and the grace): the answers the server
    /// holds are all it will get until the vault hands the attempt in at its next command and syncs.
    case timeUp = "time_up"
    /// Not handed in when the exam closed: the server handed in the answers it held then.
    case handedInAtClosing = "handed_in_at_closing"

    public init(_ flag: SubmissionFlag) {
        switch flag {
        case .timeMissing: self = .timeMissing
        case .overTime: self = .overTime
        case .clockDisagrees: self = .clockDisagrees
        case .secondAttempt: self = .secondAttempt
        case .afterClosing: self = .afterClosing
        case .changedAfterHandIn: self = .changedAfterHandIn
        case .answersAfterHandIn: self = .answersAfterHandIn
        case .revokedDevice: self = .revokedDevice
        }
    }

    /// The words a teacher reads.
    public var label: String {
        switch self {
        case .clockMovedBack: "clock moved back"
        case .timeMissing: "time data missing"
        case .overTime: "over the time limit"
        case .clockDisagrees: "clock disagrees"
        case .secondAttempt: "a second attempt"
        case .afterClosing: "arrived after closing"
        case .changedAfterHandIn: "changed by another device after hand-in"
        case .answersAfterHandIn: "answers after hand-in (not counted)"
        case .revokedDevice: "handed in by a device you revoked"
        case .timeUp: "time is up, not handed in"
        case .handedInAtClosing: "handed in at closing"
        }
    }
}

/// `vault-server roster ID --json` and the desk's roster page: every expected student of one assessment.
/// Where a student is with an assessment on exam day.
public enum RosterState: String, Codable, Sendable, Equatable, CaseIterable {
    case notDownloaded = "not_downloaded"
    case downloaded
    /// Answers of an attempt reached the server; it is not handed in.
    case answering
    case handedIn = "handed_in"
    /// The server refused their latest hand-in or answers (the exam had closed, or no attempts were left): their
    /// answers sit in their vault's dead letters, and the teacher decides what happens.
    case refused

    public var label: String {
        switch self {
        case .notDownloaded: "not downloaded"
        case .downloaded: "downloaded, not started"
        case .answering: "answering"
        case .handedIn: "handed in"
        case .refused: "refused"
        }
    }
}

/// Why the server refused a student's answers or hand-in (recorded so the teacher sees it, never only in the
/// student's dead letters).
public enum RefusalReason: String, Codable, Sendable, Equatable, CaseIterable {
    /// A new attempt, begun after the exam closed.
    case afterClosing = "after_closing"
    /// Every attempt the assessment allows was already handed in.
    case noAttemptsLeft = "no_attempts_left"
    /// The student's vault gave up sending (too large, or failing until its tries ran out): the answers are kept on
    /// the device as dead letters, and the vault said so when it could.
    case givenUpOnDevice = "given_up_on_device"

    public var label: String {
        switch self {
        case .afterClosing: "refused: started after closing"
        case .noAttemptsLeft: "refused: no attempts left"
        case .givenUpOnDevice: "given up on the device (answers kept there)"
        }
    }
}

public struct Roster: Codable, Sendable, Equatable {
    public struct Student: Codable, Sendable, Equatable {
        public var user: String
        public var group: String?
        /// The newest version this student fetched, and when they last fetched it.
        public var downloadedVersion: Int?
        public var downloadedAt: String?
        /// The student's latest submitted attempt.
        public var attemptId: String?
        public var submittedAt: String?
        public var receivedAt: String?
        public var via: SubmissionChannel?
        public var timeUsedMs: Int?
        public var extraMinutes: Int
        public var score: Double?
        public var maxScore: Double?
        /// Questions still waiting for the teacher's points.
        public var pending: Int?
        public var flags: [RosterFlag]
        public var lateDecision: LateDecision?
        /// Submitted attempts in all (not those kept apart).
        public var attempts: Int
        /// Hand-ins kept apart from the student's attempt: made by a device the teacher revoked (a replaced package),
        /// not accepted (undecided, or discarded); nil when there are none.
        public var keptApart: [KeptApart]?

        public struct KeptApart: Codable, Sendable, Equatable {
            public var attemptId: String
            public var receivedAt: String
            /// nil: waiting for the teacher; `zeroed`: discarded.
            public var decision: LateDecision?
            enum CodingKeys: String, CodingKey {
                case decision
                case attemptId = "attempt_id"
                case receivedAt = "received_at"
            }
            public init(attemptId: String, receivedAt: String, decision: LateDecision?) {
                self.attemptId = attemptId
                self.receivedAt = receivedAt
                self.decision = decision
            }
        }

        enum CodingKeys: String, CodingKey {
            case user, group, via, score, flags, attempts, pending
            case downloadedVersion = "downloaded_version"
            case downloadedAt = "downloaded_at"
            case attemptId = "attempt_id"
            case submittedAt = "submitted_at"
            case receivedAt = "received_at"
            case timeUsedMs = "time_used_ms"
            case extraMinutes = "extra_minutes"
            case maxScore = "max_score"
            case lateDecision = "late_decision"
            case state, answered, questions
            case lastSeenAt = "last_seen_at"
            case refusal
            case refusedAt = "refused_at"
            case startedAt = "started_at"
            case timeLeftSeconds = "time_left_seconds"
            case devices
            case devicesLastSeen = "devices_last_seen"
            case record
            case keptApart = "kept_apart"
            case downloadedThrough = "downloaded_through"
            case handedInThrough = "handed_in_through"
            case atDistrict = "at_district"
        }

        /// Where the student is, in one word for scripts (`state`) and in words for people (`stateText`).
        public var state: RosterState
        /// An attempt in progress: the questions with an answer on the server, of `questions`.
        public var answered: Int?
        public var questions: Int?
        /// The latest download, answer or hand-in the server received from them.
        public var lastSeenAt: String?
        /// The latest refusal, when it is what the student did last.
        public var refusal: RefusalReason?
        public var refusedAt: String?
        /// An attempt in progress: when its clock started on the device (when the device said), and for a timed test
        /// the seconds left at the roster's time (its limit with the student's extra time; 0 when it has run out).
        public var startedAt: String?
        public var timeLeftSeconds: Int?
        /// The devices the attempt shown (in progress, or the latest handed in) was answered on, and when each was
        /// last seen, latest first (vaults that name no device are not counted).
        public var devices: Int?
        public var devicesLastSeen: [String]?
        /// What the attempts' own records show worth a look (left the exam screen, pastes, unclean ends, the clock,
        /// a record that does not verify); nil when there is nothing.
        public var record: RecordSummary?
        /// At the district (issue 69): the classroom server (its key's id, as `classroom list` shows it) the latest
        /// download, and the hand-in shown, came through; nil when they came straight to this server.
        public var downloadedThrough: String?
        public var handedInThrough: String?
        /// On a classroom (issue 69): the hand-in shown is the district's (handed in there, or by a file imported
        /// there); this classroom holds none of the student's. nil otherwise.
        public var atDistrict: Bool?

        public init(user: String, group: String?) {
            self.user = user
            self.group = group
            extraMinutes = 0
            flags = []
            attempts = 0
            state = .notDownloaded
        }

        /// "answering, 3 of 6 answers in", "handed in", …
        public var stateText: String {
            switch state {
            case .answering:
                "answering, \(answered ?? 0) of \(questions ?? 0) answers in" + (timeLeftSeconds.map { ", " + Self.timeLeftText($0) } ?? "")
                    + devicesText
            case .refused: refusal?.label ?? state.label
            case .handedIn: state.label + devicesText + handedInWhere
            case .downloaded: state.label + downloadedWhere
            default: state.label
            }
        }

        /// Where the hand-in shown came from, when not straight here: ", through classroom 3f2a:9c41" (the start of
        /// a classroom's id, enough to tell a school's apart) at the district, ", at the district" on a classroom.
        public var handedInWhere: String {
            Self.through(handedInThrough) + (atDistrict == true ? ", at the district" : "")
        }

        /// ", through classroom 3f2a:9c41" when the latest download was made on a classroom (at the district).
        public var downloadedWhere: String { Self.through(downloadedThrough) }

        static func through(_ classroom: String?) -> String { classroom.map { ", through classroom \($0.prefix(9))" } ?? "" }

        /// ", on 2 devices" when the attempt moved between devices; nothing for one.
        public var devicesText: String {
            guard let devices, devices > 1 else { return "" }
            return ", on \(devices) devices"
        }

        public var downloaded: Bool { downloadedAt != nil }
        public var handedIn: Bool { attemptId != nil }

        /// "14 min left", "under a minute left", "time is up".
        public static func timeLeftText(_ seconds: Int) -> String {
            switch seconds {
            case ...0: "time is up"
            case ..<60: "under a minute left"
            default: "\(seconds / 60) min left"
            }
        }
    }

    public var assessmentId: String
    public var title: String
    public var version: Int
    public var group: String?
    public var sealed: Bool
    public var opensAt: String?
    /// When the exam closes or closed (the earlier of the document's `not_after` and `vault-server close`).
    public var closesAt: String?
    public var closed: Bool
    public var released: Bool
    public var students: [Student]

    enum CodingKeys: String, CodingKey {
        case title, version, group, sealed, closed, released, students
        case assessmentId = "assessment_id"
        case opensAt = "opens_at"
        case closesAt = "closes_at"
    }

    public init(
        assessmentId: String,
        title: String,
        version: Int,
        group: String?,
        sealed: Bool,
        opensAt: String?,
        closesAt: String?,
        closed: Bool,
        released: Bool,
        students: [Student]
    ) {
        self.assessmentId = assessmentId
        self.title = title
        self.version = version
        self.group = group
        self.sealed = sealed
        self.opensAt = opensAt
        self.closesAt = closesAt
        self.closed = closed
        self.released = released
        self.students = students
    }

    public var downloadedCount: Int { students.filter(\.downloaded).count }
    public var handedInCount: Int { students.filter(\.handedIn).count }
}

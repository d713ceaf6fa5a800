import Foundation
import VaultAPI
import VaultModel

/// What a store reads for the roster of one assessment, in one transaction and a fixed number of queries (never one
/// per student): the teacher's work on exam day must stay fast for a district's 2,000 students.
public struct RosterFacts: Sendable {
    public struct Student: Sendable, Equatable {
        public var name: String
        public var group: String?
        public init(name: String, group: String?) {
            self.name = name
            self.group = group
        }
    }

    public struct Download: Sendable, Equatable {
        public var user: String
        public var version: Int
        /// Seconds since 1970 of the latest fetch of that version.
        public var at: Double
        /// The classroom server the latest fetch was made on (its key's fingerprint), at the district.
        public var classroom: String?
        public init(user: String, version: Int, at: Double, classroom: String? = nil) {
            self.user = user
            self.version = version
            self.at = at
            self.classroom = classroom
        }
    }

    /// An attempt that has answers on the server and is not handed in: a student answering right now.
    public struct InProgress: Sendable, Equatable {
        public var user: String
        public var attemptID: String
        /// Questions with a current answer.
        public var answered: Int
        /// Seconds since 1970 the server last received an answer of it.
        public var lastReceivedAt: Double
        /// Seconds since 1970 the earliest of its current answers reached the server (nil: not read).
        public var firstReceivedAt: Double?
        /// Seconds since 1970 when its clock started on the device, when the device said (`attempt_started_at`).
        public var startedAt: Double?
        public init(
            user: String,
            attemptID: String,
            answered: Int,
            lastReceivedAt: Double,
            firstReceivedAt: Double? = nil,
            startedAt: Double? = nil
        ) {
            self.firstReceivedAt = firstReceivedAt
            self.user = user
            self.attemptID = attemptID
            self.answered = answered
            self.lastReceivedAt = lastReceivedAt
            self.startedAt = startedAt
        }
    }

    /// A hand-in or answers the server refused: the latest per student and assessment.
    public struct Refusal: Sendable, Equatable {
        public var user: String
        public var assessmentID: String
        public var attemptID: String
        public var reason: RefusalReason
        /// Seconds since 1970.
        public var at: Double
        public init(user: String, assessmentID: String, attemptID: String, reason: RefusalReason, at: Double) {
            self.user = user
            self.assessmentID = assessmentID
            self.attemptID = attemptID
            self.reason = reason
            self.at = at
        }
    }

    public var assessmentID: String
    /// The teacher's document of the current version (answer keys included).
    public var document: Assessment
    public var version: Int
    public var closedAt: Double?
    public var released: Bool
    /// Every student account (of the group asked for).
    public var students: [Student]
    public var downloads: [Download]
    /// Extra minutes per student who has any (their setting for this assessment, else their default).
    public var extraMinutes: [String: Int]
    /// Every submitted attempt of the assessment.
    public var results: [ResultInput]
    /// Every attempt with answers that is not handed in.
    public var inProgress: [InProgress]
    /// Each student's latest refused hand-in or answers.
    public var refusals: [Refusal]
    /// When each device an attempt was answered on was last seen (seconds since 1970), by attempt (vaults that
    /// name no device are not counted).
    public var devices: [String: [Double]]
    /// On a classroom (issue 69): the hand-ins the district holds, as its last results said; a student this
    /// classroom holds no hand-in of shows as handed in at the district.
    public var atDistrict: [ClassroomResults.Held] = []

    public init(
        assessmentID: String,
        document: Assessment,
        version: Int,
        closedAt: Double?,
        released: Bool,
        students: [Student],
        downloads: [Download],
        extraMinutes: [String: Int],
        results: [ResultInput],
        inProgress: [InProgress] = [],
        refusals: [Refusal] = [],
        devices: [String: [Double]] = [:]
    ) {
        self.devices = devices
        self.assessmentID = assessmentID
        self.document = document
        self.version = version
        self.closedAt = closedAt
        self.released = released
        self.students = students
        self.downloads = downloads
        self.extraMinutes = extraMinutes
        self.results = results
        self.inProgress = inProgress
        self.refusals = refusals
    }
}

extension RosterFacts {
    /// The rows of each attempt's devices by attempt, the latest sighting first.
    public static func devices(_ rows: [(attemptID: String, lastSeen: Double)]) -> [String: [Double]] {
        var devices: [String: [Double]] = [:]
        for row in rows { devices[row.attemptID, default: []].append(row.lastSeen) }
        return devices.mapValues { $0.sorted(by: >) }
    }

    /// Everyone a roster of `group` lists, in its order, from the students of the group and (for everyone) those
    /// who handed in without a student account: what the export reads in chunks.
    public static func members(students: [Student], others: [String], group: String?) -> [Student] {
        let known = Set(students.map(\.name))
        let extra = group == nil ? others.filter { !known.contains($0) }.map { Student(name: $0, group: nil) } : []
        return (students + extra).sorted { ($0.group ?? "", $0.name) < ($1.group ?? "", $1.name) }
    }
}

/// The roster and the grading queue, built from `RosterFacts`: the one place that says what a teacher sees.
public enum RosterPlan {
    /// Every expected student's row. `scored: false` does not score attempts from their answers: a row shows the
    /// score its store keeps (`SubmissionRecord.totals`), and a page scores the rows it shows that have none with
    /// `scored(_:inputs:)` (counts and filters need no score).
    public static func roster(_ facts: RosterFacts, group: String?, now: Date, scored: Bool = true) -> Roster {
        var byUser: [String: [ResultInput]] = [:]
        for input in facts.results { byUser[input.record.user, default: []].append(input) }
        var latestDownload: [String: RosterFacts.Download] = [:]
        for download in facts.downloads {
            if let known = latestDownload[download.user], (known.version, known.at) >= (download.version, download.at) { continue }
            latestDownload[download.user] = download
        }
        // A student's latest attempt in progress (the one the server heard from last).
        var answering: [String: RosterFacts.InProgress] = [:]
        for attempt in facts.inProgress {
            if let known = answering[attempt.user], known.lastReceivedAt >= attempt.lastReceivedAt { continue }
            answering[attempt.user] = attempt
        }
        let refusals = Dictionary(facts.refusals.map { ($0.user, $0) }, uniquingKeysWith: { first, second in first.at >= second.at ? first : second })
        let atDistrict = Dictionary(
            facts.atDistrict.map { ($0.user, $0) },
            uniquingKeysWith: { first, second in first.receivedAt >= second.receivedAt ? first : second }
        )
        // Someone who handed in without a student account in the list (a teacher trying it out) still shows when
        // the roster is of everyone.
        let students = RosterFacts.members(students: facts.students, others: Array(byUser.keys), group: group)
        let closes = ResponseRules.closesAt(facts.document, closedAt: facts.closedAt)
        return Roster(
            assessmentId: facts.assessmentID,
            title: facts.document.title,
            version: facts.version,
            group: group,
            sealed: facts.document.sealed == true,
            opensAt: facts.document.opensAt,
            closesAt: closes.map { Timestamp.string(epoch: $0) },
            closed: closes.map { $0 <= now.timeIntervalSince1970 } ?? false,
            released: facts.released,
            students: students.map { student in
                row(
                    student,
                    results: byUser[student.name] ?? [],
                    download: latestDownload[student.name],
                    answering: answering[student.name],
                    refusal: refusals[student.name],
                    atDistrict: atDistrict[student.name],
                    devices: facts.devices,
                    // Progress is of the questions each student drew, not of the whole pool ("2 of 7" where 5 were drawn).
                    questions: facts.document.questionsPerStudent,
                    extra: facts.extraMinutes[student.name] ?? 0,
                    timeLimitSeconds: facts.document.timeLimitSeconds,
                    now: now,
                    scored: scored
                )
            }
        )
    }

    /// `rows` with their scores, from the attempts they name.
    public static func scored(_ rows: [Roster.Student], facts: RosterFacts) -> [Roster.Student] {
        let wanted = Set(rows.compactMap(\.attemptId))
        return scored(rows, inputs: facts.results.filter { wanted.contains($0.record.attemptID) })
    }

    /// `rows` with their scores, from `inputs` (which hold at least the attempts the rows name, with their answers).
    public static func scored(_ rows: [Roster.Student], inputs: [ResultInput]) -> [Roster.Student] {
        let inputs = Dictionary(inputs.map { ($0.record.attemptID, $0) }, uniquingKeysWith: { first, _ in first })
        return rows.map { row in
            guard let attempt = row.attemptId, let input = inputs[attempt] else { return row }
            return score(row, input)
        }
    }

    static func score(_ row: Roster.Student, _ input: ResultInput) -> Roster.Student {
        var row = row
        let totals = Scoring.totals(for: input.record, document: input.document, answers: input.answers, grades: input.grades)
        row.score = totals.score
        row.maxScore = totals.maxScore
        row.pending = totals.pending
        return row
    }

    static func row(
        _ student: RosterFacts.Student,
        results: [ResultInput],
        download: RosterFacts.Download?,
        answering: RosterFacts.InProgress? = nil,
        refusal: RosterFacts.Refusal? = nil,
        atDistrict: ClassroomResults.Held? = nil,
        devices: [String: [Double]] = [:],
        questions: Int = 0,
        extra: Int,
        timeLimitSeconds: Int?,
        now: Date,
        scored: Bool
    ) -> Roster.Student {
        var row = Roster.Student(user: student.name, group: student.group)
        // A hand-in kept apart (a revoked device's, not accepted) is listed beside the row, never as the student's.
        let apart = results.filter(\.record.keptApart)
        if !apart.isEmpty {
            row.keptApart = apart.sorted { $0.record.receivedAt < $1.record.receivedAt }.map {
                Roster.Student.KeptApart(
                    attemptId: $0.record.attemptID,
                    receivedAt: Timestamp.string(epoch: $0.record.receivedAt),
                    decision: $0.record.lateDecision
                )
            }
        }
        let results = results.filter { !$0.record.keptApart }
        row.extraMinutes = extra
        row.downloadedVersion = download?.version
        row.downloadedAt = download.map { Timestamp.string(epoch: $0.at) }
        row.downloadedThrough = download?.classroom
        row.attempts = results.count
        row.state = download == nil ? .notDownloaded : .downloaded
        // Last seen: the latest download, answer or hand-in the server received from them.
        let seen = [download?.at, answering?.lastReceivedAt, results.map(\.record.receivedAt).max(), refusal?.at].compactMap { $0 }.max()
        row.lastSeenAt = seen.map { Timestamp.string(epoch: $0) }
        // Answering: an attempt with answers, not handed in, heard from after their last hand-in (an attempt left
        // behind for another that was handed in is not what they are doing now).
        if let answering, !results.contains(where: { $0.record.attemptID == answering.attemptID }),
            answering.lastReceivedAt > (results.map(\.record.receivedAt).max() ?? -.infinity)
        {
            row.state = .answering
            row.seenOn(devices[answering.attemptID])
            row.answered = answering.answered
            row.questions = questions
            if let started = answering.startedAt {
                row.startedAt = Timestamp.string(epoch: started)
                if let limit = timeLimitSeconds {
                    let left = started + Double(limit + extra * 60) - now.timeIntervalSince1970
                    row.timeLeftSeconds = max(0, Int(saturating: left.rounded(.down)))
                    if left + AttemptTime.grace.inSeconds < 0 { row.flags.append(.timeUp) }
                }
            }
        }
        // Refused: the last thing the server heard from them was a refusal (no hand-in since, and no answer of
        // another attempt since). The refused attempt's own answers, if any reached the server, do not make it
        // "answering".
        if let refusal, refusal.at >= (results.map(\.record.receivedAt).max() ?? -.infinity),
            !results.contains(where: { $0.record.attemptID == refusal.attemptID }),
            answering.map({
                // A refused attempt's own answers do not make it "answering"; one given up on the device that is
                // heard from again is alive.
                ($0.attemptID == refusal.attemptID && refusal.reason != .givenUpOnDevice) || $0.lastReceivedAt <= refusal.at
            }) ?? true
        {
            row.state = .refused
            row.refusal = refusal.reason
            row.refusedAt = Timestamp.string(epoch: refusal.at)
            row.answered = nil
            row.questions = nil
        }
        guard let latest = results.max(by: { ($0.record.receivedAt, $0.record.attemptID) < ($1.record.receivedAt, $1.record.attemptID) }) else {
            // None here, one at the district (issue 69): handed in there, the same on both desks.
            if let atDistrict {
                if row.state != .answering, row.state != .refused { row.state = .handedIn }
                row.attemptId = atDistrict.attemptId
                row.receivedAt = atDistrict.receivedAt
                row.via = atDistrict.via
                row.atDistrict = true
                row.attempts = 1
            }
            return row
        }
        // A later attempt still in progress, or a later refusal, stays what the student is doing now.
        if row.state != .answering, row.state != .refused { row.state = .handedIn }
        let record = latest.record
        row.attemptId = record.attemptID
        row.submittedAt = record.submittedAt
        row.receivedAt = Timestamp.string(epoch: record.receivedAt)
        row.via = record.via
        row.handedInThrough = record.classroom
        row.timeUsedMs = record.timeUsedMilliseconds
        row.lateDecision = record.lateDecision
        if row.state == .handedIn { row.seenOn(devices[record.attemptID]) }
        var flags: [RosterFlag] = []
        if (record.clockMovedBackMilliseconds ?? 0) > 0 { flags.append(.clockMovedBack) }
        if record.via == .closing { flags.append(.handedInAtClosing) }
        flags += record.flags.map(RosterFlag.init)
        if results.count > 1, !flags.contains(.secondAttempt) { flags.append(.secondAttempt) }
        row.flags = flags
        if scored { return score(row, latest) }
        // Unscored, the score the store keeps beside the submission (none for one stored before it kept them).
        if let kept = record.totals?.for(record) {
            row.score = kept.score
            row.maxScore = kept.maxScore
            row.pending = kept.pending
        }
        return row
    }

    /// One entry of the grading queue: one student's answer to the question.
    public struct QueueEntry: Sendable, Equatable {
        public var user: String
        public var group: String?
        public var attemptID: String
        /// The answer as text (nil: no answer given).
        public var answer: String?
        /// The teacher's points, else the automatic ones (nil: waiting for the teacher).
        public var points: Double?
        public var graded: Bool
    }

    /// Every submitted attempt's answer to `questionID`, by student; nil when the current version has no such
    /// question.
    public static func queue(_ facts: RosterFacts, questionID: String) -> (question: Question, entries: [QueueEntry])? {
        guard let question = facts.document.question(questionID) else { return nil }
        let groups = Dictionary(facts.students.map { ($0.name, $0.group) }, uniquingKeysWith: { first, _ in first })
        let entries = facts.results.sorted { ($0.record.user, $0.record.receivedAt) < ($1.record.user, $1.record.receivedAt) }.compactMap {
            input -> QueueEntry? in
            // Only the students who drew it (pools).
            if let draw = input.draw, !draw.questions.contains(questionID) { return nil }
            // An attempt of an older version whose question changed is graded on that version's own terms.
            let asked = input.document.question(questionID) ?? question
            let answer = input.answers[questionID]
            let grade = input.grades[questionID]
            return QueueEntry(
                user: input.record.user,
                group: groups[input.record.user] ?? nil,
                attemptID: input.record.attemptID,
                answer: answer.map { AnswerText.plain($0, question: asked) },
                points: grade ?? Scoring.points(for: answer, question: asked),
                graded: grade != nil
            )
        }
        return (question, entries)
    }
}

/// An answer as a teacher reads it: the text itself, choices by their text, pairs and blanks spelled out.
public enum AnswerText {
    public static func plain(_ answer: JSONValue, question: Question) -> String {
        // What the answer's ids name, and how a list of them reads.
        let labels: [Choice]
        let separator: String
        switch question.body {
        case .singleChoice(let body), .multipleChoice(let body): (labels, separator) = (body.choices, "; ")
        case .matching(let body): (labels, separator) = (body.left + body.right, "; ")
        case .ordering(let body): (labels, separator) = (body.items, " → ")
        case .trueFalse, .numeric, .shortText, .essay, .fillInBlanks: (labels, separator) = ([], "; ")
        }
        let choices = Dictionary(labels.map { ($0.id, $0.text) }, uniquingKeysWith: { first, _ in first })
        func choice(_ id: String) -> String { choices[id] ?? id }
        switch answer {
        case .string(let text): return choice(text)
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return AttemptResult.pointsText(value)
        case .array(let values):
            if case .matching = question.body {
                return values.compactMap(AnswerRules.pair).map { "\(choice($0.left)) → \(choice($0.right))" }.joined(separator: "; ")
            }
            return values.map { $0.stringValue.map(choice) ?? "\($0)" }.joined(separator: separator)
        case .object(let values):
            return values.keys.sorted().map { "\($0): \(values[$0]?.stringValue ?? "")" }.joined(separator: "; ")
        case .null: return ""
        }
    }
}

extension ResultInput {
    /// A submission whose version's document was not among those read: the store is damaged (a submission never
    /// outlives its version), and the record is never dropped without a word.
    public struct MissingDocument: Error, Sendable, Equatable {
        public var key: DocumentKey
    }

    /// The result inputs of many submitted attempts from rows read in bulk (one query each for submissions,
    /// sources, answers and grades, whatever the number of attempts), with each version's document decoded once.
    public static func assemble(
        records: [SubmissionRecord],
        documents: [DocumentKey: Assessment],
        draws: [DrawKey: Draw] = [:],
        released: Set<String>,
        answers: [(attemptID: String, questionID: String, answer: String)],
        grades: [(attemptID: String, questionID: String, points: Double)],
        feedback: [(attemptID: String, questionID: String, text: String)] = []
    ) throws -> [ResultInput] {
        var values: [String: [String: JSONValue]] = [:]
        for row in answers {
            values[row.attemptID, default: [:]][row.questionID] =
                JSONReader.storedAnswer(row.answer)
        }
        var points: [String: [String: Double]] = [:]
        for row in grades { points[row.attemptID, default: [:]][row.questionID] = row.points }
        var words: [String: [String: String]] = [:]
        for row in feedback { words[row.attemptID, default: [:]][row.questionID] = row.text }
        return try records.map { record in
            let key = record.scoringKey
            guard let document = documents[key] else { throw MissingDocument(key: key) }
            let draw = draws[DrawKey(assessmentID: record.assessmentID, user: record.user)]
            var input = ResultInput(
                record: record,
                document: DrawPlan.asked(document, draw: draw),
                answers: values[record.attemptID] ?? [:],
                grades: points[record.attemptID] ?? [:],
                feedback: words[record.attemptID] ?? [:],
                released: released.contains(record.assessmentID)
            )
            input.draw = draw
            return input
        }
    }
}

extension Roster.Student {
    /// The devices the row's attempt was answered on: their number and when each was last seen, latest first.
    mutating func seenOn(_ lastSeen: [Double]?) {
        guard let lastSeen, !lastSeen.isEmpty else { return }
        devices = lastSeen.count
        devicesLastSeen = lastSeen.map { Timestamp.string(epoch: $0) }
    }
}

/// What the Assessments page shows of every assessment at once, counted by the store in three statements whatever
/// the number of assessments or students (the page read one whole roster per assessment: 300 rosters of 2,000
/// students; then every submitter of every assessment).
public struct AssessmentOverview: Sendable {
    /// How many student accounts there are.
    public var students: Int
    /// Per assessment, how many users handed in an attempt, and how many of them have no student account (a teacher
    /// trying it out), whom its roster of everyone lists too.
    public var handedIn: [String: (count: Int, others: Int)]
    /// Per assessment, when the teacher closed it (seconds since 1970).
    public var closedAt: [String: Double]

    public init(students: Int, handedIn: [String: (count: Int, others: Int)], closedAt: [String: Double]) {
        self.students = students
        self.handedIn = handedIn
        self.closedAt = closedAt
    }

    /// An assessment's counts as its roster of everyone counts them: handed in, of the students plus anyone else who
    /// handed in (a teacher trying it out).
    public func counts(_ assessmentID: String) -> (handedIn: Int, expected: Int) {
        let counts = handedIn[assessmentID] ?? (0, 0)
        return (counts.count, students + counts.others)
    }
}

import Foundation
import VaultAPI
import VaultRules

/// What a teacher does, for the desk's pages and the command line alike: the roster, the grading queue, grading a
/// whole question at once, closing, late decisions and gradebook export. The rules live in `RosterPlan`; this reads
/// the store once per action and says what went wrong in words.
public struct TeacherDesk: Sendable {
    public let storage: any ServerStorage
    public let now: @Sendable () -> Date
    /// Students per read while exporting (tests make it small to cross its boundaries).
    public var exportChunk = 250

    public init(storage: any ServerStorage, now: @escaping @Sendable () -> Date) {
        self.storage = storage
        self.now = now
    }

    /// Why a teacher's action did nothing.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case noAssessment(String)
        case noQuestion(assessment: String, question: String)
        case pointsOutOfRange(user: String, max: Double)
        case notSubmitted(String)
        case notLate(String)
        case noStudent(String)
        case extraMinutesOutOfRange
        case feedbackTooLong(max: Int)

        public var description: String {
            switch self {
            case .noAssessment(let id): "There is no assessment \(id)."
            case .noQuestion(let assessment, let question): "\(assessment) has no question \(question)."
            case .pointsOutOfRange(let user, let max):
                "The points for \(user) must be a number from 0 to \(AttemptResult.pointsText(max)). Nothing was saved."
            case .notSubmitted(let attempt): "Attempt \(attempt) was not handed in for this assessment. Nothing was saved."
            case .notLate(let attempt):
                "Attempt \(attempt) did not arrive after closing and no revoked device handed it in; there is nothing to decide."
            case .noStudent(let user): "There is no student \(user). Nothing was saved."
            case .extraMinutesOutOfRange: "Extra time must be a whole number of minutes from 0 to \(TeacherDesk.maxExtraMinutes). Nothing was saved."
            case .feedbackTooLong(let max): "Feedback is at most \(max) characters. Nothing was saved."
            }
        }
    }

    /// Every expected student's row; `scored: false` when only counts are wanted.
    public func roster(_ id: String, group: String? = nil, scored: Bool = true) async throws -> Roster {
        // Unscored (the Assessments page's counts for each assessment), the answers are not read at all.
        guard let facts = try await storage.rosterFacts(assessmentID: id, group: group, detail: scored ? .answers : .summary) else {
            throw Problem.noAssessment(id)
        }
        var roster = RosterPlan.roster(facts, group: group, now: now(), scored: scored)
        guard scored else { return roster }
        // What the attempts' own records show worth a look, per student, and what they leave out of the answers.
        let records = Dictionary(grouping: try await storage.records(assessmentID: id, user: nil), by: \.user)
        let answered = Dictionary(facts.results.map { ($0.record.attemptID, Set($0.answers.keys)) }, uniquingKeysWith: { first, _ in first })
        for index in roster.students.indices {
            let summary = RecordRules.summary(records[roster.students[index].user] ?? [], answered: answered)
            if !summary.isEmpty { roster.students[index].record = summary }
        }
        return roster
    }

    /// One page of a roster: every row for the counts and filters, the page's rows scored.
    public struct RosterPage: Sendable {
        public var roster: Roster
        /// The rows of the group (or everyone), unscored: counts and filters.
        public var inGroup: [Roster.Student]
        /// The rows that pass the filter, and this page of them, scored.
        public var matching: Int
        public var rows: [Roster.Student]
        /// 0-based, and how many pages the filter gives.
        public var page: Int
        public var pages: Int
        public var pageSize: Int
    }

    /// The desk's roster page: the class is read without its answers (states, counts and flags need none), and
    /// scores are worked out for the rows shown only, from their own answers (a district roster of 2,000 students
    /// and 100,000 answers shows 200 at a time; its counts cover everyone).
    public func rosterPage(
        _ id: String,
        group: String?,
        page: Int,
        pageSize: Int = 200,
        including: (Roster.Student) -> Bool
    ) async throws -> RosterPage {
        guard let facts = try await storage.rosterFacts(assessmentID: id, group: nil, detail: .summary) else { throw Problem.noAssessment(id) }
        let roster = RosterPlan.roster(facts, group: nil, now: now(), scored: false)
        let inGroup = roster.students.filter { group == nil || $0.group == group }
        let matching = inGroup.filter(including)
        let pages = max(1, (matching.count + pageSize - 1) / pageSize)
        let page = min(max(page, 0), pages - 1)
        let slice = Array(matching.dropFirst(page * pageSize).prefix(pageSize))
        return RosterPage(
            roster: roster,
            inGroup: inGroup,
            matching: matching.count,
            rows: try await scored(slice, assessmentID: id),
            page: page,
            pages: pages,
            pageSize: pageSize
        )
    }

    public struct Queue: Sendable {
        public var assessmentID: String
        public var title: String
        public var question: Question
        /// Every question of the current version, in order, with whether it needs a teacher's points.
        public var questions: [(id: String, needsTeacher: Bool)]
        public var entries: [RosterPlan.QueueEntry]
        /// The question after this one (nil on the last).
        public var next: String?
    }

    /// Every handed-in answer to one question. Without a question, the first that needs a teacher (else the first).
    public func queue(_ id: String, question: String?) async throws -> Queue {
        guard let facts = try await storage.rosterFacts(assessmentID: id, group: nil) else { throw Problem.noAssessment(id) }
        let questions = facts.document.questions.map { (id: $0.id, needsTeacher: Scoring.isTeacherGraded($0)) }
        guard let chosen = question ?? questions.first(where: \.needsTeacher)?.id ?? questions.first?.id,
            let (asked, entries) = RosterPlan.queue(facts, questionID: chosen)
        else { throw Problem.noQuestion(assessment: id, question: question ?? "(none)") }
        let index = questions.firstIndex { $0.id == chosen } ?? 0
        return Queue(
            assessmentID: id,
            title: facts.document.title,
            question: asked,
            questions: questions,
            entries: entries,
            next: questions.indices.contains(index + 1) ? questions[index + 1].id : nil
        )
    }

    /// Saves the teacher's points for one question of many attempts; returns the queue they were checked against
    /// (its `next` is where a teacher goes on).
    @discardableResult
    public func grade(_ id: String, question: String, points: [String: Double]) async throws -> Queue {
        let queue = try await queue(id, question: question)
        try await grade(queue, points: points)
        return queue
    }

    /// Saves points against a queue already read (the terminal queue saves each answer as it is typed, without reading
    /// the class again), all or nothing: every value is checked (an attempt of the queue, within [0, the question's
    /// points]) before any is stored.
    public func grade(_ queue: Queue, points: [String: Double]) async throws {
        let question = queue.question.id
        let entries = Dictionary(queue.entries.map { ($0.attemptID, $0) }, uniquingKeysWith: { first, _ in first })
        let full = Scoring.maxPoints(queue.question)
        for (attempt, value) in points {
            guard let entry = entries[attempt] else { throw Problem.notSubmitted(attempt) }
            guard value.isFinite, value >= 0, value <= full else { throw Problem.pointsOutOfRange(user: entry.user, max: full) }
        }
        for (attempt, value) in points.sorted(by: { $0.key < $1.key }) {
            guard try await storage.grade(attemptID: attempt, questionID: question, points: value) else { throw Problem.notSubmitted(attempt) }
        }
    }

    /// Who acts from the server's own command line, as the record says.
    public static let commandLine = "the server's command line"

    /// Closes now or at `at`, recorded as `actor`'s action; returns when it closes and how many open attempts it
    /// handed in (closing now).
    @discardableResult
    public func close(_ id: String, at: Date? = nil, by actor: String = commandLine) async throws -> (at: Date, handedIn: Int) {
        let when = at ?? now()
        return (when, try await change(id, .close(at: when), by: actor))
    }

    public func release(_ id: String, by actor: String = commandLine) async throws { try await change(id, .release, by: actor) }

    /// Closes, reopens, releases or hides results, recording who did it and when in the same transaction. Closing
    /// now hands in the attempts left open (`ClosingHandIn`; a closing set for later, the server's sweeper does);
    /// reopening gives back those handed in at closing that nobody graded.
    /// Returns how many attempts closing handed in.
    @discardableResult
    public func change(_ id: String, _ change: AssessmentChange, by actor: String) async throws -> Int {
        let now = now()
        guard try await storage.apply(change, assessmentID: id, by: actor, at: now) else { throw Problem.noAssessment(id) }
        guard case .close(let at) = change, at <= now else { return 0 }
        return try await ClosingHandIn(storage: storage).handIn(assessmentID: id, now: now)
    }

    /// Regrades the hand-ins of earlier versions with the current version's keys (`RegradePlan`); `dryRun` only says
    /// what would change.
    public func regrade(_ id: String, dryRun: Bool, by actor: String = commandLine) async throws -> RegradePlan.Outcome {
        guard let outcome = try await storage.regrade(assessmentID: id, apply: !dryRun, by: actor, at: now()) else {
            throw Problem.noAssessment(id)
        }
        return outcome
    }

    /// Every recorded close, reopen, release and hide of an assessment, oldest first.
    public func history(_ id: String) async throws -> [AssessmentAction] { try await storage.actions(assessmentID: id) }

    /// What closing or releasing now leaves behind, for the sentence that asks first.
    public struct Consequences: Sendable, Equatable {
        public var title: String
        public var expected: Int
        public var notHandedIn: Int
        /// Attempts with answers on the server, not handed in: closing now hands them in.
        public var openWithAnswers: Int
        /// Answers of handed-in attempts that wait for a teacher's points.
        public var waitingForGrading: Int
        public var closed: Bool
        public var released: Bool
    }

    public func consequences(_ id: String) async throws -> Consequences {
        let roster = try await roster(id)
        return Consequences(
            title: roster.title,
            expected: roster.students.count,
            notHandedIn: roster.students.count - roster.handedInCount,
            openWithAnswers: roster.students.filter { $0.state == .answering }.count,
            waitingForGrading: roster.students.compactMap(\.pending).reduce(0, +),
            closed: roster.closed,
            released: roster.released
        )
    }

    /// The most extra minutes a teacher may give (a day).
    public static let maxExtraMinutes = 24 * 60
    /// The longest feedback on one answer, in characters.
    public static let maxFeedback = 5_000

    /// One student's whole answer sheet: each question with their answer, its points and how they were given, and
    /// the teacher's feedback; the latest handed-in attempt unless another is named.
    public struct Sheet: Sendable {
        public struct Line: Sendable {
            public var question: Question
            public var answer: String?
            public var points: Double?
            public var maxPoints: Double
            /// The teacher's points stand (over automatic ones).
            public var graded: Bool
            /// The question needs a teacher's points (no automatic scoring).
            public var needsTeacher: Bool
            public var feedback: String?
            /// Earlier answers that do not count (replaced, or given after the hand-in), oldest first.
            public var replaced: [Replaced] = []
        }

        /// An answer kept, not counted: what it was, when it was given, and why it does not count.
        public struct Replaced: Sendable {
            public var answer: String
            public var answeredAt: String
            public var afterHandIn: Bool
        }

        public var title: String
        public var row: Roster.Student
        /// Every handed-in attempt of the student, oldest first, and the one shown.
        public var attempts: [String]
        public var attempt: String?
        public var lines: [Line]
        /// The shown attempt's own record, every device's, merged by time; and why a device's does not verify.
        public var record: [(device: String, event: RecordEvent)] = []
        public var recordProblems: [String] = []
    }

    public func sheet(_ id: String, user: String, attempt: String? = nil) async throws -> Sheet {
        guard let facts = try await storage.rosterFacts(assessmentID: id, group: nil) else { throw Problem.noAssessment(id) }
        let roster = RosterPlan.roster(facts, group: nil, now: now())
        guard let row = roster.students.first(where: { $0.user == user }) else { throw Problem.noStudent(user) }
        let inputs = facts.results.filter { $0.record.user == user }.sorted {
            ($0.record.receivedAt, $0.record.attemptID) < ($1.record.receivedAt, $1.record.attemptID)
        }
        let chosen = attempt.flatMap { wanted in inputs.first { $0.record.attemptID == wanted } } ?? inputs.last
        var replaced: [String: [Sheet.Replaced]] = [:]
        if let chosen {
            for earlier in try await storage.replacedAnswers(attemptID: chosen.record.attemptID) {
                guard let question = chosen.document.question(earlier.questionID) else { continue }
                replaced[earlier.questionID, default: []].append(
                    Sheet.Replaced(
                        answer: AnswerText.plain(earlier.answer, question: question),
                        answeredAt: earlier.answeredAt,
                        afterHandIn: earlier.afterHandIn
                    )
                )
            }
        }
        // Pools and shuffling: the student's own letters beside the source's.
        let draw = chosen == nil ? nil : try await storage.draws(assessmentID: id)[user]
        let lines: [Sheet.Line] =
            chosen.map { input in
                input.document.questions.map { question -> Sheet.Line in
                    let answer = input.answers[question.id]
                    return Sheet.Line(
                        question: question,
                        answer: answer.map { value in
                            let text = AnswerText.plain(value, question: question)
                            guard let note = DrawPlan.lettersNote(value, question: question, lists: draw?.lists[question.id]) else { return text }
                            return "\(text) (\(note))"
                        },
                        points: Scoring.awarded(question, record: input.record, answers: input.answers, grades: input.grades),
                        maxPoints: Scoring.maxPoints(question),
                        graded: input.grades[question.id] != nil,
                        needsTeacher: Scoring.isTeacherGraded(question),
                        feedback: input.feedback[question.id],
                        replaced: replaced[question.id] ?? []
                    )
                }
            } ?? []
        var sheet = Sheet(
            title: facts.document.title,
            row: row,
            attempts: inputs.map(\.record.attemptID),
            attempt: chosen?.record.attemptID,
            lines: lines
        )
        if let attempt = chosen?.record.attemptID {
            let records = try await storage.records(assessmentID: id, user: user).filter { $0.attemptID == attempt }
            sheet.record = RecordRules.timeline(records)
            sheet.recordProblems =
                records.filter { !$0.verified }.map { "Its record from one device does not verify: \($0.problem ?? "unknown")." }
                + RecordRules.gaps(records, answered: chosen.map { Set($0.answers.keys) }).map { "Its record does not verify: \($0)." }
        }
        return sheet
    }

    /// Saves a sheet's points and feedback for one attempt, all or nothing: every value is checked (points within
    /// [0, the question's points], feedback at most `maxFeedback` characters, questions of the attempt) first.
    /// Empty feedback removes it.
    public func saveSheet(_ id: String, attempt: String, points: [String: Double], feedback: [String: String]) async throws {
        guard let input = try await storage.resultInputs(user: nil, assessmentID: id, attemptIDs: [attempt]).first else {
            throw Problem.notSubmitted(attempt)
        }
        for (question, value) in points {
            guard let asked = input.document.question(question) else { throw Problem.noQuestion(assessment: id, question: question) }
            let full = Scoring.maxPoints(asked)
            guard value.isFinite, value >= 0, value <= full else { throw Problem.pointsOutOfRange(user: input.record.user, max: full) }
        }
        for (question, text) in feedback {
            guard input.document.question(question) != nil else { throw Problem.noQuestion(assessment: id, question: question) }
            guard text.count <= Self.maxFeedback else { throw Problem.feedbackTooLong(max: Self.maxFeedback) }
        }
        for (question, value) in points.sorted(by: { $0.key < $1.key }) where input.grades[question] != value {
            guard try await storage.grade(attemptID: attempt, questionID: question, points: value) else { throw Problem.notSubmitted(attempt) }
        }
        for (question, text) in feedback.sorted(by: { $0.key < $1.key }) {
            let words = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (input.feedback[question] ?? "") != words else { continue }
            guard try await storage.setFeedback(attemptID: attempt, questionID: question, text: words.isEmpty ? nil : words) else {
                throw Problem.notSubmitted(attempt)
            }
        }
    }

    /// Extra minutes for one student on this assessment (0 removes them); applies to their next download.
    public func setExtraTime(_ id: String, user: String, minutes: Int) async throws {
        try await requirePublished(id)
        guard (0...Self.maxExtraMinutes).contains(minutes) else { throw Problem.extraMinutesOutOfRange }
        guard let record = try await storage.user(named: user), record.role == .student else { throw Problem.noStudent(user) }
        try await storage.setAccommodation(assessmentID: id, user: user, extraMinutes: minutes)
    }

    /// What each question told us (`ItemAnalysis`), over first attempts unless every attempt is asked for.
    public func analysis(_ id: String, attempts: ItemAnalysis.Attempts = .first) async throws -> (title: String, analysis: ItemAnalysis) {
        guard let facts = try await storage.rosterFacts(assessmentID: id, group: nil) else { throw Problem.noAssessment(id) }
        return (facts.document.title, ItemAnalysis.analyse(facts.results, document: facts.document, attempts: attempts))
    }

    /// Accepts a late hand-in, gives it 0, or (nil) undoes either, with a history line naming who did it.
    public func decideLate(_ id: String, attempt: String, decision: LateDecision?, by actor: String? = nil) async throws {
        guard try await !storage.resultInputs(user: nil, assessmentID: id, attemptIDs: [attempt]).isEmpty else {
            throw Problem.notSubmitted(attempt)
        }
        guard try await storage.decideLate(attemptID: attempt, decision: decision, by: actor, at: now()) else { throw Problem.notLate(attempt) }
    }

    /// `rows` scored from their own attempts' answers, read for those attempts only.
    func scored(_ rows: [Roster.Student], assessmentID: String) async throws -> [Roster.Student] {
        // A row whose store keeps its score needs no answers read; one handed in before scores were kept does.
        let attempts = rows.filter { $0.score == nil }.compactMap(\.attemptId)
        guard !attempts.isEmpty else { return rows }
        return RosterPlan.scored(rows, inputs: try await storage.resultInputs(user: nil, assessmentID: assessmentID, attemptIDs: attempts))
    }

    /// A gradebook file of one assessment (a group or everyone), line by line: who the roster lists is read first
    /// (names and groups only), then `exportChunk` students at a time with everything of theirs, so the memory it
    /// takes does not grow with the class.
    public func export(_ id: String, format: GradebookCSV.Format, group: String? = nil, to write: (String) async throws -> Void) async throws {
        // The head alone (no one's rows): the document the header names.
        guard let head = try await storage.rosterFacts(assessmentID: id, group: group, detail: .summary, users: []) else {
            throw Problem.noAssessment(id)
        }
        let members = try await storage.rosterMembers(assessmentID: id, group: group)
        let scale = GradebookCSV.Scale(head.document)
        try await GradebookCSV.header(head, format: format, scale: scale, to: write)
        let size = min(max(1, exportChunk), 500)
        for start in stride(from: 0, to: members.count, by: size) {
            let chunk = members[start..<min(start + size, members.count)].map(\.name)
            guard let facts = try await storage.rosterFacts(assessmentID: id, group: group, detail: .answers, users: chunk) else {
                throw Problem.noAssessment(id)
            }
            let roster = RosterPlan.roster(facts, group: group, now: now())
            try await GradebookCSV.rows(roster.students, inputs: facts.results, document: facts.document, format: format, scale: scale, to: write)
        }
    }

    /// The start code of a sealed exam's current version (with its title), or nil when it is not sealed.
    public func startCode(_ id: String, sealIterations: Int) async throws -> (version: Int, code: String, title: String)? {
        guard let served = try await storage.served(id: id) else { throw Problem.noAssessment(id) }
        guard let document = try SealedExams.sealedDocument(served.bytes) else { return nil }
        let exams = SealedExams(storage: storage, receipts: ReceiptIssuer(storage: storage), iterations: sealIterations)
        let material = try await exams.material(id: id, version: served.version)
        return (served.version, material.startCode, document.title)
    }

    /// Throws `noAssessment` unless the assessment is published (a cheap check before a long answer starts).
    public func requirePublished(_ id: String) async throws {
        guard try await storage.served(id: id) != nil else { throw Problem.noAssessment(id) }
    }
}

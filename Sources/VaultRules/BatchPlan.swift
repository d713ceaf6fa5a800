import Foundation
import VaultAPI
import VaultModel

/// An assessment's head row: which version is current, and whether it was deleted.
public struct AssessmentHead: Sendable, Equatable {
    public var currentVersion: Int
    public var deleted: Bool
    /// When the teacher closed it (`vault-server close`), in seconds since 1970.
    public var closedAt: Double?
    /// The teacher released its results (students see scores and correct answers).
    public var released: Bool
    public init(currentVersion: Int, deleted: Bool, closedAt: Double? = nil, released: Bool = false) {
        self.currentVersion = currentVersion
        self.deleted = deleted
        self.closedAt = closedAt
        self.released = released
    }
}

/// One published version of an assessment.
public struct DocumentKey: Hashable, Sendable {
    public var id: String
    public var version: Int
    public init(id: String, version: Int) {
        self.id = id
        self.version = version
    }
}

/// One question of one attempt: where "the latest answer wins" is decided.
public struct AnswerSlot: Hashable, Sendable, Comparable {
    public var attemptID: String
    public var questionID: String
    public init(attemptID: String, questionID: String) {
        self.attemptID = attemptID
        self.questionID = questionID
    }
    public static func < (a: AnswerSlot, b: AnswerSlot) -> Bool { (a.attemptID, a.questionID) < (b.attemptID, b.questionID) }
}

/// The answer that currently wins a slot.
public struct LatestAnswer: Sendable, Equatable {
    public var responseID: String
    public var answeredAtMilliseconds: Int64
    public init(responseID: String, answeredAtMilliseconds: Int64) {
        self.responseID = responseID
        self.answeredAtMilliseconds = answeredAtMilliseconds
    }
}

/// Who an attempt belongs to: the user who first uploaded an answer to it, on which assessment.
public struct AttemptOwner: Sendable, Equatable {
    public var user: String
    public var assessmentID: String
    /// When it was handed in (the submission's `submitted_at`, in milliseconds since 1970), if it was.
    public var handedInAtMilliseconds: Int64?
    /// When that hand-in reached the server (seconds since 1970, the server's clock).
    public var handedInReceivedAt: Double?
    public init(user: String, assessmentID: String, handedInAtMilliseconds: Int64? = nil, handedInReceivedAt: Double? = nil) {
        self.user = user
        self.assessmentID = assessmentID
        self.handedInAtMilliseconds = handedInAtMilliseconds
        self.handedInReceivedAt = handedInReceivedAt
    }

    /// The facts' reading of a stored submission's `submitted_at` text (nil: none, or unreadable).
    public static func handedIn(_ submittedAt: String?) -> Int64? { submittedAt.flatMap(Timestamp.milliseconds) }
}

/// What the store holds that a batch's rules depend on, read inside the batch's transaction with a constant number
/// of queries (whatever the batch's size) by `BatchPlan.needs`.
public struct BatchFacts: Sendable {
    /// Response ids of the batch that are already stored, with their owner.
    public var storedResponses: [String: String] = [:]
    public var assessments: [String: AssessmentHead] = [:]
    /// Served documents for the current and the answered versions the batch names.
    public var documents: [DocumentKey: Assessment] = [:]
    public var attempts: [String: AttemptOwner] = [:]
    /// The current winner of each slot the batch touches.
    public var latest: [AnswerSlot: LatestAnswer] = [:]
    /// The user's draw, per assessment whose current version draws per student (pools, shuffling, template items):
    /// an answer to a question not drawn is refused, and a template item is judged as the instance they got. An
    /// assessment missing here has no draw of theirs.
    public var draws: [String: Draw] = [:]
    public init() {}
}

/// What the batch changes, written in the same transaction with a constant number of statements.
public struct BatchWrites: Sendable, Equatable {
    public struct Attempt: Sendable, Equatable {
        public var id: String
        public var user: String
        public var assessmentID: String
        /// Seconds since 1970 when its clock started on the device (`attempt_started_at`), when the item said.
        public var startedAt: Double?
    }
    public struct Response: Sendable, Equatable {
        public var id: String
        public var user: String
        public var attemptID: String
        public var assessmentID: String
        public var assessmentVersion: Int
        public var questionID: String
        /// The canonical JSON of the answer.
        public var answer: String
        public var answeredAt: String
        public var answeredAtMilliseconds: Int64
        public var timeSpentMilliseconds: Int
        public var forced: Bool
        public var superseded: Bool
    }
    public var attempts: [Attempt] = []
    public var responses: [Response] = []
    /// Stored responses that lose their slot to an answer of this batch.
    public var superseded: [String] = []
    /// Answers of a new attempt refused because the exam had closed, recorded for the teacher's roster (one per
    /// student and assessment: the latest).
    public var refusals: [RosterFacts.Refusal] = []
    /// Handed-in attempts whose submission this batch changes, with the flag it gains: `changedAfterHandIn` also
    /// means its answer count is counted again and its receipt signed again (same receipt id) over the final set.
    public var handedInChanges: [String: Set<SubmissionFlag>] = [:]
    /// The device the batch came from and the attempts it stored answers of: each (attempt, device) is seen now.
    public var device: String?
    public var seenAttempts: [String] {
        device == nil ? [] : Array(Set(responses.map(\.attemptID))).sorted()
    }
    public var isEmpty: Bool {
        attempts.isEmpty && responses.isEmpty && superseded.isEmpty && refusals.isEmpty && handedInChanges.isEmpty
    }
}

/// The per-batch rules of API v1, independent of any storage: duplicate, ownership, gone, closed, outdated
/// (conflict), invalid, and supersede by `answered_at` (ties broken by id). The store reads `BatchFacts`, calls
/// `decide`, and writes `BatchWrites` in one transaction in which the read and the write act as one step: SQLite by
/// `BEGIN IMMEDIATE` (one writer at a time), PostgreSQL at READ COMMITTED where every race the facts could lose ends
/// in a unique-key violation and a retry that reads the winner (docs/architecture.md). Exactly once follows from that
/// and the unique key on the response id.
public enum BatchPlan {
    /// The keys a store must read for `items`. Documents follow once the heads are known (`documentKeys`).
    public struct Needs: Sendable {
        public var responseIDs: [String]
        public var assessmentIDs: [String]
        public var attemptIDs: [String]
        public var slots: [AnswerSlot]
    }

    public static func needs(_ items: [ResponseItem]) -> Needs {
        Needs(
            responseIDs: Array(Set(items.map(\.id))).sorted(),
            assessmentIDs: Array(Set(items.map(\.assessmentId))).sorted(),
            attemptIDs: Array(Set(items.map(\.attemptId))).sorted(),
            slots: Array(Set(items.map { AnswerSlot(attemptID: $0.attemptId, questionID: $0.questionId) })).sorted()
        )
    }

    /// The assessments of the batch whose current document draws per student: the store reads the user's draw of
    /// each into `BatchFacts.draws`.
    public static func drawingAssessments(_ facts: BatchFacts) -> [String] {
        facts.assessments.compactMap { id, head in
            facts.documents[DocumentKey(id: id, version: head.currentVersion)]?.drawsPerStudent == true ? id : nil
        }.sorted()
    }

    /// The documents the rules need once the heads are read: each current version and each answered version.
    public static func documentKeys(_ items: [ResponseItem], heads: [String: AssessmentHead]) -> Set<DocumentKey> {
        var keys = Set<DocumentKey>()
        for item in items {
            guard let head = heads[item.assessmentId], !head.deleted else { continue }
            keys.insert(DocumentKey(id: item.assessmentId, version: head.currentVersion))
            if item.assessmentVersion >= 1 { keys.insert(DocumentKey(id: item.assessmentId, version: item.assessmentVersion)) }
        }
        return keys
    }

    /// Results in the order of `items`, and what to write. Items are judged in order, each seeing what the ones
    /// before it did (an id twice in one batch is a duplicate the second time; a slot answered twice keeps the
    /// later answer).
    public static func decide(
        _ items: [ResponseItem],
        user: String,
        device: String? = nil,
        now: Date,
        facts: BatchFacts
    ) -> (results: [ItemResult], writes: BatchWrites) {
        var facts = facts
        var writes = BatchWrites()
        writes.device = device
        var results: [ItemResult] = []
        results.reserveCapacity(items.count)
        // Each document's questions by id, once per batch (a batch of n answers would otherwise scan n times).
        let questions = facts.documents.mapValues { document in
            Dictionary(document.questions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
        let drawing = Set(drawingAssessments(facts))
        for item in items {
            if drawing.contains(item.assessmentId), facts.storedResponses[item.id] == nil,
                facts.draws[item.assessmentId]?.questions.contains(item.questionId) != true
            {
                // Not one of the student's questions: stored nowhere, and nothing said of which questions exist.
                results.append(
                    ItemResult(
                        id: item.id,
                        status: .rejected,
                        message: "This question was not given to you in this assessment, so this answer was not kept."
                    )
                )
                continue
            }
            results.append(decide(item, user: user, now: now, facts: &facts, questions: questions, writes: &writes))
        }
        return (results, writes)
    }

    private static func decide(
        _ item: ResponseItem,
        user: String,
        now: Date,
        facts: inout BatchFacts,
        questions: [DocumentKey: [String: Question]],
        writes: inout BatchWrites
    ) -> ItemResult {
        if let owner = facts.storedResponses[item.id] {
            // Another user's id answers like any invalid item, so ids cannot be probed.
            guard owner == user else { return ResponseRules.invalid(item) }
            return ItemResult(id: item.id, status: .duplicate)
        }
        guard let head = facts.assessments[item.assessmentId], !head.deleted,
            let current = facts.documents[DocumentKey(id: item.assessmentId, version: head.currentVersion)]
        else {
            return ItemResult(id: item.id, status: .gone, message: "This assessment is no longer available.")
        }
        let owner = facts.attempts[item.attemptId]
        if let owner, owner.user != user || owner.assessmentID != item.assessmentId {
            return ItemResult(id: item.id, status: .rejected, message: "This attempt belongs to someone else or another assessment.")
        }
        if owner == nil, let closed = ResponseRules.closedForNewAttempts(current, closedAt: head.closedAt, answeredAt: item.answeredAt, now: now) {
            let refusal = RosterFacts.Refusal(
                user: user,
                assessmentID: item.assessmentId,
                attemptID: item.attemptId,
                reason: .afterClosing,
                at: now.timeIntervalSince1970
            )
            writes.refusals.removeAll { $0.user == user && $0.assessmentID == item.assessmentId }
            writes.refusals.append(refusal)
            return ItemResult(id: item.id, status: .rejected, message: closed)
        }
        let answered = item.assessmentVersion >= 1 ? questions[DocumentKey(id: item.assessmentId, version: item.assessmentVersion)] : nil
        // A template item is judged as the instance this student got (its own hash).
        let draw = facts.draws[item.assessmentId]
        func asked(_ question: Question?) -> Question? { question.map { draw?.asked($0) ?? $0 } }
        var result = ResponseRules.judge(
            item,
            answeredQuestion: asked(answered?[item.questionId]),
            currentVersion: current.version,
            currentQuestion: asked(questions[DocumentKey(id: item.assessmentId, version: head.currentVersion)]?[item.questionId])
        )
        // A sealed exam's questions are secret until it opens: a refusal never tells which question ids exist.
        if result.status == .rejected, current.sealed == true { result = ResponseRules.invalid(item) }
        guard result.status == .accepted, let milliseconds = Timestamp.milliseconds(item.answeredAt),
            let answer = try? CanonicalJSON.text(item.answer)
        else { return result }

        // Last write wins by answered_at (ties broken by id) per attempt and question. An attempt handed in (on
        // another of the student's devices) takes an answer given before its hand-in by the same rule, and its
        // receipt follows, while the attempt is still open to it (`ResponseRules.takesEarlierAnswers`); an answer
        // given after it, or arriving once it is closed to them, is kept for the teacher and never counted.
        let slot = AnswerSlot(attemptID: item.attemptId, questionID: item.questionId)
        var superseded = false
        if let handedIn = owner?.handedInAtMilliseconds,
            milliseconds > handedIn
                || !ResponseRules.takesEarlierAnswers(current, head: head, handedInReceivedAt: owner?.handedInReceivedAt, now: now)
        {
            superseded = true
            writes.handedInChanges[item.attemptId, default: []].insert(.answersAfterHandIn)
            result = ItemResult(
                id: item.id,
                status: .superseded,
                currentVersion: result.currentVersion,
                message: milliseconds > handedIn
                    ? "This attempt was already handed in (on another device, or by the server when the exam closed), so this later answer does not count. It is kept for your teacher."
                    : "This attempt was handed in and can no longer change (the exam is closed, its results are out, or the hand-in is a week old), so this answer does not count. It is kept for your teacher."
            )
        } else if let latest = facts.latest[slot] {
            if AnswerOrder.isLater((latest.answeredAtMilliseconds, latest.responseID), than: (milliseconds, item.id)) {
                superseded = true
                result = ItemResult(
                    id: item.id,
                    status: .superseded,
                    currentVersion: result.currentVersion,
                    message: "A later answer to this question is already stored."
                )
            } else if let index = writes.responses.firstIndex(where: { $0.id == latest.responseID }) {
                writes.responses[index].superseded = true
            } else {
                writes.superseded.append(latest.responseID)
            }
        }
        if !superseded {
            facts.latest[slot] = LatestAnswer(responseID: item.id, answeredAtMilliseconds: milliseconds)
            if owner?.handedInAtMilliseconds != nil { writes.handedInChanges[item.attemptId, default: []].insert(.changedAfterHandIn) }
        }
        if owner == nil {
            facts.attempts[item.attemptId] = AttemptOwner(user: user, assessmentID: item.assessmentId)
            writes.attempts.append(
                .init(
                    id: item.attemptId,
                    user: user,
                    assessmentID: item.assessmentId,
                    startedAt: TimeAuthority.recordedStart(
                        reported: item.attemptStartedAt.flatMap(Timestamp.milliseconds).map { Double($0) / 1000 },
                        now: now
                    )
                )
            )
        }
        facts.storedResponses[item.id] = user
        writes.responses.append(
            .init(
                id: item.id,
                user: user,
                attemptID: item.attemptId,
                assessmentID: item.assessmentId,
                assessmentVersion: item.assessmentVersion,
                questionID: item.questionId,
                answer: answer,
                answeredAt: item.answeredAt,
                answeredAtMilliseconds: milliseconds,
                timeSpentMilliseconds: max(0, item.timeSpentMs),
                forced: item.force && item.assessmentVersion != current.version,
                superseded: superseded
            )
        )
        return result
    }
}

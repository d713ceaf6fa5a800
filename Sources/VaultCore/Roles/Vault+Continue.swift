import Foundation
import Logging
import VaultAPI
import VaultLanguage
import VaultModel

/// Carrying on at another machine: an attempt in progress that the server holds (its answers synced from the device
/// it began on) becomes this vault's, under the same id, with those answers and the first device's clock. One attempt,
/// never a second one: the server counts it once and its receipt covers every answer from both devices.
extension Vault {

    /// Brings `held` (the server's word for one of this student's attempts in progress, signature checked) into
    /// this vault. Its version must be downloaded here and readable (a sealed exam needs its start code on this
    /// device too). An attempt begun on this device and never answered gives way; one with answers is never touched.
    public func continueAttempt(_ held: HeldAttempt, now: Date? = nil) throws -> AttemptContinuation {
        if try database.row("SELECT 1 FROM attempts WHERE id = ?", [held.attemptId]) != nil {
            return .alreadyHere(attemptID: held.attemptId)
        }
        guard held.state == .inProgress else {
            return .notContinued(tr("You already handed in this test on another device; it cannot be answered again."))
        }
        let wall = now ?? clocks.wall()
        let assessment: Assessment
        do {
            assessment = try loadAssessment(id: held.assessmentId, version: held.assessmentVersion, now: wall).assessment
        } catch let error as VaultError where error.code == .notFound {
            return .notContinued(
                tr(
                    "Your answers on the other device were given on version {version} of {id}, which this device does not have. Ask your teacher before starting again here.",
                    ["version": held.assessmentVersion, "id": held.assessmentId]
                )
            )
        } catch let error as VaultError where error.code == .notAllowed {
            // A sealed exam: the key is per device, so the start code is needed here as well.
            return .notContinued(
                tr(
                    "You started {id} on another device. It is sealed on this one: enter the start code with `vault unseal {id}`, then run `vault download {id}` again to continue where you left off.",
                    ["id": held.assessmentId]
                )
            )
        }
        let hashes = try questionHashes(id: held.assessmentId, version: held.assessmentVersion)
        let startedAt = held.startedAt.flatMap(Timestamp.date)
        var checkpoint = TimeCheckpoint.untimed
        var brought = 0
        let openHere = try database.rows(
            "SELECT id FROM attempts WHERE assessment_id = ? AND state = \(AttemptRecord.State.inProgress.sql)",
            [held.assessmentId]
        ).map { try $0.string(0) }
        for open in openHere where try database.scalarInt("SELECT count(*) FROM responses WHERE attempt_id = ?", [open]) ?? 0 > 0 {
            return .notContinued(
                tr(
                    "You have answers to {title} on this device as well, so the attempt from the other device was not brought here. Ask your teacher which one counts.",
                    ["title": assessment.title]
                )
            )
        }
        try database.inTransaction {
            // An attempt opened here and never answered gives way to the one begun elsewhere.
            for open in openHere { try database.execute("DELETE FROM attempts WHERE id = ?", [open]) }
            try database.execute(
                """
                INSERT INTO attempts (id, assessment_id, assessment_version, state, started_at, continued_at, shared_at)
                VALUES (?, ?, ?, \(AttemptRecord.State.inProgress.sql), ?, ?, ?)
                """,
                [
                    held.attemptId, held.assessmentId, held.assessmentVersion, (startedAt ?? wall).millisecondsSince1970,
                    wall.millisecondsSince1970, wall.millisecondsSince1970,
                ]
            )
            // This device's own record of the attempt begins here (the first device keeps its own chain).
            try appendEvent(.continuedElsewhere, attemptID: held.attemptId, now: wall)
            if assessment.timeLimitSeconds != nil, let startedAt {
                // The first device's time counts: the clock started there, and the time since is counted as used here
                // too. The server's measure of it comes first: this device's clock may be behind (set back, or never
                // set), and counting from it would give the time back.
                var time = AttemptTime()
                time.startedAt = startedAt
                let byThisClock = Int(saturating: (wall.timeIntervalSince(startedAt) * 1000).rounded(.down))
                time.countedMilliseconds = max(0, byThisClock, held.elapsedMs ?? 0)
                // A clock behind the server's by more than drift is recorded, as a clock set back is: this device reads
                // `byThisClock` where the server counts `elapsedMs`.
                if let elapsed = held.elapsedMs, elapsed - byThisClock > Int(saturating: AttemptTime.wallDriftTolerance * 1000) {
                    time.wallMovedBackMilliseconds = elapsed - byThisClock
                }
                let boot = clocks.boot()
                time.bootID = boot.bootID
                time.bootCheckpointMilliseconds = boot.elapsed.wholeMilliseconds
                time.lastWall = wall
                try database.execute(
                    "UPDATE attempts SET \(AttemptRow.timeAssignments) WHERE id = ?",
                    AttemptRow.timeValues(time) + [held.attemptId]
                )
            }
            for answer in held.answers {
                guard let hash = hashes[answer.questionId] else { continue }
                try storeHeld(answer, attemptID: held.attemptId, questionHash: hash)
                brought += 1
            }
            try recordAccess(id: held.assessmentId, version: held.assessmentVersion, now: wall)
            checkpoint = try checkpointTime(attemptID: held.attemptId, start: false)
        }
        let record = try attempt(held.attemptId, now: wall)
        logger.notice("an attempt begun on another device was continued here")
        return .continued(
            attemptID: held.attemptId,
            answers: brought,
            startedAt: record.timeLimit == nil ? nil : record.time.startedAt,
            remaining: timeStatus(of: record).remaining,
            handedInAtLimit: checkpoint == .submittedAtLimit
        )
    }

    /// In one sentence, what continuing did, for the student.
    public static func continuationSentence(_ continuation: AttemptContinuation, title: String) -> String? {
        switch continuation {
        case .alreadyHere: return nil
        case .notContinued(let sentence): return sentence
        case .continued(_, let answers, let startedAt, let remaining, let handedIn):
            if handedIn {
                return trn(
                    "You started {title} on another device and its time has run out, so it was handed in with the {n} answer saved there.",
                    "You started {title} on another device and its time has run out, so it was handed in with the {n} answers saved there.",
                    answers,
                    ["title": title]
                )
            }
            guard let startedAt, let remaining else {
                return trn(
                    "You started {title} on another device: {n} answer brought here. `vault take` continues the same attempt.",
                    "You started {title} on another device: {n} answers brought here. `vault take` continues the same attempt.",
                    answers,
                    ["title": title]
                )
            }
            let minutes = max(0, Int(remaining.components.seconds)) / 60
            let left = minutes >= 1 ? trn("{n} minute", "{n} minutes", minutes) : tr("less than a minute")
            return trn(
                "You started {title} on another device at {when}; {left} left. {n} answer brought here; `vault take` continues the same attempt.",
                "You started {title} on another device at {when}; {left} left. {n} answers brought here; `vault take` continues the same attempt.",
                answers,
                ["title": title, "when": PeopleDates.dayAndClock(startedAt), "left": left]
            )
        }
    }
}

extension Vault {
    /// How long a handed-in attempt shared with another device is still followed.
    static let followHandedIn: TimeInterval = 7 * 86_400

    /// The attempts another device may have moved on: in progress here with answers the server holds, and handed in
    /// here in the last week when another device answered them too.
    public func openAttemptsOnServer(now: Date? = nil) throws -> [(attemptID: String, assessmentID: String)] {
        let now = now ?? clocks.wall()
        return try database.rows(
            """
            SELECT a.id, a.assessment_id FROM attempts a WHERE (a.state = \(AttemptRecord.State.inProgress.sql) AND EXISTS (
                SELECT 1 FROM responses r WHERE r.attempt_id = a.id AND r.state IN (\(ResponseState.uploaded.sql), \(ResponseState.synced.sql))))
                OR (a.state != \(AttemptRecord.State.inProgress.sql) AND a.shared_at IS NOT NULL AND a.submitted_at > ?)
            """,
            [now.addingTimeInterval(-Self.followHandedIn).millisecondsSince1970]
        ).map { (try $0.string(0), try $0.string(1)) }
    }

    /// Brings this vault's copy of an attempt in progress up to the server's (`held`, signature checked): a current
    /// answer given on another device is stored here as well (the later one by time already won on the server), and
    /// an attempt handed in there is closed here, so this device neither starts it again nor counts on answers given
    /// after that (they still go up, and the teacher sees them).
    public func reconcile(_ held: HeldAttempt, now: Date? = nil) throws -> Reconciliation {
        let now = now ?? clocks.wall()
        guard
            let row = try database.row("SELECT assessment_id, assessment_version, state FROM attempts WHERE id = ?", [held.attemptId]),
            try row.string(0) == held.assessmentId
        else { return Reconciliation() }
        let open = try row.state(AttemptRecord.State.self, 2) == .inProgress
        let hashes = try questionHashes(id: try row.string(0), version: try row.int(1))
        var outcome = Reconciliation()
        try database.inTransaction {
            for answer in held.answers {
                guard let hash = hashes[answer.questionId],
                    try database.row("SELECT 1 FROM responses WHERE id = ?", [answer.responseId]) == nil
                else { continue }
                try storeHeld(answer, attemptID: held.attemptId, questionHash: hash)
                outcome.changed.append(answer.questionId)
            }
            if open, held.state == .handedIn {
                try database.execute(
                    "UPDATE attempts SET state = \(AttemptRecord.State.synced.sql), submitted_at = ? WHERE id = ?",
                    [now.millisecondsSince1970, held.attemptId]
                )
                outcome.handedInElsewhere = true
            }
            if !open, !outcome.changed.isEmpty,
                try database.row("SELECT 1 FROM sync_queue WHERE kind = \(QueueKind.submission.sql) AND ref_id = ?", [held.attemptId]) == nil
            {
                try database.execute(
                    "INSERT INTO sync_queue (kind, ref_id, enqueued_at) VALUES (\(QueueKind.submission.sql), ?, ?)",
                    [held.attemptId, now.millisecondsSince1970]
                )
                outcome.receiptRenewed = true
            }
            if outcome != Reconciliation() {
                try database.execute(
                    "UPDATE attempts SET shared_at = coalesce(shared_at, ?) WHERE id = ?",
                    [now.millisecondsSince1970, held.attemptId]
                )
            }
        }
        outcome.changed.sort()
        if outcome != Reconciliation() { logger.notice("an attempt moved on on another device; this copy follows it") }
        return outcome
    }

    /// Inside a transaction: an answer the server holds, stored here as `uploaded` (waiting for the receipt that
    /// names it), encrypted like any answer.
    private func storeHeld(_ answer: HeldAttempt.Answer, attemptID: String, questionHash: String) throws {
        guard let answeredAt = Timestamp.milliseconds(answer.answeredAt) else {
            throw VaultError(.invalidData, tr("The server sent an answer without a readable time; nothing was changed."))
        }
        try database.execute(
            """
            INSERT INTO responses (id, attempt_id, question_id, question_hash, answer, time_spent_ms, answered_at, state)
            VALUES (?, ?, ?, ?, ?, 0, ?, \(ResponseState.uploaded.sql))
            """,
            [answer.responseId, attemptID, answer.questionId, questionHash, try CanonicalJSON.text(answer.answer), answeredAt]
        )
    }
}

/// What `continueAttempt` did.
public enum AttemptContinuation: Sendable, Equatable {
    /// The attempt is this vault's now. `startedAt` is its clock's start on the first device (timed tests);
    /// `remaining` the time left then; `handedInAtLimit` when that time had already run out here.
    case continued(attemptID: String, answers: Int, startedAt: Date?, remaining: Duration?, handedInAtLimit: Bool)
    /// This vault holds the attempt already (it began here, or was continued before).
    case alreadyHere(attemptID: String)
    /// Not continued; the sentence says why and what to do.
    case notContinued(String)
}

/// What the server's word about an attempt in progress here changed.
public struct Reconciliation: Sendable, Equatable {
    /// Questions whose current answer came from another device (now here too), sorted.
    public var changed: [String] = []
    /// The attempt was handed in on another device: closed here.
    public var handedInElsewhere = false
    /// Handed in here, and an answer given earlier on another device changed its final set: its submission is
    /// queued again, so the receipt here is the one the server signed over the final set.
    public var receiptRenewed = false
    public init(changed: [String] = [], handedInElsewhere: Bool = false, receiptRenewed: Bool = false) {
        self.changed = changed
        self.handedInElsewhere = handedInElsewhere
        self.receiptRenewed = receiptRenewed
    }

    /// What `reconcile` did, in sentences for the student (none when nothing changed).
    public func sentences(title: String) -> [String] {
        var sentences: [String] = []
        if !changed.isEmpty {
            let list = Language.listed(changed)
            sentences.append(
                receiptRenewed
                    ? trn(
                        "{title}: question {questions} was answered on another device before your hand-in; those answers count, and your receipt is renewed over the final answers.",
                        "{title}: questions {questions} were answered on another device before your hand-in; those answers count, and your receipt is renewed over the final answers.",
                        changed.count,
                        ["title": title, "questions": list]
                    )
                    : trn(
                        "{title}: question {questions} was answered later on another device; those answers count and are here now.",
                        "{title}: questions {questions} were answered later on another device; those answers count and are here now.",
                        changed.count,
                        ["title": title, "questions": list]
                    )
            )
        }
        if handedInElsewhere {
            sentences.append(
                tr(
                    "{title} was handed in on another device. Answers given here after that are kept for your teacher but do not count.",
                    ["title": title]
                )
            )
        }
        return sentences
    }
}

import Foundation
import Logging
import VaultAPI
import VaultLanguage
import VaultModel

/// Time limits, enforced here and nowhere else: the clock of a timed attempt starts the first time any command shows
/// or answers one of its questions, and runs whether a screen is open or not.
extension Vault {
    /// Where `attempt` stands now.
    public func timeStatus(of attempt: AttemptRecord) -> AttemptTimeStatus {
        AttemptTimeStatus(
            limit: attempt.timeLimit,
            used: attempt.time.used(wall: clocks.wall(), boot: clocks.boot()),
            startedAt: attempt.time.startedAt,
            wallMovedBack: .milliseconds(attempt.time.wallMovedBackMilliseconds)
        )
    }

    /// The time left of every timed attempt in progress whose clock has started, by assessment id (reads only).
    public func timeLeftOfOpenAttempts() throws -> [String: Duration] {
        var left: [String: Duration] = [:]
        for row in try database.rows(
            "SELECT id, assessment_id FROM attempts WHERE state = \(AttemptRecord.State.inProgress.sql) AND timer_started_at IS NOT NULL"
        ) {
            if let remaining = timeStatus(of: try attempt(try row.string(0))).remaining { left[try row.string(1)] = remaining }
        }
        return left
    }

    /// Starts the clock of a timed attempt (the questions are about to be seen) and checkpoints it. Returns the
    /// attempt as stored, submitted already when its time had run out.
    @discardableResult
    public func startClock(attemptID: String) throws -> AttemptRecord {
        let outcome = try database.inTransaction { try checkpointTime(attemptID: attemptID, start: true) }
        let attempt = try self.attempt(attemptID)
        if outcome == .submittedAtLimit { throw Self.timeUp(attempt.assessment.title, answerLost: false) }
        return attempt
    }

    /// A timed attempt handed in because its time ran out while no screen was open.
    public struct TimeRanOut: Sendable, Equatable {
        public var attemptID: String
        public var title: String
        /// When its time ran out: the clock's start plus the limit (the extra minutes of its served document included).
        public var deadline: Date

        /// What the student reads, once, at the next command.
        public var sentence: String {
            tr(
                "Your time on {title} ran out at {time}; your answers were handed in. `vault sync` sends them to your teacher.",
                ["title": title, "time": PeopleDates.dayAndClock(deadline)]
            )
        }
    }

    /// Hands in every timed attempt whose time (and grace) has run out, as `submitIfTimeIsUp` does for one. Run each
    /// time the vault opens, so an attempt whose time ran out while the student was away (the vault closed, the
    /// machine off) is handed in at the next command, said once, and sent by the next `sync`.
    public func handInWhereTimeRanOut() throws -> [TimeRanOut] {
        let open = try database.rows(
            "SELECT id FROM attempts WHERE state = \(AttemptRecord.State.inProgress.sql) AND timer_started_at IS NOT NULL"
        ).map { try $0.string(0) }
        var handedIn: [TimeRanOut] = []
        for id in open where try submitIfTimeIsUp(attemptID: id) {
            let attempt = try attempt(id)
            guard let started = attempt.time.startedAt, let limit = attempt.timeLimit else { continue }
            handedIn.append(TimeRanOut(attemptID: id, title: attempt.assessment.title, deadline: started + limit.inSeconds))
        }
        return handedIn
    }

    /// Submits an attempt whose time (and grace) has run out; true when it did.
    @discardableResult
    public func submitIfTimeIsUp(attemptID: String) throws -> Bool {
        try database.inTransaction { try checkpointTime(attemptID: attemptID, start: false) } == .submittedAtLimit
    }

    enum TimeCheckpoint: Equatable { case untimed, running, submittedAtLimit }

    /// Inside a transaction: moves a timed attempt's checkpoint to now (starting it when `start`), and submits it
    /// when it is past its limit and grace.
    func checkpointTime(attemptID: String, start: Bool) throws -> TimeCheckpoint {
        guard let attempt = try database.row("SELECT \(AttemptRow.selection) FROM attempts WHERE id = ?", [attemptID]).map(AttemptRow.init)
        else { throw VaultError(.notFound, tr("There is no attempt {attempt}.", ["attempt": attemptID])) }
        guard attempt.state == .inProgress, let limit = try timeLimit(assessmentID: attempt.assessmentID, version: attempt.assessmentVersion)
        else { return .untimed }
        let wall = clocks.wall()
        let boot = clocks.boot()
        var time = attempt.time.checkpointed(wall: wall, boot: boot, start: start)
        let over = time.used(wall: wall, boot: boot) > limit + AttemptTime.grace
        var handedInAt = wall
        if over, let started = time.startedAt {
            // Handed in at its limit, whenever the vault noticed (the next command after the student was away): the
            // time used is the limit and its grace, and the hand-in is dated then (never later than the wall clock,
            // which may have been set back). The answers it holds were all saved before; later ones were refused.
            let end = limit + AttemptTime.grace
            time.countedMilliseconds = min(time.countedMilliseconds, end.wholeMilliseconds)
            handedInAt = min(wall, started + end.inSeconds)
        }
        try database.execute("UPDATE attempts SET \(AttemptRow.timeAssignments) WHERE id = ?", AttemptRow.timeValues(time) + [attemptID])
        // The record: the clock's start (the start screen accepted), a wall clock seen going back by a minute or more.
        if start, attempt.time.startedAt == nil, try !hasRecord(attemptID) { try appendEvent(.started, attemptID: attemptID, now: wall) }
        let movedBack = time.wallMovedBackMilliseconds - attempt.time.wallMovedBackMilliseconds
        if movedBack >= 60_000 { try appendEvent(.clockMoved, attemptID: attemptID, count: -(movedBack / 60_000), now: wall) }
        guard over else { return .running }
        try appendEvent(.timeUp, attemptID: attemptID, now: handedInAt)
        try markSubmitted(attemptID: attemptID, at: handedInAt)
        logger.notice("a timed attempt ran out of time and was submitted")
        return .submittedAtLimit
    }

    /// The time limit of a cached version, read from its stored metadata (no document decode on every save).
    func timeLimit(assessmentID: String, version: Int) throws -> Duration? {
        let key = "\(assessmentID)@\(version)"
        if let cached = timeLimitCache[key] { return cached }
        let limit = try loadAssessment(id: assessmentID, version: version).assessment.timeLimitSeconds.map { Duration.seconds($0) }
        timeLimitCache[key] = limit
        return limit
    }

    static func timeUp(_ title: String, answerLost: Bool) -> VaultError {
        VaultError(
            .notAllowed,
            answerLost
                ? tr(
                    "The time for {title} ran out, so it was submitted with the answers saved before; this last answer came too late and was not saved.",
                    ["title": title]
                )
                : tr("The time for {title} ran out, so it was submitted with the answers saved before.", ["title": title])
        )
    }
}

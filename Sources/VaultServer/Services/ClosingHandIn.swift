import Foundation
import Logging
import ServiceLifecycle
import VaultAPI
import VaultRules

/// When an exam closes, the server hands in every attempt that had answers on it by then and was not handed in
/// (Moodle's "open attempts are submitted automatically"): each through the same transaction as a vault's hand-in
/// (`SubmissionPlan`, via `.closing`), with the answers the server holds, dated at the closing. The teacher sees
/// them "handed in at closing" and can grade them; Reopen gives back those not yet graded. Answers that reach the
/// server later are kept for the teacher and not counted, and the vault's own hand-in gets this receipt.
public struct ClosingHandIn: Sendable {
    public let storage: any ServerStorage

    public init(storage: any ServerStorage) { self.storage = storage }

    /// The attempts closing would hand in now: those with answers on the server (the earliest current one received
    /// by `closedAt`), not handed in.
    public static func open(_ facts: RosterFacts, closedAt: Double) -> [RosterFacts.InProgress] {
        let handedIn = Set(facts.results.map(\.record.attemptID))
        return facts.inProgress.filter { !handedIn.contains($0.attemptID) && ($0.firstReceivedAt ?? closedAt) <= closedAt }
    }

    /// Hands in the open attempts of an assessment whose closing time has passed; returns how many. Nothing when it
    /// is open (or closes later). Repeating it, from any process, hands in nothing twice: a submission is one per
    /// attempt.
    @discardableResult
    public func handIn(assessmentID: String, now: Date) async throws -> Int {
        guard let facts = try await storage.rosterFacts(assessmentID: assessmentID, group: nil, detail: .summary, users: nil),
            let closedAt = facts.closedAt, closedAt <= now.timeIntervalSince1970
        else { return 0 }
        var count = 0
        for open in Self.open(facts, closedAt: closedAt) {
            let held = try await storage.heldAttempts(user: open.user, assessmentID: assessmentID)
            guard let attempt = held.first(where: { $0.attemptId == open.attemptID }), attempt.state == .inProgress, !attempt.answers.isEmpty
            else { continue }
            // Listed as a receipt states them (`ReceiptMaterial.Answer.digest`: the one rule for an answer's hash).
            let listed = try attempt.answers.map {
                ReceiptMaterial.Answer(responseID: $0.responseId, questionID: $0.questionId, answer: try CanonicalJSON.text($0.answer)).digest
            }
            let request = SubmissionRequest(
                attemptId: attempt.attemptId,
                assessmentId: assessmentID,
                assessmentVersion: attempt.assessmentVersion,
                submittedAt: Timestamp.string(epoch: closedAt),
                responseIds: listed.map(\.responseId),
                // An attempt on an earlier version is handed in on that version, as it was answered.
                force: true,
                startedAt: attempt.startedAt,
                answers: listed
            )
            // Anything but a new submission (answers arrived between the reads, another process was first) leaves
            // the attempt to the next pass or to the vault's own hand-in.
            if case .created = try await storage.submit(request, user: open.user, via: .closing, now: now) { count += 1 }
        }
        return count
    }
}

extension ClosingHandIn {
    /// A student's own hand-in (`via` how it came), which they made at `madeAt`: when the server had handed that
    /// attempt in at closing after `madeAt`, the student's takes its place (`ResponseStore.replaceClosingHandIn`). Either
    /// way it is late only when made after closing (`madeAt`, else when it arrived): a hand-in made before closing is
    /// on time whenever it arrives, with every answer it lists.
    /// One rule for a vault's sync, a classroom's push and a hand-in file (issue 67). Anything but a new hand-in after
    /// a replacement hands the attempt in at closing again, as it was: it is never left open.
    public func submitOwn(
        _ submission: SubmissionRequest,
        user: String,
        via: SubmissionChannel,
        madeAt: Date?,
        now: Date
    ) async throws
        -> SubmissionOutcome
    {
        // Every hand-in goes in as it is first; only one that meets a closing hand-in (a repeat of it) tries the
        // replacement, so the usual hand-in costs no extra transaction.
        let first = try await storage.submit(submission, user: user, via: via, now: now, madeAt: madeAt)
        guard let madeAt, case .repeated(let existing) = first, existing.via == .closing,
            let carried = try await storage.replaceClosingHandIn(
                attemptID: submission.attemptId,
                madeAt: madeAt,
                listed: SubmissionFacts.lookedUpIDs(submission),
                now: now
            )
        else { return first }
        let outcome: SubmissionOutcome
        do {
            outcome = try await storage.submit(submission, user: user, via: via, now: now, madeAt: madeAt)
        } catch {
            try await restore(submission, grades: carried, now: now)
            throw error
        }
        guard case .created = outcome else {
            try await restore(submission, grades: carried, now: now)
            return outcome
        }
        try await grade(submission.attemptId, carried)
        return outcome
    }

    /// The attempt handed in at closing again, with the teacher's points it had.
    private func restore(_ submission: SubmissionRequest, grades: [String: Double], now: Date) async throws {
        try await handIn(assessmentID: submission.assessmentId, now: now)
        try await grade(submission.attemptId, grades)
    }

    private func grade(_ attemptID: String, _ grades: [String: Double]) async throws {
        for (question, points) in grades.sorted(by: { $0.key < $1.key }) {
            _ = try await storage.grade(attemptID: attemptID, questionID: question, points: points)
        }
    }

    /// When a student says they handed in (their vault's signed `submitted_at`), where that is believable by the
    /// server's clock rules (`TimeAuthority.clockTolerance`): not after now by more than the tolerance, and the vault
    /// saw its clock move back by no more than it. Nil when it is not.
    public static func believableHandInTime(_ submission: SubmissionRequest, now: Date) -> Date? {
        guard let said = Timestamp.date(submission.submittedAt),
            said.timeIntervalSince(now) <= TimeAuthority.clockTolerance,
            Double(submission.clockMovedBackMs ?? 0) <= TimeAuthority.clockTolerance * 1000
        else { return nil }
        return min(said, now)
    }

    /// When a classroom says it held a hand-in (issue 69), as the district takes it: never after now (its own
    /// receipt), and never before the student's own signed hand-in or start beyond the clock tolerance. A classroom
    /// cannot move a hand-in earlier than the student made it: such a claim is not believed, and the hand-in counts
    /// as reaching the district now (late, if the exam has closed).
    public static func heldTime(_ claimed: Date?, submission: SubmissionRequest, now: Date) -> Date? {
        guard let claimed else { return nil }
        let floors = [submission.submittedAt, submission.startedAt].compactMap { $0.flatMap(Timestamp.date) }
        if floors.contains(where: { claimed < $0.addingTimeInterval(-TimeAuthority.clockTolerance) }) { return now }
        return min(claimed, now)
    }
}

/// Runs `ClosingHandIn` for exams whose closing time (set for later with `close --at`) has come: at start for
/// every closed assessment, then every `interval` for those that closed since the last pass.
public struct ClosingSweeper: Service {
    let closing: ClosingHandIn
    let interval: Duration
    let now: @Sendable () -> Date
    let logger: Logger

    public init(storage: any ServerStorage, interval: Duration, now: @escaping @Sendable () -> Date, logger: Logger) {
        closing = ClosingHandIn(storage: storage)
        self.interval = interval
        self.now = now
        self.logger = logger
    }

    /// Ends quietly at graceful shutdown (a service that throws would fail the whole server's exit).
    public func run() async throws {
        try? await cancelWhenGracefulShutdown { await passes() }
    }

    private func passes() async {
        var since = -Double.infinity
        while !Task.isCancelled {
            let until = now().timeIntervalSince1970
            do {
                // Only the closing times (not the Assessments page's counts): this runs every pass, in every process.
                for (id, closedAt) in try await closing.storage.closings().sorted(by: { $0.key < $1.key }) where closedAt > since && closedAt <= until
                {
                    let count = try await closing.handIn(assessmentID: id, now: Date(timeIntervalSince1970: until))
                    if count > 0 { logger.info("handed in open attempts at closing", metadata: ["assessment": "\(id)", "attempts": "\(count)"]) }
                }
                since = until
            } catch is CancellationError {
                return
            } catch {
                // The database may be away for a moment: the next pass covers the same closings again.
                logger.warning("closing hand-in pass failed", metadata: ["error": "\(String(describing: type(of: error)))"])
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }
}

import Foundation
import VaultAPI

/// The per-item rules of API v1, as pure functions over what the store already holds.
public enum ResponseRules {
    /// What an item that cannot be stored gets when saying why would tell the caller something about other users
    /// (an id another user already holds).
    public static func invalid(_ item: ResponseItem) -> ItemResult {
        ItemResult(id: item.id, status: .rejected, message: "This answer is not valid for this assessment.")
    }

    /// A device clock this far ahead of the server's marks an answer (flagged for the teacher, never refused).
    public static let futureTolerance: TimeInterval = 5 * 60

    public static func answeredInFuture(answeredAtMilliseconds: Int64, receivedAt: TimeInterval) -> Bool {
        Double(answeredAtMilliseconds) / 1000 > receivedAt + futureTolerance
    }

    /// When the assessment closes, in seconds since 1970: the earlier of its document's `not_after` and the teacher's
    /// `vault-server close`; nil when neither is set.
    public static func closesAt(_ assessment: Assessment, closedAt: Double?) -> Double? {
        closesAt(notAfter: assessment.notAfter, closedAt: closedAt)
    }

    /// How long after a hand-in reached the server an answer given before it on another device may still change it:
    /// the week a vault keeps following a handed-in attempt (docs/sync-protocol.md, "After a hand-in").
    public static let handedInWindow: TimeInterval = 7 * 86_400

    /// Whether a handed-in attempt still takes an answer given before its hand-in (from another device, arriving
    /// late): only within `handedInWindow` of the hand-in's arrival, and never once the exam is closed or its
    /// results are out (released, or shown at submission): a backdated answer would otherwise change a score the
    /// student has already seen.
    public static func takesEarlierAnswers(_ document: Assessment, head: AssessmentHead, handedInReceivedAt: Double?, now: Date) -> Bool {
        guard let received = handedInReceivedAt, now.timeIntervalSince1970 <= received + handedInWindow else { return false }
        if head.released || document.results == .onSubmit { return false }
        if let closes = closesAt(document, closedAt: head.closedAt), closes <= now.timeIntervalSince1970 { return false }
        return true
    }

    /// The same from the document's `not_after` text (a catalog entry's).
    public static func closesAt(notAfter: String?, closedAt: Double?) -> Double? {
        [notAfter.flatMap(Timestamp.milliseconds).map { Double($0) / 1000 }, closedAt].compactMap { $0 }.min()
    }

    /// A sentence when an answer of a new attempt comes after closing, else nil. An attempt whose answers were
    /// given before closing (a student who was offline) is still taken: it is never lost, and its submission is
    /// flagged for the teacher.
    public static func closedForNewAttempts(_ assessment: Assessment, closedAt: Double?, answeredAt: String, now: Date) -> String? {
        guard let closes = closesAt(assessment, closedAt: closedAt), closes < now.timeIntervalSince1970 else { return nil }
        if let answered = Timestamp.milliseconds(answeredAt), Double(answered) / 1000 <= closes { return nil }
        return closedSentence(closes)
    }

    /// What a student reads when the exam closed before their attempt started.
    public static func closedSentence(_ closes: Double) -> String {
        "This exam closed on \(Timestamp.readable(epoch: closes)); no new attempts are accepted."
    }

    /// Decides accepted / conflict / rejected for an item whose id is new and whose assessment exists.
    /// Supersede is decided afterwards, against the stored answers of the same attempt and question.
    public static func judge(_ item: ResponseItem, answeredVersion: Assessment?, current: Assessment) -> ItemResult {
        judge(
            item,
            answeredQuestion: answeredVersion?.question(item.questionId),
            currentVersion: current.version,
            currentQuestion: current.question(item.questionId)
        )
    }

    /// The same rules over the questions themselves (a batch looks them up in an index, not by scanning).
    public static func judge(
        _ item: ResponseItem,
        answeredQuestion: Question?,
        currentVersion: Int?,
        currentQuestion: @autoclosure () -> Question?
    )
        -> ItemResult
    {
        guard let question = answeredQuestion else {
            return ItemResult(
                id: item.id,
                status: .rejected,
                message: "Question \(item.questionId) is not part of version \(item.assessmentVersion)."
            )
        }
        guard question.hash == item.questionHash else {
            return ItemResult(id: item.id, status: .rejected, message: "The question hash does not match version \(item.assessmentVersion).")
        }
        if let problem = AnswerRules.problem(with: item.answer, for: question) {
            return ItemResult(id: item.id, status: .rejected, message: problem)
        }
        guard Timestamp.milliseconds(item.answeredAt) != nil else {
            return ItemResult(id: item.id, status: .rejected, message: "answered_at must be an RFC 3339 timestamp.")
        }
        if item.assessmentVersion != currentVersion, !item.force {
            let now = currentQuestion()
            if now?.hash != item.questionHash {
                return ItemResult(
                    id: item.id,
                    status: .conflict,
                    currentVersion: currentVersion,
                    message: now == nil ? "The question was removed in the new version." : "The question changed in the new version."
                )
            }
        }
        return ItemResult(id: item.id, status: .accepted, currentVersion: currentVersion)
    }
}

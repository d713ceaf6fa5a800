import Foundation
import VaultAPI

/// Regrading: hand-ins scored by an earlier version's keys, scored again by the current version's (a corrected key,
/// another accepted answer, changed points), as Moodle regrades. An attempt stays on the version it was answered on;
/// only what scores it changes. The teacher's own points stand over any automatic ones, so they never change. An
/// attempt whose version has other questions than the current one (added, removed, or of another type) is not
/// regraded: its answers would be scored against questions the student never saw.
public enum RegradePlan {
    /// One hand-in whose score the regrade changes.
    public struct Change: Sendable, Equatable {
        public var user: String
        public var attemptID: String
        /// The version it was answered on, and the version that scores it now.
        public var version: Int
        public var old: (score: Double, maxScore: Double)
        public var new: (score: Double, maxScore: Double)
        /// What the store keeps beside it after the regrade.
        public var totals: Scoring.Totals

        public static func == (lhs: Change, rhs: Change) -> Bool {
            lhs.user == rhs.user && lhs.attemptID == rhs.attemptID && lhs.version == rhs.version && lhs.old == rhs.old && lhs.new == rhs.new
                && lhs.totals == rhs.totals
        }
    }

    /// A hand-in of an earlier version that cannot be regraded, and why.
    public struct Skipped: Sendable, Equatable {
        public var user: String
        public var attemptID: String
        public var version: Int
        public var reason: String
    }

    public struct Outcome: Sendable, Equatable {
        public var currentVersion: Int
        /// Hand-ins whose score changes, by student.
        public var changes: [Change]
        /// Hand-ins of earlier versions whose score stays the same (they are scored by the current keys all the same).
        public var unchanged: [String]
        public var skipped: [Skipped]
    }

    /// What regrading every hand-in scored by an earlier version would do.
    public static func plan(_ inputs: [ResultInput], current: Assessment, currentVersion: Int) -> Outcome {
        var outcome = Outcome(currentVersion: currentVersion, changes: [], unchanged: [], skipped: [])
        let shape = questionShape(current)
        for input in inputs.sorted(by: { ($0.record.user, $0.record.attemptID) < ($1.record.user, $1.record.attemptID) })
        where input.record.scoringKey.version < currentVersion {
            let record = input.record
            guard questionShape(input.document) == shape else {
                outcome.skipped.append(
                    Skipped(
                        user: record.user,
                        attemptID: record.attemptID,
                        version: record.assessmentVersion,
                        reason: "its version has other questions than the current one"
                    )
                )
                continue
            }
            let before = Scoring.totals(for: record, document: input.document, answers: input.answers, grades: input.grades)
            let after = Scoring.totals(for: record, document: current, answers: input.answers, grades: input.grades)
            let kept = Scoring.totals(document: current, answers: input.answers, grades: input.grades)
            if before.score == after.score, before.maxScore == after.maxScore {
                outcome.unchanged.append(record.attemptID)
                continue
            }
            outcome.changes.append(
                Change(
                    user: record.user,
                    attemptID: record.attemptID,
                    version: record.assessmentVersion,
                    old: (before.score, before.maxScore),
                    new: (after.score, after.maxScore),
                    totals: kept
                )
            )
        }
        return outcome
    }

    /// The questions by id and type, in order: what must stay the same for answers to be scored by other keys.
    static func questionShape(_ document: Assessment) -> [String] {
        document.questions.map { "\($0.id)\u{0}\($0.type.rawValue)" }
    }
}

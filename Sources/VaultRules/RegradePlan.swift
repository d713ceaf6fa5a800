import Foundation
import VaultAPI

/// Regrading: hand-ins scored by an earlier version's keys, scored again by the current version's (a corrected key,
/// another accepted answer, changed points), as Moodle regrades. An attempt stays on the version it was answered on;
/// only what scores it changes. The teacher's own points stand over any automatic ones, so they never change. Each
/// student is regraded by their own questions (a pool's draw): a hand-in whose drawn questions the current version
/// no longer has, or has as another type, is not regraded (its answers would be scored against questions the student
/// never saw); questions added to the pool change nobody's.
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

    /// What regrading every hand-in scored by an earlier version would do. Each hand-in is regraded by what its
    /// student drew (`ResultInput.document` is the version as they were asked it): the current version's questions
    /// of those ids, through the same draw (their template instance included). A pool that gained questions changes
    /// nobody's; a question a student drew that the current version no longer has (or has as another type) leaves
    /// that hand-in as it was, said in `skipped`.
    public static func plan(_ inputs: [ResultInput], current: Assessment, currentVersion: Int) -> Outcome {
        var outcome = Outcome(currentVersion: currentVersion, changes: [], unchanged: [], skipped: [])
        for input in inputs.sorted(by: { ($0.record.user, $0.record.attemptID) < ($1.record.user, $1.record.attemptID) })
        where input.record.scoringKey.version < currentVersion {
            let record = input.record
            let asked = DrawPlan.asked(current, draw: input.draw)
            let missing = missingQuestions(drawn: input.document, current: asked)
            guard missing.isEmpty else {
                outcome.skipped.append(
                    Skipped(
                        user: record.user,
                        attemptID: record.attemptID,
                        version: record.assessmentVersion,
                        reason: missing.count == 1
                            ? "question \(missing[0]) is not in the current version as this student was asked it; the score stays as it was"
                            : "questions \(missing.joined(separator: ", ")) are not in the current version as this student was asked them; the score stays as it was"
                    )
                )
                continue
            }
            let before = Scoring.totals(for: record, document: input.document, answers: input.answers, grades: input.grades)
            let after = Scoring.totals(for: record, document: asked, answers: input.answers, grades: input.grades)
            let kept = Scoring.totals(document: asked, answers: input.answers, grades: input.grades)
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

    /// The ids of the questions where what a student was asked (`drawn`) and the current version as their draw asks
    /// it (`current`) differ: one lacks it, or has it as another type. Answers cannot be scored by other keys there
    /// (a question added to a document with no draw would be one the student never saw).
    static func missingQuestions(drawn: Assessment, current: Assessment) -> [String] {
        let was = Dictionary(drawn.questions.map { ($0.id, $0.type) }, uniquingKeysWith: { first, _ in first })
        let now = Dictionary(current.questions.map { ($0.id, $0.type) }, uniquingKeysWith: { first, _ in first })
        return Set(was.keys).union(now.keys).filter { was[$0] != now[$0] }.sorted()
    }

}

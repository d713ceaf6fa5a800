import Foundation
import VaultAPI

/// The teacher's points for one question of a submitted attempt: allowed when the submitted version (its source, as
/// the teacher published it) has that question. The stores read the source and write the grade; the rule is here.
public enum GradePlan {
    /// Whether the grade may be stored: the source decodes and holds the question.
    public static func allows(questionID: String, source: Data?) -> Bool {
        guard let source, let document = try? JSONDecoder().decode(Assessment.self, from: source) else { return false }
        return document.question(questionID) != nil
    }

    /// Whether `points` may be stored for the question: a number from 0 to the question's points (what a desk would
    /// take; a classroom's district is held to it too).
    public static func allows(points: Double, questionID: String, source: Data?) -> Bool {
        guard points.isFinite, points >= 0, let source, let document = try? JSONDecoder().decode(Assessment.self, from: source),
            let question = document.question(questionID)
        else { return false }
        return points <= Scoring.maxPoints(question)
    }
}

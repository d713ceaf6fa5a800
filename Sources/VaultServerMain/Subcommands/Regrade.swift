import ArgumentParser
import Foundation
import VaultAPI
import VaultRules
import VaultServer
import VaultTerminal

/// A corrected key: the hand-ins of earlier versions scored again by the current version's keys and points, each
/// student whose score changes listed first (`--dry-run`), then applied with a line in the assessment's history.
struct Regrade: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Score the hand-ins of earlier versions again with the current version's answer key and points.",
        discussion: """
            Lists each student whose score changes (old and new). The teacher's own points are never changed; an attempt \
            stays on the version it was answered on. --dry-run changes nothing.
            """
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id.") var id: String
    @Flag(help: "Only list what would change.") var dryRun = false
    @Flag(help: "The outcome as JSON.") var json = false

    func run() async throws {
        let outcome: RegradePlan.Outcome
        do {
            outcome = try await options.desk().regrade(id, dryRun: dryRun)
        } catch let problem as TeacherDesk.Problem {
            throw ValidationError(problem.description)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(RegradeReport(outcome, applied: !dryRun)), as: UTF8.self))
            return
        }
        let count = outcome.changes.count
        let scores = "\(count) \(count == 1 ? "score" : "scores")"
        TerminalText.line(
            dryRun
                ? "Regrading \(id) with the answer key of version \(outcome.currentVersion) would change \(scores):"
                : "Regraded \(id) with the answer key of version \(outcome.currentVersion): \(scores) changed."
        )
        for change in outcome.changes {
            TerminalText.line(
                "  \(change.user) (version \(change.version)): \(AttemptResult.pointsText(change.old.score)) of \(AttemptResult.pointsText(change.old.maxScore)) → \(AttemptResult.pointsText(change.new.score)) of \(AttemptResult.pointsText(change.new.maxScore))"
            )
        }
        if !outcome.unchanged.isEmpty {
            TerminalText.line("\(outcome.unchanged.count) other hand-in\(outcome.unchanged.count == 1 ? " keeps its" : "s keep their") score.")
        }
        for skipped in outcome.skipped {
            TerminalText.line("  Not regraded: \(skipped.user) (version \(skipped.version)): \(skipped.reason).")
        }
        if dryRun, count > 0 { TerminalText.line("Nothing was changed. Run it again without --dry-run to apply it.") }
        if !dryRun, count > 0 { TerminalText.line("Students see their new score at their next sync.") }
    }
}

/// `regrade --json`.
struct RegradeReport: Encodable {
    struct Change: Encodable {
        var user: String
        var attemptId: String
        var version: Int
        var oldScore: Double
        var oldMaxScore: Double
        var newScore: Double
        var newMaxScore: Double
        enum CodingKeys: String, CodingKey {
            case user, version
            case attemptId = "attempt_id"
            case oldScore = "old_score"
            case oldMaxScore = "old_max_score"
            case newScore = "new_score"
            case newMaxScore = "new_max_score"
        }
    }
    struct Skipped: Encodable {
        var user: String
        var attemptId: String
        var version: Int
        var reason: String
        enum CodingKeys: String, CodingKey {
            case user, version, reason
            case attemptId = "attempt_id"
        }
    }
    var currentVersion: Int
    var applied: Bool
    var changes: [Change]
    var unchanged: Int
    var skipped: [Skipped]
    enum CodingKeys: String, CodingKey {
        case applied, changes, unchanged, skipped
        case currentVersion = "current_version"
    }

    init(_ outcome: RegradePlan.Outcome, applied: Bool) {
        currentVersion = outcome.currentVersion
        self.applied = applied
        changes = outcome.changes.map {
            Change(
                user: $0.user,
                attemptId: $0.attemptID,
                version: $0.version,
                oldScore: $0.old.score,
                oldMaxScore: $0.old.maxScore,
                newScore: $0.new.score,
                newMaxScore: $0.new.maxScore
            )
        }
        unchanged = outcome.unchanged.count
        skipped = outcome.skipped.map { Skipped(user: $0.user, attemptId: $0.attemptID, version: $0.version, reason: $0.reason) }
    }
}

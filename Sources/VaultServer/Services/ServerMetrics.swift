import CoreMetrics
import Foundation
import VaultAPI
import VaultRules

/// What the server counts for a school's admin and a district's monitoring, through swift-metrics (a Prometheus
/// registry when `vault-server serve` runs; nothing when no backend is bootstrapped, as in the tests in process).
/// Labels are bounded words (outcomes, statuses) and assessment ids, never a user name, a token, an answer or an
/// address.
public enum ServerMetrics {
    /// The answers of a batch, by what the server did with each.
    static func answers(_ results: [ItemResult]) {
        var counts: [ItemStatus: Int] = [:]
        for result in results { counts[result.status, default: 0] += 1 }
        for (status, count) in counts {
            Counter(label: "vault_answers_total", dimensions: [("outcome", status.rawValue)]).increment(by: Int64(count))
        }
    }

    /// A hand-in, by its outcome (a receipt for created, repeated and amended).
    static func submission(_ outcome: SubmissionOutcome) {
        Counter(label: "vault_submissions_total", dimensions: [("outcome", outcome.word)]).increment()
    }

    /// A download of an assessment's current version (304s included).
    static func download(assessmentID: String) {
        Counter(label: "vault_downloads_total", dimensions: [("assessment", assessmentID)]).increment()
    }

    /// A hand-in or batch told to come back later (429) or that the database is away (503), by the error's code.
    static func refused(status: Int, code: APIErrorCode) {
        Counter(label: "vault_retry_later_total", dimensions: [("status", "\(status)"), ("code", code.rawValue)]).increment()
    }

    /// A request the store failed, by kind: the SQLSTATE's class (its first two characters, "40" a serialization
    /// failure, "53" insufficient resources, ...), or unavailable, contention, damaged. Never the data.
    static func databaseError(_ error: StorageError) {
        let kind =
            switch error {
            case .refused(let state): "sqlstate_" + state.prefix(2)
            case .unavailable: "unavailable"
            case .tooMuchContention: "contention"
            case .damaged: "damaged"
            case .userExists, .badLocation, .notPermitted: "other"
            }
        Counter(label: "vault_database_errors_total", dimensions: [("kind", kind)]).increment()
    }

    /// Vaults' own counts, summed over every vault that reported (one counter per name, no other label).
    static func clientStats(_ counts: [String: Int]) {
        for (name, amount) in counts where amount > 0 {
            Counter(label: "vault_client_" + name + "_total").increment(by: Int64(amount))
        }
    }

    /// When this process started and what built it: a gauge of the start time, labelled with the version.
    public static func started(version: String, at date: Date) {
        Gauge(label: "vault_server_start_time_seconds", dimensions: [("version", version)]).record(date.timeIntervalSince1970)
    }
}

extension SubmissionOutcome {
    /// One word per outcome, for a metric's label.
    var word: String {
        switch self {
        case .created: "created"
        case .repeated: "repeated"
        case .amended: "amended"
        case .outdated: "outdated"
        case .gone: "gone"
        case .missingResponses: "missing_responses"
        case .answerSetDiffers: "answer_set_differs"
        case .noAttemptsLeft: "no_attempts_left"
        case .closed: "closed"
        case .forbidden: "forbidden"
        case .rejected: "rejected"
        }
    }
}

import Testing
import VaultTestSupport

/// The stores a process test runs its servers on: a data folder (SQLite), and a database on this run's throwaway
/// PostgreSQL cluster where the run has one (`PostgresCluster.runsHere`).
enum Store: String, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }

    static var here: [Store] { PostgresCluster.runsHere ? [.sqlite, .postgres] : [.sqlite] }
}

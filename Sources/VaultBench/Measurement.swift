import Foundation
import VaultCore
import VaultModel

/// Timing helpers: wall-clock samples and their percentiles.
struct Samples {
    var seconds: [Double] = []

    mutating func time<T>(_ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        let result = try body()
        seconds.append((ContinuousClock.now - start).inSeconds)
        return result
    }

    func percentile(_ p: Double) -> Double { Percentile.of(sorted: seconds.sorted(), p) }

    var median: Double { percentile(0.5) }
}

/// One row of the printed table.
struct BenchRow {
    let workload: String
    let ours: Double
    let baseline: Double
    let unit: String
    let goal: Goal

    /// What a row must meet. Every ratio reads the same way round: how much more the product costs than its
    /// baseline (ours / baseline for times and sizes, baseline / ours for rates), lower is better.
    enum Goal {
        case ratioAtMost(Double)
        /// A ratio bound and an absolute bound on our own figure (in the row's unit).
        case ratioAndValueAtMost(Double, Double)
        /// Reported, not judged (a scale figure or a dominant cost named in words).
        case note(String)
    }

    init(workload: String, ours: Double, baseline: Double, unit: String, goal: Goal) {
        self.workload = workload
        self.ours = ours
        self.baseline = baseline
        self.unit = unit
        self.goal = goal
    }

    /// For rows whose goal is a sentence.
    init(workload: String, ours: Double, baseline: Double, unit: String, goal: String) {
        self.init(workload: workload, ours: ours, baseline: baseline, unit: unit, goal: .note(goal))
    }

    var ratio: Double {
        guard ours > 0, baseline > 0 else { return 0 }
        return unit == "/s" ? baseline / ours : ours / baseline
    }

    var goalText: String {
        switch goal {
        case .ratioAtMost(let limit): String(format: "ratio <= %.2f", limit)
        case .ratioAndValueAtMost(let limit, let value): String(format: "ratio <= %.2f, ours <= %@", limit, format(value, unit))
        case .note(let text): text
        }
    }

    var verdict: String {
        switch goal {
        case .ratioAtMost(let limit): ratio <= limit ? "met" : "NOT MET"
        case .ratioAndValueAtMost(let limit, let value): ratio <= limit && ours <= value ? "met" : "NOT MET"
        case .note: "-"
        }
    }
}

func format(_ value: Double, _ unit: String) -> String {
    switch unit {
    case "s":
        value >= 1 ? String(format: "%.2f s", value) : value >= 1e-3 ? String(format: "%.2f ms", value * 1e3) : String(format: "%.1f us", value * 1e6)
    default: String(format: "%.0f %@", value, unit)
    }
}

func printTable(_ rows: [BenchRow]) {
    let header = ["workload", "ours", "baseline (same run)", "ratio (lower is better)", "goal", "met"]
    let cells = rows.map {
        [$0.workload, format($0.ours, $0.unit), format($0.baseline, $0.unit), String(format: "%.2f", $0.ratio), $0.goalText, $0.verdict]
    }
    let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
    func line(_ row: [String]) -> String {
        row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
    }
    print(line(header))
    print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
    for row in cells { print(line(row)) }
}

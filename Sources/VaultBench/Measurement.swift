import Foundation
import VaultCore

/// Timing helpers: wall-clock samples and their percentiles.
struct Samples {
    var seconds: [Double] = []

    mutating func time<T>(_ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        let result = try body()
        seconds.append((ContinuousClock.now - start).inSeconds)
        return result
    }

    func percentile(_ p: Double) -> Double {
        guard !seconds.isEmpty else { return 0 }
        let sorted = seconds.sorted()
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))
        return sorted[index]
    }

    var median: Double { percentile(0.5) }
}

/// One row of the printed table.
struct BenchRow {
    let workload: String
    let ours: Double
    let baseline: Double
    let unit: String
    let goal: String

    var ratio: Double { baseline > 0 ? ours / baseline : 0 }
}

func format(_ value: Double, _ unit: String) -> String {
    switch unit {
    case "s":
        value >= 1 ? String(format: "%.2f s", value) : value >= 1e-3 ? String(format: "%.2f ms", value * 1e3) : String(format: "%.1f us", value * 1e6)
    default: String(format: "%.0f %@", value, unit)
    }
}

func printTable(_ rows: [BenchRow]) {
    let header = ["workload", "ours", "baseline (same run)", "ratio", "goal"]
    let cells = rows.map { [$0.workload, format($0.ours, $0.unit), format($0.baseline, $0.unit), String(format: "%.2f", $0.ratio), $0.goal] }
    let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
    func line(_ row: [String]) -> String {
        row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
    }
    print(line(header))
    print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
    for row in cells { print(line(row)) }
}

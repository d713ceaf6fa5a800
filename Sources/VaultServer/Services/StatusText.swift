import Foundation
import VaultAPI

/// A server's status in lines a person reads (`vault-server status`): uptime, the store, the last hour with a small
/// chart of requests and answers per minute, the refusals, the slowest routes, and the vaults' own figures.
public enum StatusText {
    /// Eight heights of a bar, for a chart of one character a minute.
    static let bars: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// The values as a line of bars, the largest full height (an empty minute the lowest bar).
    public static func sparkline(_ values: [Int]) -> String {
        let top = max(1, values.max() ?? 1)
        return String(values.map { bars[min(bars.count - 1, $0 * (bars.count - 1) / top)] })
    }

    public static func lines(_ status: ServerStatus) -> [String] {
        let hour = status.lastHour
        let requests = hour.map(\.requests)
        let answers = hour.map(\.answers)
        var lines = [
            "vault-server \(status.version), up \(duration(status.uptimeSeconds)) (since \(Timestamp.readable(status.startedAt)))",
            "Store: \(status.store.kind), \(status.store.bytes.map(size) ?? "size unknown"), \(status.store.state == "ok" ? "answering" : "NOT answering")",
            "Last hour: \(requests.reduce(0, +)) requests, \(answers.reduce(0, +)) answers taken; "
                + "\(hour.map(\.tooMany).reduce(0, +)) told to wait (429), \(hour.map(\.unavailable).reduce(0, +)) database away (503), "
                + "\(hour.map(\.failed).reduce(0, +)) other failures (5xx)",
            "Requests a minute  \(sparkline(requests))  most \(requests.max() ?? 0)",
            "Answers a minute   \(sparkline(answers))  most \(answers.max() ?? 0)",
        ]
        if !status.slowest.isEmpty {
            lines.append("Slowest routes (mean, longest, requests since the start):")
            for route in status.slowest {
                lines.append(
                    "  \(route.route)  \(String(format: "%.1f", route.meanMilliseconds)) ms, \(String(format: "%.1f", route.maxMilliseconds)) ms, \(route.requests)"
                )
            }
        }
        if !status.clientStats.isEmpty {
            let stats = status.clientStats
            func n(_ name: String) -> Int { stats[name] ?? 0 }
            lines.append(
                "Vaults' own figures: \(n("attempts_submitted_offline")) of \(n("attempts_submitted")) attempts submitted offline; "
                    + "syncs \(n("sync_successes")) succeeded, \(n("sync_failures")) failed; \(n("conflicts")) conflicts; "
                    + "cache \(n("cache_hits")) hits, \(n("cache_misses")) misses; \(n("evictions")) evictions"
            )
        }
        return lines
    }

    static func duration(_ seconds: Int) -> String {
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min" }
        if seconds < 86_400 { return "\(seconds / 3600) h \(seconds % 3600 / 60) min" }
        return "\(seconds / 86_400) days \(seconds % 86_400 / 3600) h"
    }

    static func size(_ bytes: Int) -> String {
        if bytes < 1_000_000 { return "\(bytes / 1000) kB" }
        if bytes < 1_000_000_000 { return String(format: "%.1f MB", Double(bytes) / 1e6) }
        return String(format: "%.2f GB", Double(bytes) / 1e9)
    }
}

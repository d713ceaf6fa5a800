import Foundation
import Synchronization
import VaultAPI

/// What a running server has been doing, kept in memory for `vault-server status` and the desk's server page (issue
/// 59): the last hour minute by minute (requests, answers taken, 429s, 503s, other 5xx) and every route template's
/// requests and durations since the start. Bounded: 60 minutes and one entry per route template. One per server
/// (made by `buildRouter`), stamped by the server's own clock (`ServerConfiguration.now`), as every time it reads.
public final class ServerActivity: Sendable {

    private struct RouteFigures {
        var requests = 0
        var totalMilliseconds = 0.0
        var maxMilliseconds = 0.0
    }

    private struct State {
        /// By minute since 1970; at most the last 60.
        var minutes: [Int: ServerStatus.Minute] = [:]
        var routes: [String: RouteFigures] = [:]
        var clientStats: [String: Int] = [:]
    }

    private let state = Mutex(State())
    public let startedAt: Date

    public init(startedAt: Date) { self.startedAt = startedAt }

    /// Route templates kept at most (a router has a few dozen; anything past this is counted as "other").
    static let maxRoutes = 200

    private func minute(_ date: Date) -> Int { Int(saturating: date.timeIntervalSince1970 / 60) }

    /// A minute with nothing counted yet.
    private func empty(_ key: Int) -> ServerStatus.Minute {
        ServerStatus.Minute(start: Timestamp.string(Date(timeIntervalSince1970: Double(key) * 60)))
    }

    /// One request answered: its route template (nil when no route matched), status and duration.
    public func request(route: String?, status: Int, milliseconds: Double, at date: Date) {
        let key = minute(date)
        state.withLock { state in
            var bucket = state.minutes[key] ?? empty(key)
            bucket.requests += 1
            switch status {
            case 429: bucket.tooMany += 1
            case 503: bucket.unavailable += 1
            case 500...599: bucket.failed += 1
            default: break
            }
            state.minutes[key] = bucket
            if state.minutes.count > 60 { state.minutes = state.minutes.filter { $0.key > key - 60 } }
            var name = route ?? "unmatched"
            if state.routes[name] == nil, state.routes.count >= Self.maxRoutes { name = "other" }
            var figures = state.routes[name] ?? RouteFigures()
            figures.requests += 1
            figures.totalMilliseconds += milliseconds
            figures.maxMilliseconds = max(figures.maxMilliseconds, milliseconds)
            state.routes[name] = figures
        }
    }

    /// Answers a batch took (accepted), in this minute.
    public func answers(_ count: Int, at date: Date) {
        guard count > 0 else { return }
        let key = minute(date)
        state.withLock { state in
            var bucket = state.minutes[key] ?? empty(key)
            bucket.answers += count
            state.minutes[key] = bucket
        }
    }

    /// A vault's own counts, summed.
    public func clientStats(_ counts: [String: Int]) {
        state.withLock { state in
            // Held at Int's largest: a sum of many reports never traps the server.
            for (name, amount) in counts {
                let sum = state.clientStats[name, default: 0].addingReportingOverflow(max(0, amount))
                state.clientStats[name] = sum.overflow ? .max : sum.partialValue
            }
        }
    }

    /// The status as `vault-server status` shows it: the last 60 minutes (empty ones with zeros), the five slowest
    /// routes by mean duration.
    public func status(version: String, store: ServerStatus.Store, now: Date) -> ServerStatus {
        let current = minute(now)
        return state.withLock { state in
            let hour = ((current - 59)...current).map { key in
                state.minutes[key] ?? empty(key)
            }
            let slowest = state.routes.map { route, figures in
                ServerStatus.Route(
                    route: route,
                    requests: figures.requests,
                    meanMilliseconds: figures.totalMilliseconds / Double(max(1, figures.requests)),
                    maxMilliseconds: figures.maxMilliseconds
                )
            }.sorted { ($0.meanMilliseconds, $0.route) > ($1.meanMilliseconds, $1.route) }.prefix(5)
            return ServerStatus(
                version: version,
                startedAt: Timestamp.string(startedAt),
                uptimeSeconds: max(0, Int(saturating: now.timeIntervalSince(startedAt))),
                store: store,
                lastHour: hour,
                slowest: Array(slowest),
                clientStats: state.clientStats
            )
        }
    }
}

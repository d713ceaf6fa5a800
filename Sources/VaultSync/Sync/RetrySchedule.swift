import Foundation

/// When to try a failed upload again: immediately, then 5 s, 30 s, 5 min, 30 min (and 30 min after that),
/// each with ±20 % jitter so many students coming back online do not hit the server at once.
public struct RetrySchedule: Sendable {
    public var delays: [Duration]
    public var jitter: Double

    public init(delays: [Duration] = [.zero, .seconds(5), .seconds(30), .seconds(300), .seconds(1_800)], jitter: Double = 0.2) {
        self.delays = delays
        self.jitter = jitter
    }

    /// The wait after the `failures`-th failure (1-based). A server's Retry-After is honoured when longer.
    public func delay(afterFailures failures: Int, retryAfter: Duration? = nil, random: inout some RandomNumberGenerator) -> Duration {
        let base = delays[min(max(failures - 1, 0), delays.count - 1)]
        var wait = base
        if base > .zero, jitter > 0 {
            let factor = Double.random(in: (1 - jitter)...(1 + jitter), using: &random)
            wait = .milliseconds(Int64(Double(base.components.seconds * 1000) * factor))
        }
        if let retryAfter, retryAfter > wait { wait = retryAfter }
        return wait
    }
}

import Foundation
import VaultAPI

/// When to try a failed upload again: after a second, then twice as long each time (2 s, 4 s, 8 s, …) up to 30 min,
/// each with ±20 % jitter so many students coming back online do not hit the server at once. A server that was back
/// after two seconds costs a student two seconds, not the thirty of a fixed 0 / 5 / 30 s schedule. A server's
/// `Retry-After` always wins: it knows when it can take the request.
public struct RetrySchedule: Sendable {
    public var first: Duration
    public var maximum: Duration
    public var jitter: Double

    public init(first: Duration = .seconds(1), maximum: Duration = .seconds(1_800), jitter: Double = 0.2) {
        self.first = first
        self.maximum = maximum
        self.jitter = jitter
    }

    /// The wait after the `failures`-th failure (1-based), or exactly the server's Retry-After when it gave one.
    public func delay(afterFailures failures: Int, retryAfter: Duration? = nil, random: inout some RandomNumberGenerator) -> Duration {
        if let retryAfter { return max(retryAfter, .zero) }
        let doublings = min(max(failures - 1, 0), 40)
        let firstMilliseconds = Double(first.components.seconds) * 1000 + Double(first.components.attoseconds) / 1e15
        let maximumMilliseconds = Double(maximum.components.seconds) * 1000
        let base = min(firstMilliseconds * pow(2, Double(doublings)), maximumMilliseconds)
        let factor = jitter > 0 ? Double.random(in: (1 - jitter)...(1 + jitter), using: &random) : 1
        return .milliseconds(Int64(Int(saturating: (base * factor).rounded())))
    }
}

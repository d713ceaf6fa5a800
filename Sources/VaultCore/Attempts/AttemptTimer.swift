import Foundation

/// Active time on a timed attempt, measured with a monotonic clock so that moving the wall clock back, or closing
/// and reopening, never gives extra time. The clock is injected so tests can drive it.
public struct AttemptTimer<C: Clock>: Sendable where C.Duration == Duration, C: Sendable {
    public let limit: Duration?
    public let clock: C
    private let storedActive: Duration
    private let sessionStart: C.Instant

    public init(limitSeconds: Int?, storedActiveMilliseconds: Int, clock: C) {
        limit = limitSeconds.map { .seconds($0) }
        self.clock = clock
        storedActive = .milliseconds(storedActiveMilliseconds)
        sessionStart = clock.now
    }

    /// Active time so far: what was stored plus this session's.
    public var active: Duration { storedActive + sessionStart.duration(to: clock.now) }

    public var activeMilliseconds: Int {
        let components = active.components
        return Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }

    /// Time left, never negative; nil when untimed.
    public var remaining: Duration? {
        guard let limit else { return nil }
        let left = limit - active
        return left < .zero ? .zero : left
    }

    public var isExpired: Bool { remaining.map { $0 <= .zero } ?? false }

    /// `mm:ss` (or `h:mm:ss`) for the countdown.
    public static func format(_ duration: Duration) -> String {
        let total = max(0, Int(duration.components.seconds))
        let hours = total / 3600, minutes = (total % 3600) / 60, seconds = total % 60
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, seconds) : String(format: "%02d:%02d", minutes, seconds)
    }
}

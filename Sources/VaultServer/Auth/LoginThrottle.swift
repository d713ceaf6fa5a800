import Foundation

/// Counts failed logins per user name and per client address; past the free ones, each further failure makes
/// that name or address wait, doubling, up to a ceiling. A success clears the name's count (not the address's:
/// one right guess must not unlock guessing at every other name from the same place).
public actor LoginThrottle<C: Clock> where C.Duration == Duration {
    private struct Record {
        var failures: Int
        var blockedUntil: C.Instant?
    }

    private let clock: C
    private let freeFailures: Int
    private let maxDelay: Duration
    private var records: [String: Record] = [:]

    public init(clock: C, freeFailures: Int, maxDelay: Duration) {
        self.clock = clock
        self.freeFailures = freeFailures
        self.maxDelay = maxDelay
    }

    /// How long the caller must still wait, if any of `keys` is blocked.
    public func wait(for keys: [String]) -> Duration? {
        let now = clock.now
        let waits = keys.compactMap { records[$0]?.blockedUntil }.filter { $0 > now }.map { now.duration(to: $0) }
        return waits.max()
    }

    public func recordFailure(_ keys: [String]) {
        let now = clock.now
        for key in keys {
            var record = records[key] ?? Record(failures: 0, blockedUntil: nil)
            record.failures += 1
            let over = record.failures - freeFailures
            if over > 0 {
                let seconds = min(Double(1 << min(over - 1, 30)), maxDelay / .seconds(1))
                record.blockedUntil = now.advanced(by: .seconds(seconds))
            }
            records[key] = record
        }
        if records.count > 100_000 { records = records.filter { $0.value.blockedUntil.map { $0 > now } ?? false } }
    }

    public func recordSuccess(_ key: String) { records[key] = nil }
}

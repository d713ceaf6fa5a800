import Foundation

/// Counts failed logins per key (a user name, a client address). Past a key's free failures, each further failure
/// makes that key wait, doubling, up to a ceiling; failures older than `window` are forgotten, so the typos of a
/// whole school behind one address do not add up over days.
///
/// An attempt is counted when it starts (`begin`), not when its derivation ends: a burst of parallel guesses cannot
/// all pass the check before the first failure is recorded. A success gives the attempt back on every key and
/// clears the user name's count (not the address's: one right guess must not reopen guessing at other names).
public actor LoginThrottle<C: Clock> where C.Duration == Duration {
    public struct Key: Hashable, Sendable {
        let value: String
        /// Failures this key may have within the window before it has to wait.
        let freeFailures: Int
        /// A success clears the count (a user name) or only gives its own attempt back (an address).
        let clearsOnSuccess: Bool

        public static func user(_ name: String, free: Int) -> Key {
            Key(value: "user:" + name.prefix(200), freeFailures: free, clearsOnSuccess: true)
        }

        public static func address(_ address: String, free: Int) -> Key {
            Key(value: "address:" + address, freeFailures: free, clearsOnSuccess: false)
        }
    }

    private struct Record {
        var failures = 0
        var lastFailure: C.Instant
        var blockedUntil: C.Instant?
    }

    private let clock: C
    private let maxDelay: Duration
    private let window: Duration
    private var records: [String: Record] = [:]

    public init(clock: C, maxDelay: Duration, window: Duration = .seconds(15 * 60)) {
        self.clock = clock
        self.maxDelay = maxDelay
        self.window = window
    }

    /// Starts an attempt: the wait still owed when a key is blocked (the attempt is then not counted), else nil
    /// and the attempt counts as a failure until `succeeded` gives it back.
    public func begin(_ keys: [Key]) -> Duration? {
        let now = clock.now
        let waits = keys.compactMap { records[$0.value]?.blockedUntil }.filter { $0 > now }.map { now.duration(to: $0) }
        if let wait = waits.max() { return wait }
        for key in keys {
            var record =
                records[key.value].flatMap { $0.lastFailure.duration(to: now) < window ? $0 : nil }
                ?? Record(lastFailure: now)
            record.failures += 1
            record.lastFailure = now
            let over = record.failures - key.freeFailures
            if over > 0 {
                let seconds = min(Double(1 << min(over - 1, 30)), maxDelay / .seconds(1))
                record.blockedUntil = now.advanced(by: .seconds(seconds))
            }
            records[key.value] = record
        }
        if records.count > 100_000 {
            records = records.filter { $0.value.lastFailure.duration(to: now) < window }
        }
        return nil
    }

    /// The attempt begun with `keys` succeeded.
    public func succeeded(_ keys: [Key]) {
        for key in keys {
            if key.clearsOnSuccess {
                records[key.value] = nil
            } else if var record = records[key.value] {
                record.failures = max(0, record.failures - 1)
                if record.failures <= key.freeFailures { record.blockedUntil = nil }
                records[key.value] = record
            }
        }
    }
}

import Foundation

/// Retries one request of a short command (`login`) on the sync schedule: a cut connection, a timeout or a 5xx is
/// tried again after 1 s, 2 s, 4 s … (with jitter), a 429 after its Retry-After, up to `tries` in all, never a wait
/// longer than `longestWait`, and never past `deadline` from the first try (then the command says to try again later).
///
/// Every request is tried again, the sign-in too: sending the same user name and password again only makes another
/// token, and the server's throttle counts failed sign-ins, not tries (a success gives its try back), so a rural link
/// that drops a third of the requests signs in all the same.
public struct RequestRetry: Sendable {
    public var schedule: RetrySchedule
    public var tries: Int
    public var longestWait: Duration
    /// The most a command spends on one request and its tries, the waits included (a server that never answers is
    /// given up on within it: the transport's wait for a first byte bounds each try).
    public var deadline: Duration
    /// Waits; injected so tests record the waits instead of sleeping.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// The time since the first try; injected with `sleep`.
    public var now: @Sendable () -> ContinuousClock.Instant

    public init(
        schedule: RetrySchedule = .init(),
        tries: Int = 5,
        longestWait: Duration = .seconds(10),
        deadline: Duration = .seconds(25),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.schedule = schedule
        self.tries = tries
        self.longestWait = longestWait
        self.deadline = deadline
        self.sleep = sleep
        self.now = now
    }

    /// `request`, tried again by the rule; the last failure when it gives up.
    public func run<Value: Sendable>(_ request: () async throws -> Value) async throws -> Value {
        var failures = 0
        var random = SystemRandomNumberGenerator()
        let start = now()
        while true {
            do {
                return try await request()
            } catch let error as ServerError {
                failures += 1
                guard failures < tries, let retryAfter = Self.retryable(error) else { throw error }
                let wait = schedule.delay(afterFailures: failures, retryAfter: retryAfter, random: &random)
                guard wait <= longestWait, start.duration(to: now()) + wait < deadline else { throw error }
                try await sleep(wait)
            }
        }
    }

    /// Nil when `error` is not worth another try; otherwise the server's Retry-After (an optional inside).
    static func retryable(_ error: ServerError) -> Duration?? {
        switch error {
        case .rateLimited(let retryAfter): .some(retryAfter)
        case .offline, .degraded, .serverFailure: .some(nil)
        default: nil
        }
    }
}

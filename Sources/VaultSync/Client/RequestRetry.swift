import Foundation

/// Retries one request of a short command (`login`) on the sync schedule: a cut connection, a timeout or a 5xx is
/// tried again after 1 s, 2 s, 4 s … (with jitter), a 429 after its Retry-After, up to `tries` in all and never a
/// wait longer than `longestWait` (then the command says to try again later). A request that carries the password
/// is sent again only after a 429, which says the server refused it unread; after a cut or a 5xx it may have
/// arrived, and a password is never sent twice over such a request.
public struct RequestRetry: Sendable {
    /// What a request is, for the retry rule.
    public enum Kind: Sendable {
        /// The same request twice does the same as once (reading the server's key, registering this vault's key).
        case idempotent
        /// Carries the password: sent again only when the server said it did not read it.
        case carriesPassword
    }

    public var schedule: RetrySchedule
    public var tries: Int
    public var longestWait: Duration
    /// Waits; injected so tests record the waits instead of sleeping.
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(
        schedule: RetrySchedule = .init(),
        tries: Int = 5,
        longestWait: Duration = .seconds(10),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.schedule = schedule
        self.tries = tries
        self.longestWait = longestWait
        self.sleep = sleep
    }

    /// `request`, tried again by the rule for `kind`; the last failure when it gives up.
    public func run<Value: Sendable>(_ kind: Kind, _ request: () async throws -> Value) async throws -> Value {
        var failures = 0
        var random = SystemRandomNumberGenerator()
        while true {
            do {
                return try await request()
            } catch let error as ServerError {
                failures += 1
                guard failures < tries, let retryAfter = Self.retryable(error, kind) else { throw error }
                let wait = schedule.delay(afterFailures: failures, retryAfter: retryAfter, random: &random)
                guard wait <= longestWait else { throw error }
                try await sleep(wait)
            }
        }
    }

    /// Nil when `error` is not worth another try for `kind`; otherwise the server's Retry-After (an optional inside).
    static func retryable(_ error: ServerError, _ kind: Kind) -> Duration?? {
        switch (error, kind) {
        case (.rateLimited(let retryAfter), _): .some(retryAfter)
        case (.offline, .idempotent), (.degraded, .idempotent), (.serverFailure, .idempotent): .some(nil)
        default: nil
        }
    }
}

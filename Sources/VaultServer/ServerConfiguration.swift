import Foundation
import Prometheus
import VaultAPI

/// How the server runs. Defaults suit a laptop; tests lower the password hashing cost explicitly.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// PBKDF2-HMAC-SHA256 rounds for new password hashes (OWASP 2023: 600,000), for the equal-cost derivation run
    /// for unknown user names, and the level older hashes are raised to at their next successful login.
    public var passwordIterations = 600_000
    /// Threads that run password derivations, off the event loop; more logins at once wait their turn.
    public var passwordHashingThreads = 2
    public var tokenLifetime: TimeInterval = 30 * 24 * 3600
    /// Largest request body, compressed or not (one constant, shared with the client: `APIPath.maxRequestBytes`).
    public var maxRequestBytes = APIPath.maxRequestBytes
    /// Most items in one batch.
    public var maxBatchItems = 500
    /// Batch and submission requests handled at once (bounds buffered bodies too).
    public var maxUploadsInFlight = 64
    /// Uploads that may wait for a place beyond those, and for how long; past either, 429 with `Retry-After`. An
    /// end-of-exam burst waits a moment instead of going round again (200 students at once: 91 to 214 told 429).
    public var uploadQueueLimit = 512
    public var uploadQueueWait: Duration = .seconds(5)
    /// A connection that sends nothing (a partial request included) for this long is closed.
    public var idleTimeout: Duration = .seconds(30)
    /// Connections open at once; past it new ones wait in the kernel's backlog.
    public var maxConnections = 1_024
    /// Failed logins within 15 minutes that are free per user name, and per client address (higher: a school's
    /// students may share one address); past them each further failure makes the caller wait (1 s, doubling, at
    /// most `maxLoginDelay`), answered with 429 and `Retry-After`.
    public var freeLoginFailures = 5
    public var freeLoginFailuresPerAddress = 50
    public var maxLoginDelay: Duration = .seconds(15 * 60)
    /// PBKDF2-HMAC-SHA512 rounds that wrap a sealed exam's key under its start code (tests lower it explicitly).
    public var sealIterations = 1_000_000
    /// The wall clock that decides whether a sealed exam has opened (`opens_at`); tests move it by hand.
    public var now: @Sendable () -> Date = { Date() }
    /// Where `vault-server serve` keeps its metrics (swift-metrics bootstrapped on it): `GET /metrics` serves them;
    /// nil, no metrics page.
    public var metrics: PrometheusCollectorRegistry?
    /// How often a closing set for later (`close --at`) is looked for, to hand in the attempts left open.
    public var closingSweepInterval: Duration = .seconds(15)

    /// The desk's cookies are Secure (set when a TLS proxy serves the desk; `X-Forwarded-Proto: https` sets it per
    /// request too).
    public var secureCookies = false

    /// A classroom server (issue 58, set by `serve` when `classroom init` linked the store to a district): every
    /// answer and hand-in the students send is also kept to be passed on to the district.
    public var classroom = false

    public init() {}
}

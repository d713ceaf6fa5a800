import CoreMetrics
import Foundation
import Hummingbird
import Synchronization
import VaultAPI

/// Admission for uploads: at most `limit` batch or submission requests in flight (so at most `limit` request bodies
/// buffered), and in front of them a short queue: up to `queueLimit` more wait up to `maxWait` for a place (their
/// bodies still unread), so an end-of-exam burst is admitted a moment later instead of being told 429 while there
/// is room a second later. Past the queue, or after the wait, the server answers 429 with `Retry-After` at once,
/// which clients honour: true overload, never an unbounded queue while every student reconnects after an exam.
struct BatchAdmission: RouterMiddleware {
    typealias Context = VaultRequestContext
    let limit: Int
    let queueLimit: Int
    let maxWait: Duration
    private let state = State()

    init(limit: Int, queueLimit: Int = 0, maxWait: Duration = .zero) {
        self.limit = limit
        self.queueLimit = queueLimit
        self.maxWait = maxWait
    }

    final class State: Sendable {
        let inFlight = Atomic<Int>(0)
        let waiting = Atomic<Int>(0)
        /// For the metrics (`docs/operating.md`): uploads waiting in the queue now, and how long each waited.
        let waitingGauge = Gauge(label: "vault_uploads_waiting")
        let waitTimer = Timer(label: "vault_upload_wait", preferredDisplayUnit: .seconds)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post else { return try await next(request, context) }
        if !enter() {
            try await waitForPlace()
        }
        defer { state.inFlight.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
        return try await next(request, context)
    }

    /// Takes a place when one is free.
    private func enter() -> Bool {
        var current = state.inFlight.load(ordering: .acquiring)
        while current < limit {
            let (exchanged, original) = state.inFlight.compareExchange(
                expected: current,
                desired: current + 1,
                ordering: .acquiringAndReleasing
            )
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Waits in the queue for a place (checking every few milliseconds), or answers 429.
    private func waitForPlace() async throws {
        let waiting = state.waiting.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        state.waitingGauge.record(waiting)
        let start = ContinuousClock.now
        defer {
            state.waitingGauge.record(state.waiting.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue)
            let waited = start.duration(to: ContinuousClock.now).components
            state.waitTimer.recordNanoseconds(waited.seconds * 1_000_000_000 + waited.attoseconds / 1_000_000_000)
        }
        if waiting <= queueLimit {
            let deadline = ContinuousClock.now + maxWait
            while ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...20)))
                if enter() { return }
            }
        }
        throw APIError.retryLater(
            .tooManyRequests,
            code: .busy,
            after: 1,
            message: "The server is busy right now. Your answers are kept and will be sent again in a moment."
        )
    }
}

import Foundation
import Hummingbird
import Synchronization

/// Backpressure for uploads: at most `limit` batch or submission requests in flight (so at most `limit` request
/// bodies buffered). Past it the server answers 429 with `Retry-After` at once, which clients honour, instead of
/// queueing without bound while every student reconnects after an exam.
struct BatchAdmission: RouterMiddleware {
    typealias Context = VaultRequestContext
    let limit: Int
    private let inFlight = InFlight()

    init(limit: Int) { self.limit = limit }

    final class InFlight: Sendable {
        let count = Atomic<Int>(0)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post else { return try await next(request, context) }
        let admitted = inFlight.count.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue <= limit
        defer { inFlight.count.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
        guard admitted else {
            var error = APIError(
                .tooManyRequests,
                code: .busy,
                message: "The server is busy right now. Your answers are kept and will be sent again in a moment."
            )
            error.headers[.retryAfter] = "1"
            throw error
        }
        return try await next(request, context)
    }
}

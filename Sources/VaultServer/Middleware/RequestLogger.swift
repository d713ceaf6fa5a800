import Foundation
import Hummingbird
import Logging
import VaultAPI

/// One line per request: method, path, status, duration. Never headers (tokens) or bodies (passwords, answers);
/// any error not already an API error becomes a JSON 500 without details.
struct RequestLogger<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let path = request.uri.path
        do {
            let response = try await next(request, context)
            log(request, path, response.status.code, start)
            return response
        } catch let error as any HTTPResponseError {
            log(request, path, error.status.code, start)
            throw error
        } catch let error as StorageError where error.isTemporary {
            // The database is down, out of connections or too busy: a moment later it may not be. 503 with
            // Retry-After (clients wait that long), never a 500 that reads as a defect; the log names the cause.
            log(request, path, 503, start)
            logger.warning("database unavailable", metadata: ["path": "\(path)", "cause": "\(error.logCause)"])
            throw APIError.retryLater(
                .serviceUnavailable,
                code: .busy,
                after: 2,
                message: "The server cannot reach its database right now. Your work is kept; try again in a moment."
            )
        } catch {
            log(request, path, 500, start)
            logger.error(
                "request failed",
                metadata: ["path": "\(path)", "error": "\(type(of: error))", "cause": "\((error as? StorageError)?.logCause ?? "")"]
            )
            throw APIError(.internalServerError, code: .internal, message: "The server could not finish this request. Try again later.")
        }
    }

    private func log(_ request: Request, _ path: String, _ status: Int, _ start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        logger.info(
            "\(request.method) \(path) \(status) \(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)ms"
        )
    }
}

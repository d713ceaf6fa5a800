import Foundation
import HTTPTypes
import Hummingbird
import Logging
import VaultAPI

/// One line per request: method, path, status, duration, and its request id (echoed in `X-Request-Id`, so a
/// teacher's "it failed at 10:42" finds its line). Never headers (tokens) or bodies (passwords, answers); any error
/// not already an API error becomes a JSON 500 without details.
struct RequestLogger<Context: RequestContext>: RouterMiddleware {
    let logger: Logger
    /// The status page's record, and the server's clock it is stamped by.
    let activity: ServerActivity
    let now: @Sendable () -> Date

    static var header: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    /// The id a proxy gave the request (up to 64 letters, digits, '-', '_' or '.'), else a new one.
    static func requestID(_ request: Request) -> String {
        if let given = request.headers[header], (1...64).contains(given.utf8.count), given.unicodeScalars.allSatisfy(isIDCharacter) {
            return given
        }
        var generator = SystemRandomNumberGenerator()
        return String(format: "%016llx", generator.next() as UInt64)
    }

    static func isIDCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let path = request.uri.path
        var logger = logger
        let id = Self.requestID(request)
        logger[metadataKey: "request_id"] = "\(id)"
        do {
            var response = try await next(request, context)
            log(logger, request, path, context.endpointPath, response.status.code, start)
            response.headers[Self.header] = id
            return response
        } catch var error as APIError {
            log(logger, request, path, context.endpointPath, error.status.code, start)
            error.headers[Self.header] = id
            throw error
        } catch let error as any HTTPResponseError {
            log(logger, request, path, context.endpointPath, error.status.code, start)
            throw error
        } catch let error as StorageError where error.isTemporary {
            ServerMetrics.databaseError(error)
            // The database is down, out of connections or too busy: a moment later it may not be. 503 with
            // Retry-After (clients wait that long), never a 500 that reads as a defect; the log names the cause.
            log(logger, request, path, context.endpointPath, 503, start)
            logger.warning("database unavailable", metadata: ["path": "\(path)", "cause": "\(error.logCause)"])
            var refusal = APIError.retryLater(
                .serviceUnavailable,
                code: .busy,
                after: 2,
                message: "The server cannot reach its database right now. Your work is kept; try again in a moment."
            )
            refusal.headers[Self.header] = id
            throw refusal
        } catch {
            if let storage = error as? StorageError { ServerMetrics.databaseError(storage) }
            log(logger, request, path, context.endpointPath, 500, start)
            logger.error(
                "request failed",
                metadata: ["path": "\(path)", "error": "\(type(of: error))", "cause": "\((error as? StorageError)?.logCause ?? "")"]
            )
            var failure = APIError(.internalServerError, code: .internal, message: "The server could not finish this request. Try again later.")
            failure.headers[Self.header] = id
            throw failure
        }
    }

    private func log(_ logger: Logger, _ request: Request, _ path: String, _ route: String?, _ status: Int, _ start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        // The status page's figures: by route template (bounded), never by path (which holds ids).
        activity.request(
            route: route,
            status: status,
            milliseconds: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15,
            at: now()
        )
        logger.info(
            "\(request.method) \(path) \(status) \(milliseconds)ms",
            metadata: ["method": "\(request.method)", "path": "\(path)", "status": "\(status)", "duration_ms": "\(milliseconds)"]
        )
    }
}

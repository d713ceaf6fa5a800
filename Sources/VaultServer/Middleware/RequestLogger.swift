import Foundation
import HTTPTypes
import Hummingbird
import Logging
import VaultAPI

/// One line per request: method, path, status, duration, and its request id (echoed in `X-Request-Id`, so a
/// teacher's "it failed at 10:42" finds its line). Never headers (tokens) or bodies (passwords, answers). Errors are
/// made responses inside it, by `ErrorResponses`.
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
            // The id travels with the request's task, so `ErrorResponses` (inside) names it beside an error's cause.
            var response = try await RequestID.$current.withValue(id) { try await next(request, context) }
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
        } catch {
            // `ErrorResponses` made every other error an API error already; this is only a last guard.
            log(logger, request, path, context.endpointPath, 500, start)
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

/// Every error a route throws, as the response the client gets (one rule for the log, the metrics and the client):
/// an API error as it is; the database away, out of connections or too busy as 503 with Retry-After (never a 500
/// that reads as a defect), its cause in the log; anything else a JSON 500 without details, its type in the log. Both
/// log lines name the request id.
struct ErrorResponses<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            var logger = logger
            logger[metadataKey: "request_id"] = "\(RequestID.current ?? "")"
            let path = request.uri.path
            if let storage = error as? StorageError, storage.isTemporary {
                ServerMetrics.databaseError(storage)
                logger.warning("database unavailable", metadata: ["path": "\(path)", "cause": "\(storage.logCause)"])
                throw APIError.retryLater(
                    .serviceUnavailable,
                    code: .busy,
                    after: 2,
                    message: "The server cannot reach its database right now. Your work is kept; try again in a moment."
                )
            }
            if let storage = error as? StorageError { ServerMetrics.databaseError(storage) }
            logger.error(
                "request failed",
                metadata: ["path": "\(path)", "error": "\(type(of: error))", "cause": "\((error as? StorageError)?.logCause ?? "")"]
            )
            throw APIError(.internalServerError, code: .internal, message: "The server could not finish this request. Try again later.")
        }
    }
}

/// The id of the request this task serves (`RequestLogger` sets it).
enum RequestID {
    @TaskLocal static var current: String?
}

import CoreMetrics
import Dispatch
import HTTPTypes
import Hummingbird

/// Requests by route template, method and the status the client got, with their duration (issue 73). Inside the
/// middleware that turns every error into the response sent (`ErrorResponses`), so a database away counts as the 503
/// it is, never as a 500; a failed request's duration is recorded like any other; `hb_request_errors` counts only 5xx
/// (a 404 or a 429 is an answer, not a server error). The series keep Hummingbird's names and labels.
struct RequestMetrics<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let active = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", request.method.description)])
        active.increment()
        do {
            // Recorded when the handler answered (Hummingbird's own hook after the body is written is package-only).
            let response = try await next(request, context)
            Self.record(route: context.endpointPath ?? "Unknown", method: request.method, status: response.status, since: start)
            active.decrement()
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            Self.record(route: context.endpointPath ?? "NotFound", method: request.method, status: status, since: start)
            active.decrement()
            throw error
        }
    }

    static func record(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, since start: UInt64) {
        let dimensions = [("http.route", route), ("http.request.method", method.description), ("http.response.status_code", status.code.description)]
        Counter(label: "hb.requests", dimensions: dimensions).increment()
        Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds)
            .recordNanoseconds(DispatchTime.now().uptimeNanoseconds - start)
        if status.code >= 500 {
            Counter(
                label: "hb.request.errors",
                dimensions: [("http.route", route), ("http.request.method", method.description), ("error.type", status.code.description)]
            ).increment()
        }
    }
}

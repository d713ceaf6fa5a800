import Foundation
import Hummingbird
import VaultAPI

/// An error answered as `{"error": {"code", "message"}}` with its HTTP status. Never a stack trace.
public struct APIError: HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    public let code: APIErrorCode
    public let message: String
    public var currentVersion: Int?
    public var missing: [String]?
    public var opensAt: String?
    public var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, code: APIErrorCode, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let envelope = ErrorEnvelope(code: code.rawValue, message: message, currentVersion: currentVersion, missing: missing, opensAt: opensAt)
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        let data = (try? CanonicalJSON.encode(envelope)) ?? Data()
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static let unauthorized = APIError(.unauthorized, code: .unauthorized, message: "Sign in again: the token is missing, unknown or expired.")
    static let forbidden = APIError(.forbidden, code: .forbidden, message: "Only a teacher may do this.")
    static func notFound(_ id: String) -> APIError {
        APIError(.notFound, code: .notFound, message: "There is no assessment \(id); it may have been deleted.")
    }
    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, code: .badRequest, message: message) }
    /// A hand-in whose vault signature does not verify: changed on the way, or not made by the vault it names.
    static let badSignature = APIError(
        .unprocessableContent,
        code: .rejected,
        message: "This hand-in was changed on its way: its signature does not match. Nothing was stored; sync again."
    )

    /// An answer that says when to come back: `Retry-After` in whole seconds (at least 1).
    static func retryLater(_ status: HTTPResponse.Status, code: APIErrorCode, after seconds: Int, message: String) -> APIError {
        ServerMetrics.refused(status: Int(status.code), code: code)
        var error = APIError(status, code: code, message: message)
        error.headers[.retryAfter] = "\(max(1, seconds))"
        return error
    }
    static let tooLarge = APIError(
        .contentTooLarge,
        code: .tooLarge,
        message: "The request is larger than the server accepts; send it in smaller parts."
    )
}

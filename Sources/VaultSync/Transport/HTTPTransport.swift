import Foundation

/// One HTTP request as the sync engine sees it.
public struct HTTPRequestSpec: Sendable {
    public var method: String
    public var path: String
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, path: String, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }
}

/// A response whose body was read completely, under a cap. Header names are lower-case.
public struct HTTPReply: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why a request got no HTTP answer at all.
public enum TransportError: Error, Sendable, Equatable {
    /// No route, refused, DNS failure: the hard offline case.
    case unreachable(String)
    /// Connected but no complete answer in time: the soft offline case.
    case timedOut
    /// The body went past the cap; reading stopped there.
    case tooLarge(limit: Int)
    /// The bytes were not HTTP as expected.
    case protocolError(String)
}

/// Sends requests to the server. The real one is `AsyncHTTPTransport`; tests inject failing or lying ones.
public protocol HTTPTransport: Sendable {
    /// - Parameters:
    ///   - maxResponseBytes: the most body bytes read off the wire; more is `TransportError.tooLarge`.
    ///   - progress: called with bytes received so far and the announced length, if any.
    func send(_ request: HTTPRequestSpec, maxResponseBytes: Int, progress: (@Sendable (Int, Int?) -> Void)?) async throws -> HTTPReply
}

extension HTTPTransport {
    public func send(_ request: HTTPRequestSpec, maxResponseBytes: Int = 12 * 1024 * 1024) async throws -> HTTPReply {
        try await send(request, maxResponseBytes: maxResponseBytes, progress: nil)
    }
}

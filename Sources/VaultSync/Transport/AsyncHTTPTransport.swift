import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The real transport on AsyncHTTPClient: connect and read timeouts, a streaming size cap, no automatic
/// decompression (gzip is undone by `Gzip` under its own caps), no redirects to elsewhere.
///
/// AsyncHTTPClient rather than FoundationNetworking: it streams the body so the cap holds before memory grows,
/// has separate connect/read timeouts, and tells a refused connection from a timeout.
public final class AsyncHTTPTransport: HTTPTransport {
    public let baseURL: String
    private let client: HTTPClient
    private let requestTimeout: TimeAmount

    public init(
        baseURL: String,
        connectTimeout: Duration = .seconds(5),
        readTimeout: Duration = .seconds(30),
        requestTimeout: Duration = .seconds(120)
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: Self.amount(connectTimeout), read: Self.amount(readTimeout))
        configuration.decompression = .disabled
        configuration.redirectConfiguration = .disallow
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.requestTimeout = Self.amount(requestTimeout)
    }

    static func amount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// Must be called before the transport is released.
    public func shutdown() async {
        try? await client.shutdown()
    }

    public func send(_ request: HTTPRequestSpec, maxResponseBytes: Int, progress: (@Sendable (Int, Int?) -> Void)?) async throws -> HTTPReply {
        var outgoing = HTTPClientRequest(url: baseURL + request.path)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await client.execute(outgoing, timeout: requestTimeout)
            var headers: [String: String] = [:]
            for header in response.headers { headers[header.name.lowercased()] = header.value }
            let announced = headers["content-length"].flatMap(Int.init)
            if let announced, announced > maxResponseBytes { throw TransportError.tooLarge(limit: maxResponseBytes) }
            var body = Data()
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= maxResponseBytes else { throw TransportError.tooLarge(limit: maxResponseBytes) }
                body.append(contentsOf: chunk.readableBytesView)
                progress?(body.count, announced)
            }
            return HTTPReply(status: Int(response.status.code), headers: headers, body: body)
        } catch let error as TransportError {
            throw error
        } catch let error as HTTPClientError {
            switch error {
            case .readTimeout, .deadlineExceeded: throw TransportError.timedOut
            case .connectTimeout: throw TransportError.unreachable("connect timeout")
            case .remoteConnectionClosed: throw TransportError.timedOut
            default: throw TransportError.unreachable("\(error)")
            }
        } catch let error as ChannelError {
            // NIO's typed errors: a connect that timed out is still "unreachable", one that stalled later timed out.
            switch error {
            case .connectTimeout: throw TransportError.unreachable("connect timeout")
            default: throw TransportError.unreachable("\(error)")
            }
        } catch is NIOConnectionError {
            throw TransportError.unreachable("connection refused or no route")
        } catch {
            // Anything else (DNS, refused connections as IOError): no connection could be made.
            throw TransportError.unreachable("\(error)")
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus
import VaultAPI

/// `GET /metrics`: the Prometheus text format, for an administrator's token, or for a client on this machine that
/// came straight to the server (a loopback peer with no header a proxy adds: a proxy on the same machine passing a
/// student's request along does not count as this machine). Anyone else is told there is no such page.
struct MetricsRoutes<Storage: ServerStorage>: Sendable {
    let storage: Storage
    let registry: PrometheusCollectorRegistry
    let activity: ServerActivity
    let now: @Sendable () -> Date

    func register(on router: Router<VaultRequestContext>) {
        router.get("metrics") { request, context in
            guard try await allowed(request, context: context) else {
                throw APIError(.notFound, code: .notFound, message: "There is no such page.")
            }
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: buffer))
            )
        }
        // How the server is doing, for people (`vault-server status`, the desk's server page): the same readers.
        router.get(RouterPath(APIPath.serverStatus)) { request, context in
            guard try await allowed(request, context: context) else {
                throw APIError(.notFound, code: .notFound, message: "There is no such page.")
            }
            return try JSONBody.response(
                activity.status(version: ProductVersion.current, store: await storage.storeFacts(), now: now()),
                request: request
            )
        }
    }

    func allowed(_ request: Request, context: VaultRequestContext) async throws -> Bool {
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") {
            let token = String(header.dropFirst("Bearer ".count))
            let owner = try await storage.tokenOwner(hash: PasswordHasher.tokenHash(token), now: now())
            return owner?.role == .admin && owner?.classroom == nil
        }
        return Self.isLoopback(context.clientAddress) && !Self.cameThroughProxy(request.headers)
    }

    /// Any header a proxy adds (the README's nginx settings pass only `Host` and `X-Forwarded-Proto`, so a remote
    /// client's request arrived from loopback with no `X-Forwarded-For`: issue 70). A request that names any of these
    /// is not this machine's own, whatever its peer address.
    static var proxyHeaders: [String] { ["Forwarded", "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "X-Real-IP", "Via"] }

    static func cameThroughProxy(_ headers: HTTPFields) -> Bool {
        proxyHeaders.contains { name in HTTPField.Name(name).map { headers[$0] != nil } ?? false }
    }

    static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address.hasPrefix("127.") || address.hasPrefix("::ffff:127.")
    }
}

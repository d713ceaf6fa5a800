import Foundation
import Hummingbird
import Logging
import NIOCore

/// Builds the router: public routes, then everything else behind the bearer token.
public func buildRouter<Storage: ServerStorage>(storage: Storage, configuration: ServerConfiguration, logger: Logger) -> Router<VaultRequestContext> {
    let router = Router(context: VaultRequestContext.self)
    router.add(middleware: RequestLogger(logger: logger))
    AuthRoutes(storage: storage, configuration: configuration).register(on: router)
    let authenticated = router.group("v1").add(middleware: BearerAuthenticator(storage: storage))
    AssessmentRoutes(storage: storage, configuration: configuration).register(on: authenticated)
    ResponseRoutes(storage: storage, configuration: configuration).register(on: authenticated)
    return router
}

/// The whole server. `onServerRunning` receives the bound port (useful with port 0).
public func buildApplication<Storage: ServerStorage>(
    storage: Storage, configuration: ServerConfiguration, logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    Application(
        router: buildRouter(storage: storage, configuration: configuration, logger: logger),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "vault-server"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}

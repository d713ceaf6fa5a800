import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import VaultAPI
import VaultCore

/// Builds the router: public routes, then everything else behind the bearer token.
/// `hashing` defaults to a pool built from the configuration; tests pass their own to count derivations.
public func buildRouter<Storage: ServerStorage, C: Clock>(
    storage: Storage,
    configuration: ServerConfiguration,
    logger: Logger,
    clock: C,
    hashing: PasswordHashingPool? = nil
) throws -> Router<VaultRequestContext> where C.Duration == Duration {
    let router = Router(context: VaultRequestContext.self)
    let activity = ServerActivity(startedAt: configuration.now())
    router.add(middleware: RequestLogger(logger: logger, activity: activity, now: configuration.now))
    // Requests by route template, method and the status sent, with their duration, when metrics are kept: outside the
    // middleware that makes errors responses, so each is counted as the client got it (a 503 as 503).
    if let registry = configuration.metrics {
        router.add(middleware: RequestMetrics())
        MetricsRoutes(storage: storage, registry: registry, activity: activity, now: configuration.now).register(on: router)
    }
    router.add(middleware: ErrorResponses(logger: logger))
    // One sign-in for the API and the teacher's desk: one password hashing pool, one login throttle.
    let signIn = SignIn(
        storage: storage,
        configuration: configuration,
        hashing: try hashing
            ?? PasswordHashingPool(threads: configuration.passwordHashingThreads, iterations: configuration.passwordIterations),
        throttle: LoginThrottle(clock: clock, maxDelay: configuration.maxLoginDelay)
    )
    let auth = AuthRoutes(storage: storage, configuration: configuration, signIn: signIn)
    auth.register(on: router)
    DeskRoutes(
        storage: storage,
        configuration: configuration,
        signIn: signIn,
        pages: DeskPages(library: try DeskTemplates.library()),
        activity: activity
    ).register(on: router)
    let authenticated = router.group("v1").add(middleware: BearerAuthenticator(storage: storage, now: configuration.now))
    auth.registerAuthenticated(on: authenticated)
    let receipts = ReceiptIssuer(storage: storage)
    auth.registerDeviceSignIn(on: router, receipts: receipts)
    auth.registerEnrolment(on: router, receipts: receipts)
    let sealed = SealedExams(storage: storage, receipts: receipts, iterations: configuration.sealIterations)
    AssessmentRoutes(storage: storage, configuration: configuration, sealed: sealed, receipts: receipts, draws: StudentDraws()).register(
        on: authenticated
    )
    router.get(RouterPath(APIPath.serverKey)) { request, _ in
        try JSONBody.response(try await receipts.identity().publicKey.response, request: request)
    }
    let responses = ResponseRoutes(storage: storage, configuration: configuration, receipts: receipts, activity: activity)
    responses.register(on: authenticated)
    ClassroomRoutes(storage: storage, configuration: configuration, responses: responses, receipts: receipts, sealed: sealed).register(
        on: authenticated
    )
    return router
}

public func buildRouter<Storage: ServerStorage>(
    storage: Storage,
    configuration: ServerConfiguration,
    logger: Logger,
    hashing: PasswordHashingPool? = nil
) throws -> Router<VaultRequestContext> {
    try buildRouter(storage: storage, configuration: configuration, logger: logger, clock: ContinuousClock(), hashing: hashing)
}

/// The whole server. `onServerRunning` receives the bound port (useful with port 0); `clock` drives the login
/// throttle (tests move it by hand).
public func buildApplication<Storage: ServerStorage, C: Clock>(
    storage: Storage,
    configuration: ServerConfiguration,
    logger: Logger,
    clock: C,
    hashing: PasswordHashingPool? = nil,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> Application<RouterResponder<VaultRequestContext>> where C.Duration == Duration {
    Application(
        router: try buildRouter(storage: storage, configuration: configuration, logger: logger, clock: clock, hashing: hashing),
        server: .http1(configuration: .init(idleTimeout: .nanoseconds(Int64(Int(saturating: configuration.idleTimeout / .nanoseconds(1)))))),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "vault-server",
            availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections)
        ),
        // The store runs as a service: its pool lives until graceful shutdown. The closing sweeper hands in the
        // attempts left open when a closing set for later comes.
        services: [
            storage,
            ClosingSweeper(storage: storage, interval: configuration.closingSweepInterval, now: configuration.now, logger: logger),
        ],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
}

public func buildApplication<Storage: ServerStorage>(
    storage: Storage,
    configuration: ServerConfiguration,
    logger: Logger,
    hashing: PasswordHashingPool? = nil,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> Application<RouterResponder<VaultRequestContext>> {
    try buildApplication(
        storage: storage,
        configuration: configuration,
        logger: logger,
        clock: ContinuousClock(),
        hashing: hashing,
        onServerRunning: onServerRunning
    )
}

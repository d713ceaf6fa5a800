import Foundation
import Hummingbird
import VaultAPI
import VaultCore

/// `GET /v1/health`, `POST /v1/auth/token` (no token needed) and `DELETE /v1/auth/token` (revokes the one used).
struct AuthRoutes<Storage: ServerStorage, C: Clock>: Sendable where C.Duration == Duration {
    let storage: Storage
    let configuration: ServerConfiguration
    let signIn: SignIn<Storage, C>

    func register(on router: Router<VaultRequestContext>) {
        // Liveness: the process answers, at once, whether its store does or not; the school's setting as last read
        // (an outage never turns it off, issue 73).
        let known = KnownSetting()
        router.get(RouterPath(APIPath.health)) { request, _ in
            let read = await Deadline.within(.seconds(1)) { try await storage.setting(.clientStats) }
            let clientStats = known.update(read.map { $0 == "on" })
            return try JSONBody.response(HealthResponse(clientStats: clientStats, classroom: configuration.classroom ? true : nil), request: request)
        }
        // Readiness, for a load balancer or an uptime probe: 503 within a second while the store cannot be reached.
        router.get(RouterPath(APIPath.ready)) { request, _ in
            guard let read = await Deadline.within(.seconds(1), { try await storage.setting(.clientStats) }) else {
                throw APIError.retryLater(
                    .serviceUnavailable,
                    code: .busy,
                    after: 2,
                    message: "The server cannot reach its database right now."
                )
            }
            known.update(read == "on")
            return try JSONBody.response(
                HealthResponse(status: "ready", clientStats: read == "on", classroom: configuration.classroom ? true : nil),
                request: request
            )
        }
        router.post(RouterPath(APIPath.token)) { request, context in
            let credentials = try await JSONBody.decode(TokenRequest.self, from: request, limit: 64 * 1024)
            try Identifiers.check([credentials.user])
            let outcome = try await signIn.attempt(
                name: credentials.user,
                password: SecretBytes(Array(credentials.password.utf8)),
                address: context.clientAddress,
                lifetime: configuration.tokenLifetime
            )
            return try Self.tokenReply(outcome, wrong: "The user name or password is not correct.", request: request)
        }
    }

    /// Signing in with a vault's key (issue 58): a challenge, then the challenge signed.
    func registerDeviceSignIn(on router: Router<VaultRequestContext>, receipts: ReceiptIssuer) {
        router.post(RouterPath(APIPath.challenge)) { request, _ in
            let body = try await JSONBody.decode(DeviceChallengeRequest.self, from: request, limit: 4 * 1024)
            try Identifiers.check([body.user])
            guard let issued = try await signIn.challenge(for: body.user) else {
                throw APIError.retryLater(
                    .tooManyRequests,
                    code: .busy,
                    after: 10,
                    message: "Too many sign-ins are in progress. Try again in a few seconds."
                )
            }
            return try JSONBody.response(
                DeviceChallengeResponse(challenge: issued.challenge, expiresAt: Timestamp.string(issued.expires)),
                request: request
            )
        }
        router.post(RouterPath(APIPath.deviceToken)) { request, context in
            let body = try await JSONBody.decode(DeviceTokenRequest.self, from: request, limit: 8 * 1024)
            try Identifiers.check([body.user])
            let fingerprint = try await receipts.identity().publicKey.fingerprint
            return try Self.tokenReply(
                try await signIn.deviceAttempt(
                    body,
                    serverFingerprint: fingerprint,
                    address: context.clientAddress,
                    lifetime: configuration.tokenLifetime
                ),
                wrong: configuration.classroom
                    ? "This vault's key does not sign in to this classroom: a vault that never signed in at the district signs in here once with the class code from the teacher (`vault login --class-code`)."
                    : "This vault's key does not sign in here: it is not registered to that user, or the challenge was used or expired.",
                request: request
            )
        }
    }

    /// A classroom's first sign-in of a vault that never had a network: a one-time class code (issue 58).
    func registerEnrolment(on router: Router<VaultRequestContext>, receipts: ReceiptIssuer) {
        router.post(RouterPath(APIPath.enrol)) { request, context in
            let body = try await JSONBody.decode(ClassEnrolRequest.self, from: request, limit: 8 * 1024)
            try Identifiers.check([body.user])
            let fingerprint = try await receipts.identity().publicKey.fingerprint
            return try Self.tokenReply(
                try await signIn.enrolAttempt(
                    body,
                    serverFingerprint: fingerprint,
                    address: context.clientAddress,
                    lifetime: configuration.tokenLifetime
                ),
                wrong: "This class code does not sign in that student: check the name and the code, or ask the teacher for a new one.",
                request: request
            )
        }
    }

    /// What a sign-in answers, whichever way it was tried (a password, a vault key, a class code): the token, or why
    /// not (`wrong`: the way's own sentence, never which part was wrong).
    static func tokenReply(_ outcome: SignIn<Storage, C>.Outcome, wrong: String, request: Request) throws -> Response {
        switch outcome {
        case .throttled(let wait): throw APIError.tooManySignIns(wait)
        case .wrong, .notAllowed: throw APIError(.unauthorized, code: .invalidCredentials, message: wrong)
        case .disabled: throw APIError.accountDisabled
        case .signedIn(let user, let token, let expires, _):
            return try JSONBody.response(TokenResponse(token: token, expiresAt: Timestamp.string(expires), role: user.role), request: request)
        }
    }

    func registerAuthenticated(on group: RouterGroup<VaultRequestContext>) {
        group.post("device-keys") { request, context in
            let user = try context.user ?? { throw APIError.unauthorized }()
            let body = try await JSONBody.decode(DeviceKeyRequest.self, from: request, limit: 4 * 1024)
            guard let raw = Data(base64Encoded: body.publicKey), raw.count == 32 else {
                throw APIError.badRequest("public_key must be a raw 32-byte Ed25519 key in base64.")
            }
            let fingerprint = DeviceKey.fingerprint(publicKey: body.publicKey)
            guard try await storage.registerDeviceKey(user: user, publicKey: body.publicKey, origin: .signIn, detail: nil, now: configuration.now())
            else {
                throw APIError(.conflict, code: .keyTaken, message: "This device key belongs to another account.")
            }
            return try JSONBody.response(DeviceKeyResponse(fingerprint: fingerprint), status: .created, request: request)
        }
        group.delete("auth/token") { _, context in
            guard let hash = context.tokenHash else { throw APIError.unauthorized }
            try await storage.revokeToken(hash: hash)
            return Response(status: .noContent)
        }
    }
}

/// The school's client-stats setting as last read: health says it whatever the store does now.
final class KnownSetting: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    /// `read` when there is one (kept), else the last known value.
    @discardableResult
    func update(_ read: Bool?) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let read { value = read }
        return value
    }
}

/// A store's answer within a deadline, or nil: the caller answers at once, while the store call (which may not
/// notice cancellation, a pool waiting for a connection) finishes in the background.
enum Deadline {
    static func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async -> T? {
        let once = Once<T?>()
        return await withCheckedContinuation { continuation in
            once.set(continuation)
            Task { once.resume(try? await body()) }
            Task {
                try? await Task.sleep(for: limit)
                once.resume(nil)
            }
        }
    }

    /// Resumes its continuation once, with the first value given.
    final class Once<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<Value, Never>?
        private var done = false

        func set(_ continuation: CheckedContinuation<Value, Never>) {
            lock.lock()
            defer { lock.unlock() }
            self.continuation = continuation
        }

        func resume(_ value: Value) {
            lock.lock()
            let waiting = done ? nil : continuation
            done = true
            continuation = nil
            lock.unlock()
            waiting?.resume(returning: value)
        }
    }
}

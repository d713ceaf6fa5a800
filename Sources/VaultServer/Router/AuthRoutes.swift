import Foundation
import Hummingbird
import VaultAPI
import VaultCore

/// `GET /v1/health`, `POST /v1/auth/token` (no token needed) and `DELETE /v1/auth/token` (revokes the one used).
struct AuthRoutes<Storage: ServerStorage, C: Clock>: Sendable where C.Duration == Duration {
    let storage: Storage
    let configuration: ServerConfiguration
    let hashing: PasswordHashingPool
    let throttle: LoginThrottle<C>

    func register(on router: Router<VaultRequestContext>) {
        router.get(RouterPath(APIPath.health)) { request, _ in
            try JSONBody.response(HealthResponse(), request: request)
        }
        router.post(RouterPath(APIPath.token)) { request, context in
            let credentials = try await JSONBody.decode(TokenRequest.self, from: request, limit: 64 * 1024)
            try Identifiers.check([credentials.user])
            let keys = Self.throttleKeys(user: credentials.user, address: context.clientAddress, configuration: configuration)
            if let wait = await throttle.begin(keys) { throw Self.throttled(wait) }
            let password = SecretBytes(Array(credentials.password.utf8))
            // Unknown names run the same derivation against a dummy record: the time does not tell names apart.
            let record = credentials.user.count <= 200 ? try await storage.user(named: credentials.user) : nil
            guard try await hashing.verify(password, against: record), let user = record else {
                throw APIError(.unauthorized, code: .invalidCredentials, message: "The user name or password is not correct.")
            }
            await throttle.succeeded(keys)
            if user.iterations < hashing.iterations {
                try await storage.updatePassword(try await hashing.rehash(user, password: password))
            }
            let now = Date()
            try await storage.purgeExpiredTokens(now: now)
            let token = try PasswordHasher.newToken()
            let expires = now.addingTimeInterval(configuration.tokenLifetime)
            try await storage.storeToken(hash: PasswordHasher.tokenHash(token), user: user.name, expiresAt: expires)
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
            guard try await storage.registerDeviceKey(user: user, publicKey: body.publicKey, fingerprint: fingerprint, now: Date()) else {
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

    /// What a sign-in counts against, on the API and on the desk alike: the name and the client's address.
    static func throttleKeys(user: String, address: String, configuration: ServerConfiguration) -> [LoginThrottle<C>.Key] {
        [.user(user, free: configuration.freeLoginFailures), .address(address, free: configuration.freeLoginFailuresPerAddress)]
    }

    static func throttled(_ wait: Duration) -> APIError {
        let seconds = max(1, Int((wait / .seconds(1)).rounded(.up)))
        return .retryLater(
            .tooManyRequests,
            code: .tooManyAttempts,
            after: seconds,
            message: "Too many failed sign-ins. Wait \(seconds) seconds, then try again."
        )
    }
}

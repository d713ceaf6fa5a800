import Foundation
import HTTPTypes
import VaultAPI
import VaultCore

/// Signing in, for the API's token and the desk's session alike: the throttle on the name and the address, the
/// same derivation for an unknown name as for a known one (the time does not tell names apart), a stronger hash
/// kept after a sign-in with an old one, expired tokens purged, and a new token stored by its hash only.
struct SignIn<Storage: AccountStore, C: Clock>: Sendable where C.Duration == Duration {
    let storage: Storage
    let configuration: ServerConfiguration
    let hashing: PasswordHashingPool
    let throttle: LoginThrottle<C>

    enum Outcome: Sendable {
        /// Too many failures for this name or address: try again after the wait.
        case throttled(Duration)
        /// The name or the password is not correct (never which).
        case wrong
        /// The password is right, but this place is not for this user (a student at the desk); no token.
        case notAllowed
        /// The password is right, but the account is turned off; no token.
        case disabled
        case signedIn(UserRecord, token: String, expires: Date)
    }

    /// `allowed` decides, after the password, whether this user may sign in here.
    func attempt(
        name: String,
        password: SecretBytes,
        address: String,
        lifetime: TimeInterval,
        allowed: (UserRecord) -> Bool = { _ in true }
    ) async throws -> Outcome {
        let keys = Self.throttleKeys(user: name, address: address, configuration: configuration)
        if let wait = await throttle.begin(keys) { return .throttled(wait) }
        let record = name.count <= 200 ? try await storage.user(named: name) : nil
        guard try await hashing.verify(password, against: record), let user = record else { return .wrong }
        await throttle.succeeded(keys)
        guard !user.disabled else { return .disabled }
        guard allowed(user) else { return .notAllowed }
        if user.iterations < hashing.iterations {
            try await storage.updatePassword(try await hashing.rehash(user, password: password))
        }
        let now = configuration.now()
        try await storage.purgeExpiredTokens(now: now)
        let token = try PasswordHasher.newToken()
        let expires = now.addingTimeInterval(lifetime)
        try await storage.storeToken(hash: PasswordHasher.tokenHash(token), user: user.name, expiresAt: expires)
        return .signedIn(user, token: token, expires: expires)
    }

    /// What a sign-in counts against: the name and the client's address.
    static func throttleKeys(user: String, address: String, configuration: ServerConfiguration) -> [LoginThrottle<C>.Key] {
        [.user(user, free: configuration.freeLoginFailures), .address(address, free: configuration.freeLoginFailuresPerAddress)]
    }
}

extension APIError {
    /// What signing in to a turned-off account answers (after the right password only).
    static let accountDisabled = APIError(
        .forbidden,
        code: .accountDisabled,
        message: "This account is turned off. Ask your teacher to turn it on again."
    )

    /// What a throttled sign-in answers, on the API and (as its sentence and Retry-After) on the desk.
    static func tooManySignIns(_ wait: Duration) -> APIError {
        let seconds = max(1, Int(saturating: (wait / .seconds(1)).rounded(.up)))
        return .retryLater(
            .tooManyRequests,
            code: .tooManyAttempts,
            after: seconds,
            message: "Too many failed sign-ins. Wait \(seconds) seconds, then try again."
        )
    }
}

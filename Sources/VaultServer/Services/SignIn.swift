import Foundation
import HTTPTypes
import VaultAPI
import VaultCore

/// Signing in, for the API's token and the desk's session alike: the throttle on the name and the address, the
/// same derivation for an unknown name as for a known one (the time does not tell names apart), a stronger hash
/// kept after a sign-in with an old one, expired tokens purged, and a new token stored by its hash only.
struct SignIn<Storage: AccountStore & ResponseStore, C: Clock>: Sendable where C.Duration == Duration {
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
        /// `classroom`: the token is a classroom server's (its key's fingerprint), for its pulls and pushes only.
        case signedIn(UserRecord, token: String, expires: Date, classroom: String? = nil)
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
        return try await issue(user, lifetime: lifetime)
    }

    /// A token for `user`, stored by its hash only (expired ones purged first); `classroom`: a classroom server's.
    private func issue(_ user: UserRecord, lifetime: TimeInterval, classroom: String? = nil) async throws -> Outcome {
        let now = configuration.now()
        try await storage.purgeExpiredTokens(now: now)
        let token = try PasswordHasher.newToken()
        let expires = now.addingTimeInterval(lifetime)
        try await storage.storeToken(hash: PasswordHasher.tokenHash(token), user: user.name, expiresAt: expires, classroom: classroom)
        return .signedIn(user, token: token, expires: expires, classroom: classroom)
    }

    /// A one-time challenge for `name` (any name gets one: whether the account exists is not told); nil when too many
    /// are open at once.
    func challenge(for name: String) async throws -> (challenge: String, expires: Date)? {
        let now = configuration.now()
        let challenge = Data(try CryptoRandom.bytes(32)).base64EncodedString()
        let expires = now.addingTimeInterval(DeviceSignIn.lifetime)
        guard try await storage.createChallenge(challenge, user: String(name.prefix(200)), expiresAt: expires, now: now) else { return nil }
        return (challenge, expires)
    }

    /// Signing in with a vault's key (issue 58): the challenge taken once, the key registered to the user and not
    /// revoked, its signature over this server's statement. A classroom server's key (issue 69) gets a classroom's
    /// token, never the teacher's, and only while its teacher still teaches. Counted by the throttle as a password is
    /// (a failure until it succeeds).
    func deviceAttempt(_ request: DeviceTokenRequest, serverFingerprint: String, address: String, lifetime: TimeInterval) async throws -> Outcome {
        var classroom: String?
        let check: () async throws -> UserRecord? = {
            guard request.user.count <= 200, try await storage.takeChallenge(request.challenge, user: request.user, now: configuration.now()),
                let user = try await storage.user(named: request.user),
                let key = try await storage.deviceKeyRecords(user: user.name).first(where: {
                    $0.publicKey == request.deviceKey && $0.revokedAt == nil
                }),
                key.origin != .classroomServer || user.role.teaches,
                DeviceKey.isValid(
                    signature: request.signature,
                    for: DeviceSignIn.statement(serverFingerprint: serverFingerprint, user: user.name, challenge: request.challenge),
                    publicKey: request.deviceKey
                )
            else { return nil }
            try await storage.noteDeviceKeyUsed(publicKey: request.deviceKey, now: configuration.now())
            classroom = key.origin == .classroomServer ? key.fingerprint : nil
            return user
        }
        return try await counted(request.user, address: address, lifetime: lifetime, classroom: { classroom }, check)
    }

    /// A first sign-in with a one-time class code (issue 58): the code, kept as its hash for this user, binds the
    /// vault's key (proved by its signature) the first time, and the key is registered to the student. Counted by
    /// the throttle as a password is.
    func enrolAttempt(_ request: ClassEnrolRequest, serverFingerprint: String, address: String, lifetime: TimeInterval) async throws -> Outcome {
        try await counted(request.user, address: address, lifetime: lifetime) {
            let code = ClassCode.normalized(request.code)
            guard request.user.count <= 200, code.count <= 64, let raw = Data(base64Encoded: request.deviceKey), raw.count == 32,
                DeviceKey.isValid(
                    signature: request.signature,
                    for: ClassCode.statement(serverFingerprint: serverFingerprint, user: request.user, code: code),
                    publicKey: request.deviceKey
                ),
                let user = try await storage.user(named: request.user), user.role == .student
            else { return nil }
            // A class code waits a few days (`classroom code --days`), then signs in nobody.
            let (_, scope) = try await storage.checkEnrolment(
                secretHash: StudentPackages.hash(Data(code.utf8)),
                user: user.name,
                deviceKey: request.deviceKey
            )
            guard scope?.expiresAt.map({ $0 > configuration.now() }) ?? true else { return nil }
            let claim = try await storage.claimEnrolment(
                secretHash: StudentPackages.hash(Data(code.utf8)),
                user: user.name,
                deviceKey: request.deviceKey,
                origin: .classCode,
                handedIn: nil,
                now: configuration.now()
            )
            return claim == .bound || claim == .sameDevice ? user : nil
        }
    }

    /// The desk's sign-in. On a classroom server a teacher pulled from the district has no password here: what they
    /// type is a one-time desk code (`vault-server classroom desk-code`), taken once; anyone else signs in with a
    /// password. Either way the throttle counts it and the answer to a wrong one is the same.
    func deskAttempt(name: String, secret: SecretBytes, address: String, lifetime: TimeInterval) async throws -> Outcome {
        let teaches: (UserRecord) -> Bool = { $0.role.teaches }
        guard configuration.classroom, name.count <= 200, let record = try await storage.user(named: name), record.passwordHash.isEmpty else {
            return try await attempt(name: name, password: secret, address: address, lifetime: lifetime, allowed: teaches)
        }
        return try await counted(name, address: address, lifetime: lifetime, allowed: teaches) {
            let code = ClassCode.normalized(secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
            guard code.count <= 64, try await storage.takeChallenge(DeskCode.kept(code), user: record.name, now: configuration.now()) else {
                return nil
            }
            return record
        }
    }

    /// A sign-in by something other than a password, counted by the throttle as a password is (a failure until
    /// `check` names the user it proved); then the account's state decides, and a token is issued.
    private func counted(
        _ name: String,
        address: String,
        lifetime: TimeInterval,
        allowed: (UserRecord) -> Bool = { _ in true },
        classroom: () -> String? = { nil },
        _ check: () async throws -> UserRecord?
    ) async throws -> Outcome {
        let keys = Self.throttleKeys(user: name, address: address, configuration: configuration)
        if let wait = await throttle.begin(keys) { return .throttled(wait) }
        guard let user = try await check() else { return .wrong }
        await throttle.succeeded(keys)
        guard !user.disabled else { return .disabled }
        guard allowed(user) else { return .notAllowed }
        return try await issue(user, lifetime: lifetime, classroom: classroom())
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

/// One-time desk codes for a classroom's teacher, who has no password there (issue 58): made on the laptop by
/// `vault-server classroom desk-code`, kept as their hash among the sign-in challenges until they expire.
public enum DeskCode {
    /// How long a code waits to be used.
    public static let lifetime: TimeInterval = 3600

    /// The form a code is kept in (its hash, marked apart from a vault's challenges).
    public static func kept(_ code: String) -> String { "desk:" + StudentPackages.hash(Data(ClassCode.normalized(code).utf8)) }

    /// A new code for `teacher`, usable once within `lifetime`.
    public static func make(for teacher: String, storage: some AccountStore, now: Date) async throws -> String? {
        let code = ClassCode.make(random: try CryptoRandom.bytes(12))
        guard try await storage.createChallenge(kept(code), user: teacher, expiresAt: now.addingTimeInterval(lifetime), now: now) else { return nil }
        return code
    }
}

import Foundation
import Hummingbird
import VaultAPI
import VaultCore

/// `GET /v1/health` and `POST /v1/auth/token`: the routes that need no token.
struct AuthRoutes<Storage: ServerStorage> {
    let storage: Storage
    let configuration: ServerConfiguration

    func register(on router: Router<VaultRequestContext>) {
        router.get(RouterPath(APIPath.health)) { request, _ in
            try JSONBody.response(HealthResponse(), request: request)
        }
        router.post(RouterPath(APIPath.token)) { request, _ in
            let credentials = try await JSONBody.decode(TokenRequest.self, from: request, limit: 64 * 1024)
            let password = SecretBytes(Array(credentials.password.utf8))
            guard credentials.user.count <= 200, let user = try await storage.user(named: credentials.user),
                PasswordHasher.verify(password, against: user)
            else {
                throw APIError(.unauthorized, code: "invalid_credentials", message: "The user name or password is not correct.")
            }
            let token = try PasswordHasher.newToken()
            let expires = Date().addingTimeInterval(configuration.tokenLifetime)
            try await storage.storeToken(hash: PasswordHasher.tokenHash(token), user: user.name, expiresAt: expires)
            return try JSONBody.response(TokenResponse(token: token, expiresAt: Timestamp.string(expires), role: user.role), request: request)
        }
    }
}

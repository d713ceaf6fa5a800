import Foundation
import Hummingbird

/// Resolves `Authorization: Bearer <token>` to a user; refuses the request with 401 otherwise.
struct BearerAuthenticator<Storage: AccountStore>: RouterMiddleware {
    typealias Context = VaultRequestContext
    let storage: Storage
    /// The server's clock (`ServerConfiguration.now`): a token expires by it.
    let now: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { throw APIError.unauthorized }
        let token = String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        let hash = PasswordHasher.tokenHash(token)
        guard token.count <= 200, let owner = try await storage.tokenOwner(hash: hash, now: now()) else {
            throw APIError.unauthorized
        }
        var context = context
        context.tokenHash = hash
        context.user = owner.user
        context.role = owner.role
        return try await next(request, context)
    }
}

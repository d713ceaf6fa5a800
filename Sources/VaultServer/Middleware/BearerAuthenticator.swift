import Foundation
import Hummingbird
import VaultAPI

/// Resolves `Authorization: Bearer <token>` to a user; refuses the request with 401 otherwise. A classroom server's
/// token (issue 69) reaches the classroom routes and its own sign-out only: it never acts as its teacher.
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
        if owner.classroom != nil, !Self.classroomMay(request) { throw APIError.classroomOnly }
        var context = context
        context.tokenHash = hash
        context.user = owner.user
        context.role = owner.role
        context.classroom = owner.classroom
        return try await next(request, context)
    }

    /// What a classroom server's token may ask for: the district's classroom routes and signing itself out.
    static func classroomMay(_ request: Request) -> Bool {
        let path = request.uri.path
        return path.hasPrefix("/v1/classroom/") || (request.method == .delete && path == APIPath.token)
    }
}

extension APIError {
    /// A classroom server's key asked for something other than its classroom's pulls and pushes.
    static let classroomOnly = APIError(
        .forbidden,
        code: .forbidden,
        message: "A classroom server's key only pulls and pushes for its classroom. Sign in as the teacher for anything else."
    )

    /// A classroom route asked with a person's token (issue 69): only a classroom server's own key pulls and pushes.
    static let classroomKeyNeeded = APIError(
        .forbidden,
        code: .forbidden,
        message: "Only a classroom server pulls and pushes here, signed in with its own key: run `vault-server classroom init` on the laptop."
    )
}

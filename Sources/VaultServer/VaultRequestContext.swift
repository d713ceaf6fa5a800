import Hummingbird
import NIOCore
import VaultAPI
import VaultRules

/// The request context: Hummingbird's core storage, the client's address and the authenticated user.
public struct VaultRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var user: String?
    public var role: Role?
    /// For a classroom server's token (issue 69): the fingerprint of the classroom's key. Such a request reaches the
    /// classroom routes only.
    public var classroom: String?

    /// Who publishes through this request: the signed-in user with their role (an assessment they publish is theirs).
    public var publisher: Publisher? { user.flatMap { user in role.map { Publisher(name: user, role: $0) } } }
    /// The token the request was authenticated with (its hash), so `DELETE /v1/auth/token` revokes that one.
    public var tokenHash: String?
    /// The desk's session token (from its cookie), from which the forms' CSRF token is derived.
    public var deskToken: String?
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Bodies are read by `JSONBody` under the configured limit, not by Hummingbird's default 2 MB.
    public var maxUploadSize: Int { APIPath.maxRequestBytes }

    /// The client's IP address (no port), for throttling failed logins per address.
    var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }
}

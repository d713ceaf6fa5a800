import Hummingbird
import VaultAPI

/// The request context: Hummingbird's core storage plus the authenticated user.
public struct VaultRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var user: String?
    public var role: Role?

    public init(source: Source) {
        coreContext = .init(source: source)
    }

    /// Bodies are read by `JSONBody` under the configured limit, not by Hummingbird's default 2 MB.
    public var maxUploadSize: Int { 16 * 1024 * 1024 }
}

import Foundation
import VaultAPI

/// The runtime network model.
public enum ConnectivityState: String, Sendable, Codable {
    /// The server answers its health check.
    case online
    /// Hard offline: no connection can be made.
    case offline
    /// Soft offline: reachable, but failing or timing out.
    case degraded
    case unknown
}

/// Tells network-required commands whether the server can be reached. Injected so tests can drive every state.
public protocol ConnectivityMonitor: Sendable {
    func probe() async -> ConnectivityState
}

/// Asks the server's health endpoint, with short timeouts. With a base URL, a bare TCP connect goes first so
/// that a refused connection is told as offline at once.
public struct HealthProbe: ConnectivityMonitor {
    let client: ServerClient
    let baseURL: String?

    public init(transport: any HTTPTransport, baseURL: String? = nil) {
        client = ServerClient(transport: transport)
        self.baseURL = baseURL
    }

    public func probe() async -> ConnectivityState {
        if let baseURL, !TCPReachability.canConnect(to: baseURL) { return .offline }
        do {
            try await client.health()
            return .online
        } catch ServerError.offline {
            return .offline
        } catch {
            return .degraded
        }
    }
}

import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultModel
import VaultSync

/// What a network-required command uses: the HTTP transport (built only here), the typed client, and a
/// reachability check done first. Offline-capable commands never create one.
final class NetworkSession {
    let transport: AsyncHTTPTransport
    var client: ServerClient
    let vault: Vault

    init(vault: Vault, serverURL: String? = nil) throws {
        let account = try vault.account()
        let known = account.map(\.serverURL).flatMap { $0.isEmpty ? nil : $0 }
        guard let url = serverURL ?? known else {
            // A vault that only ever had packages (issue 71) knows a server's key but no address.
            if account != nil {
                throw VaultError(
                    .usage,
                    tr(
                        "This vault has no server to reach: its tests came from package files. Answer them offline, then `vault hand-in ID --out FILE` makes the file your teacher imports; `vault import FILE` adds a new package. To use a server too, run `vault login --server URL --user NAME`."
                    )
                )
            }
            throw VaultError(.notAllowed, tr("This vault is not signed in to a server yet. Run `vault login --server URL --user NAME`."))
        }
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
            throw VaultError(.usage, tr("{url} is not a server address such as http://127.0.0.1:8080.", ["url": url]))
        }
        self.vault = vault
        // A server that accepts and never answers is given up on after 10 s without a byte (each try of a request);
        // a slow download that keeps sending is not cut.
        transport = AsyncHTTPTransport(baseURL: url, readTimeout: .seconds(10))
        client = ServerClient(transport: transport, token: serverURL == nil ? account?.token : nil)
    }

    /// Checks the server first; offline says so in plain words (exit 69) and changes nothing else.
    func requireReachable() async throws {
        let state = await HealthProbe(transport: transport, baseURL: transport.baseURL).probe()
        try? vault.setMeta("connectivity", state.rawValue)
        switch state {
        case .online: return
        case .offline: throw ServerError.offline.vaultError
        case .degraded, .unknown: throw ServerError.degraded.vaultError
        }
    }

    /// Stops when the server presents keys other than the pinned ones (like SSH's "host key changed"); a vault
    /// signed in before keys were pinned pins them now (trust on first use).
    func verifyServerKey() async throws {
        let served = try await client.serverKey()
        guard let pinned = try vault.pinnedServerKey() else {
            try vault.pinServerKey(served, serverURL: transport.baseURL)
            return
        }
        guard pinned.key == served else { throw Self.keyChanged(pinned: pinned.key.fingerprint, served: served.fingerprint) }
    }

    static func keyChanged(pinned: String, served: String) -> VaultError {
        VaultError(
            .notAllowed,
            tr(
                "The server's key has changed since this vault first saw it (pinned {pinned}, now {served}). Someone may be pretending to be your school's server, so nothing was sent. If your teacher confirms the new key, run `vault login --accept-new-server-key`.",
                ["pinned": pinned, "served": served]
            )
        )
    }

    /// Maps a failure to the plain message; a 401 forgets the stored token so `status` reflects it.
    func translate(_ error: any Error) -> any Error {
        guard let serverError = error as? ServerError else { return error }
        if serverError == .signInExpired { try? vault.forgetToken() }
        if serverError == .offline { try? vault.setMeta("connectivity", ConnectivityState.offline.rawValue) }
        return serverError.vaultError
    }

    func close() async { await transport.shutdown() }

    /// Runs `body` with the session, always shutting the HTTP client down.
    /// `pinnedKey`: check the server's key against the pinned one first (every command but `login`, which pins).
    static func with<T>(
        vault: Vault,
        serverURL: String? = nil,
        reachable: Bool = true,
        pinnedKey: Bool = true,
        _ body: (NetworkSession) async throws -> T
    ) async throws -> T {
        let session = try NetworkSession(vault: vault, serverURL: serverURL)
        do {
            if reachable { try await session.requireReachable() }
            if reachable, pinnedKey { try await session.verifyServerKey() }
            let result = try await body(session)
            await session.close()
            return result
        } catch {
            await session.close()
            throw session.translate(error)
        }
    }
}

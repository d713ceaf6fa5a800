import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultCore
import VaultServer

/// Signing in with a vault's own key (issue 58): a one-time challenge, signed for this server by a key registered to
/// the user; no password sent. Both stores.
struct DeviceSignInTests {
    /// The challenge for `user`, signed by `key` for `fingerprint`, as a vault sends it.
    static func signed(_ api: APIClient, user: String, key: DeviceKey, fingerprint: String) async throws -> DeviceTokenRequest {
        let challenge = try await api.send(.post, APIPath.challenge, json: DeviceChallengeRequest(user: user)).decode(DeviceChallengeResponse.self)
        let statement = DeviceSignIn.statement(serverFingerprint: fingerprint, user: user, challenge: challenge.challenge)
        return DeviceTokenRequest(user: user, challenge: challenge.challenge, deviceKey: key.publicKey, signature: try key.signature(for: statement))
    }

    @Test(
        "a registered vault key signs in with no password; a replayed challenge, an unregistered key, another user's name, another server's fingerprint, an expired challenge are refused (401); a turned-off account 403",
        arguments: Backend.all
    )
    func deviceSignIn(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let key = DeviceKey()
            let password = try await api.token("student")
            #expect(
                try await api.send(.post, APIPath.deviceKeys, token: password, json: DeviceKeyRequest(publicKey: key.publicKey)).status == .created
            )
            let fingerprint = try await api.send(.get, APIPath.serverKey).decode(ServerKeyResponse.self).fingerprint

            let request = try await Self.signed(api, user: "student", key: key, fingerprint: fingerprint)
            let reply = try await api.send(.post, APIPath.deviceToken, json: request)
            #expect(reply.status == .ok, "\(reply.text)")
            let token = try reply.decode(TokenResponse.self)
            #expect(token.role == .student)
            #expect(try await api.send(.get, APIPath.assessments, token: token.token).status == .ok)
            // The same challenge twice: once only.
            #expect(try await api.send(.post, APIPath.deviceToken, json: request).status == .unauthorized)
            // A key never registered; the student's key claiming another student; a signature made for another server.
            #expect(
                try await api.send(
                    .post,
                    APIPath.deviceToken,
                    json: try await Self.signed(api, user: "student", key: DeviceKey(), fingerprint: fingerprint)
                ).status == .unauthorized
            )
            #expect(
                try await api.send(.post, APIPath.deviceToken, json: try await Self.signed(api, user: "student2", key: key, fingerprint: fingerprint))
                    .status == .unauthorized
            )
            #expect(
                try await api.send(.post, APIPath.deviceToken, json: try await Self.signed(api, user: "student", key: key, fingerprint: "0000-0000"))
                    .status == .unauthorized
            )
            // A challenge past its time.
            let past = Date().addingTimeInterval(-600)
            #expect(try await harness.storage.createChallenge("old-challenge", user: "student", expiresAt: past.addingTimeInterval(60), now: past))
            let statement = DeviceSignIn.statement(serverFingerprint: fingerprint, user: "student", challenge: "old-challenge")
            let expired = DeviceTokenRequest(
                user: "student",
                challenge: "old-challenge",
                deviceKey: key.publicKey,
                signature: try key.signature(for: statement)
            )
            #expect(try await api.send(.post, APIPath.deviceToken, json: expired).status == .unauthorized)
            // A turned-off account: the key is right, the account is not open.
            #expect(try await harness.storage.setDisabled(user: "student", disabled: true, now: Date()))
            #expect(
                try await api.send(.post, APIPath.deviceToken, json: try await Self.signed(api, user: "student", key: key, fingerprint: fingerprint))
                    .status == .forbidden
            )
        }
    }
}

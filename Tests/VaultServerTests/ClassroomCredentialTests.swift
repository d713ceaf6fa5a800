import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultCore
import VaultServer
import VaultTestSupport

/// A classroom's credential is a classroom's (issue 69): its key signs in for that classroom's pulls and pushes and
/// for nothing its teacher could do, a teacher's password token pulls and pushes nothing, and a revocation (by the
/// admin, a new password, an account turned off) ends the classroom within one request.
struct ClassroomCredentialTests {
    @Test(
        "a classroom's key gets a classroom's token: it pulls and pushes, never publishes, registers keys or opens the desk; a teacher's password token pushes no vouch; revoked, a new password or turned off, it stops at the next request",
        arguments: Backend.all
    )
    func classroomCredential(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            // A student registers no classroom.
            let student = try await api.token("student")
            let refused = try await api.send(.post, APIPath.classrooms, token: student, json: DeviceKeyRequest(publicKey: DeviceKey().publicKey))
            #expect(refused.status == .forbidden)

            let laptop = DeviceKey()
            let classroom = try await api.classroomToken("teacher", key: laptop)
            #expect(try await api.send(.get, APIPath.classroomPull, token: classroom).status == .ok)
            #expect(try await api.send(.get, APIPath.classroomResults, token: classroom).status == .ok)
            // Nothing a teacher does: publish, read the catalogue, register a key, another classroom, open the desk.
            var local = Fixtures.quiz()
            local.id = "by-a-thief"
            let put = try await api.publish(local, teacher: classroom)
            #expect(put.status == .forbidden && put.text.contains("only pulls and pushes"), "\(put.text)")
            #expect(try await api.send(.get, APIPath.assessments, token: classroom).status == .forbidden)
            let key = DeviceKeyRequest(publicKey: DeviceKey().publicKey)
            #expect(try await api.send(.post, APIPath.deviceKeys, token: classroom, json: key).status == .forbidden)
            #expect(try await api.send(.post, APIPath.classrooms, token: classroom, json: key).status == .forbidden)
            var desk = DeskBrowser(api: api)
            desk.cookies["vault_desk"] = classroom
            let page = try await desk.send(.get, "/desk")
            #expect(page.status != .ok && !page.text.contains("quiz-1"), "\(page.status)")
            // The teacher's own password token pulls and pushes nothing, so it vouches for nobody.
            let vouched = ClassroomPushRequest(
                classroom: "laptop",
                items: [],
                vouched: [ClassroomPushRequest.Vouch(user: "student", deviceKey: DeviceKey().publicKey)]
            )
            let teacherPush = try await api.send(.post, APIPath.classroomPush, token: teacher, json: vouched)
            #expect(teacherPush.status == .forbidden && teacherPush.text.contains("classroom init"), "\(teacherPush.text)")
            #expect(try await api.send(.get, APIPath.classroomPull, token: teacher).status == .forbidden)

            // Listed at the district with its teacher; revoked, the same token stops at once and the key signs in no more.
            let fingerprint = DeviceKey.fingerprint(publicKey: laptop.publicKey)
            #expect(try await harness.storage.classroomKeys().map(\.fingerprint) == [fingerprint])
            #expect(try await harness.storage.revokeDeviceKeys(user: "teacher", key: fingerprint, by: "admin", now: Date()) == 1)
            #expect(try await api.send(.get, APIPath.classroomPull, token: classroom).status == .unauthorized)
            let serverFingerprint = try await api.send(.get, APIPath.serverKey).decode(ServerKeyResponse.self).fingerprint
            func signIn(_ key: DeviceKey) async throws -> HTTPResponse.Status {
                let request = try await DeviceSignInTests.signed(api, user: "teacher", key: key, fingerprint: serverFingerprint)
                return try await api.send(.post, APIPath.deviceToken, json: request).status
            }
            #expect(try await signIn(laptop) == .unauthorized)
            #expect(try await harness.storage.classroomKeys().first?.revokedBy == "admin")

            // A new password revokes the teacher's classrooms.
            let second = DeviceKey()
            let secondToken = try await api.classroomToken("teacher", key: second)
            try await harness.storage.revokeTokens(user: "teacher", now: Date())
            #expect(try await api.send(.get, APIPath.classroomPull, token: secondToken).status == .unauthorized)
            #expect(try await signIn(second) == .unauthorized)
            // Turned off and on again: the classroom stays revoked.
            let third = DeviceKey()
            _ = try await api.classroomToken("teacher", key: third)
            #expect(try await harness.storage.setDisabled(user: "teacher", disabled: true, now: Date()))
            #expect(try await harness.storage.setDisabled(user: "teacher", disabled: false, now: Date()))
            #expect(try await signIn(third) == .unauthorized)
            let kept = try await harness.storage.classroomKeys()
            #expect(kept.count == 3 && kept.allSatisfy { $0.revokedAt != nil }, "\(kept)")
            #expect(kept.map(\.revokedBy) == ["admin", "a new password", "turning the account off"])
        }
    }
}

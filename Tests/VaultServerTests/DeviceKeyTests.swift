import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultCore
import VaultModel
import VaultRules
import VaultServer
import VaultTestSupport

/// Who speaks for a student (issue 68): device keys with an owner and a record, registered only with authority and
/// only after what they came with was taken, revoked at once.
struct DeviceKeyTests {
    /// An answer of `student` to quiz-1's q1, signed by `key`, as a classroom passes it on.
    static func pushed(_ served: Assessment, key: DeviceKey, user: String = "student", seq: Int = 1) throws -> ClassroomPushRequest.Item {
        var item = Fixtures.item(served, question: "q1", answer: .string("b"), attempt: "vouched-\(seq)")
        item.signature = try key.signature(for: AnswerSignature.statement(item))
        let body = String(decoding: try JSONEncoder().encode(item), as: UTF8.self)
        return ClassroomPushRequest.Item(seq: seq, kind: .answer, user: user, deviceKey: key.publicKey, body: body)
    }

    @Test(
        "a classroom's vouch registers a key only for a student of the pushing teacher and only once an item it signed is taken; junk, refused items and another teacher's students register nothing",
        arguments: Backend.all
    )
    func vouchesNeedAuthority(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.storage.createUser(
            try PasswordHasher.makeRecord(name: "lee", role: .teacher, password: SecretBytes(Array("lee-pw".utf8)), iterations: 1_000),
            now: Date()
        )
        try await harness.test { api in
            #expect(try await api.publish(Fixtures.quiz(), teacher: try await api.token("teacher")).status == .created)
            let served = try await api.served("quiz-1", token: try await api.token("student"))
            let teacher = try await api.classroomToken("teacher")
            let key = DeviceKey()
            let vouch = [ClassroomPushRequest.Vouch(user: "student", deviceKey: key.publicKey)]
            func push(_ items: [ClassroomPushRequest.Item], token: String) async throws -> [ClassroomPushResponse.Result] {
                let reply = try await api.send(
                    .post,
                    APIPath.classroomPush,
                    token: token,
                    json: ClassroomPushRequest(classroom: "laptop", items: items, vouched: vouch)
                )
                #expect(reply.status == .ok, "\(reply.text)")
                return try reply.decode(ClassroomPushResponse.self).results
            }
            // Junk beside the vouch: nothing taken, no key.
            let junk = ClassroomPushRequest.Item(seq: 1, kind: .answer, user: "student", deviceKey: key.publicKey, body: "{not json")
            #expect(try await push([junk], token: teacher).map(\.outcome) == [.refused])
            #expect(try await harness.storage.deviceKeyRecords(user: "student").isEmpty)
            // Another teacher (no assessment of theirs): the item is refused and the key registers nothing.
            let lee = try await api.classroomToken("lee")
            #expect(try await push([try Self.pushed(served, key: key)], token: lee).map(\.outcome) == [.refused])
            #expect(try await harness.storage.deviceKeyRecords(user: "student").isEmpty)
            // The student's own teacher: the answer is taken, and then the key is the student's, saying how it came.
            #expect(try await push([try Self.pushed(served, key: key, seq: 2)], token: teacher).map(\.outcome) == [.stored])
            let records = try await harness.storage.deviceKeyRecords(user: "student")
            #expect(records.count == 1 && records.first?.origin == .classroom && records.first?.detail?.contains("of teacher") == true, "\(records)")
            // The classroom named is the one whose key pushed, not the name the push gave itself.
            #expect(records.first?.detail?.contains("laptop") == false, "\(records)")
            // A key another student holds is never taken for this one.
            let theirs = DeviceKey()
            #expect(
                try await harness.storage.registerDeviceKey(user: "student2", publicKey: theirs.publicKey, origin: .signIn, detail: nil, now: Date())
            )
            let stolen = ClassroomPushRequest(
                classroom: "laptop",
                items: [try Self.pushed(served, key: theirs, seq: 3)],
                vouched: [ClassroomPushRequest.Vouch(user: "student", deviceKey: theirs.publicKey)]
            )
            let reply = try await api.send(.post, APIPath.classroomPush, token: teacher, json: stolen)
            #expect(try reply.decode(ClassroomPushResponse.self).results.map(\.outcome) == [.refused])
            #expect(try await harness.storage.deviceKeys(user: "student") == [key.publicKey])
        }
    }

    @Test(
        "revoking: a revoked key is not the student's any more (sign-in and classroom items refused), stays listed with who revoked it; only the student's own password sign-in takes it back",
        arguments: Backend.all
    )
    func revocation(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        let storage = harness.storage
        let one = DeviceKey()
        let two = DeviceKey()
        #expect(try await storage.registerDeviceKey(user: "student", publicKey: one.publicKey, origin: .signIn, detail: nil, now: Date()))
        #expect(try await storage.registerDeviceKey(user: "student", publicKey: two.publicKey, origin: .package, detail: "quiz-1", now: Date()))
        #expect(try await storage.deviceKeys(user: "student").count == 2)
        #expect(
            try await storage.revokeDeviceKeys(user: "student", key: DeviceKey.fingerprint(publicKey: two.publicKey), by: "teacher", now: Date()) == 1
        )
        #expect(try await storage.deviceKeys(user: "student") == [one.publicKey])
        let listed = try await storage.deviceKeyRecords(user: "student")
        #expect(
            listed.first { $0.publicKey == two.publicKey }.map { $0.revokedAt != nil && $0.revokedBy == "teacher" && $0.origin == .package } == true
        )
        // Revoked is revoked: no classroom vouch or package brings it back, and nobody else can take it.
        #expect(try await !storage.registerDeviceKey(user: "student", publicKey: two.publicKey, origin: .classroom, detail: nil, now: Date()))
        #expect(try await !storage.registerDeviceKey(user: "student2", publicKey: two.publicKey, origin: .signIn, detail: nil, now: Date()))
        #expect(try await !storage.registerableKey(two.publicKey, for: "student"))
        #expect(try await storage.deviceKeys(user: "student") == [one.publicKey])
        // The student's password sign-in from that vault takes it back.
        #expect(try await storage.registerDeviceKey(user: "student", publicKey: two.publicKey, origin: .signIn, detail: nil, now: Date()))
        #expect(try await storage.deviceKeys(user: "student").count == 2)
        #expect(try await storage.revokeDeviceKeys(user: "student", key: nil, by: "a new password", now: Date()) == 2)
        #expect(try await storage.deviceKeys(user: "student").isEmpty)
        #expect(try await storage.revokeDeviceKeys(user: "student", key: nil, by: "a new password", now: Date()) == 0)

        // A vault key signs in, its last use is kept; revoked, the next sign-in by it is refused.
        try await harness.test { api in
            let key = DeviceKey()
            #expect(try await storage.registerDeviceKey(user: "student", publicKey: key.publicKey, origin: .signIn, detail: nil, now: Date()))
            let fingerprint = try await api.send(.get, APIPath.serverKey).decode(ServerKeyResponse.self).fingerprint
            let first = try await DeviceSignInTests.signed(api, user: "student", key: key, fingerprint: fingerprint)
            #expect(try await api.send(.post, APIPath.deviceToken, json: first).status == .ok)
            #expect(try await storage.deviceKeyRecords(user: "student").first { $0.publicKey == key.publicKey }?.lastUsedAt != nil)
            #expect(try await storage.revokeDeviceKeys(user: "student", key: key.publicKey, by: "teacher", now: Date()) == 1)
            let second = try await DeviceSignInTests.signed(api, user: "student", key: key, fingerprint: fingerprint)
            #expect(try await api.send(.post, APIPath.deviceToken, json: second).status == .unauthorized)
        }
    }

    @Test("an enrolment covers its package's assessment and version, handed in before it expired; a package already expired is not made")
    func enrolmentScope() {
        let until = Date(timeIntervalSince1970: 1_800_000_000)
        let scope = EnrolmentScope(user: "ana", assessmentID: "quiz-1", version: 2, expiresAt: until)
        #expect(scope.covers(assessmentID: "quiz-1", version: 2, madeAt: until.addingTimeInterval(-60)))
        #expect(!scope.covers(assessmentID: "quiz-1", version: 1, madeAt: until.addingTimeInterval(-60)), "an old version")
        #expect(!scope.covers(assessmentID: "other", version: 2, madeAt: until.addingTimeInterval(-60)), "another assessment")
        #expect(!scope.covers(assessmentID: "quiz-1", version: 2, madeAt: until.addingTimeInterval(3600)), "after it expired")
        #expect(!EnrolmentScope(user: "ana", assessmentID: ClassCode.scope).covers(assessmentID: "quiz-1", version: 1, madeAt: nil), "a class code")
    }
}

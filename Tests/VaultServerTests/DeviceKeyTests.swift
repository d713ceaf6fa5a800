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

    @Test(
        "a hand-in made under a package that a new one replaced is kept apart (issue 68): not the student's row, score, attempt count or results; the desk offers Accept and Discard, each asked first, and Undo",
        arguments: Backend.all
    )
    func keptApartHandIn(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let (_, student, served) = try await api.quizServed()
            let old = "old-package-secret-hash"
            let scope = EnrolmentScope(user: "student", assessmentID: "quiz-1", version: 1, expiresAt: Date().addingTimeInterval(86_400))
            try await harness.storage.createEnrolment(secretHash: old, scope: scope, now: Date())
            // The classmate's hand-in (a wrong answer) under the first package; its key binds to the student.
            let copied = [Fixtures.item(served, question: "q1", answer: .string("a"), attempt: "copied")]
            _ = try await api.batch(copied, token: student)
            #expect(try await api.handIn(copied, attempt: "copied", assessment: "quiz-1", token: student).status == .created)
            let key = DeviceKey()
            let claim = try await harness.storage.claimEnrolment(
                secretHash: old,
                user: "student",
                deviceKey: key.publicKey,
                origin: .package,
                handedIn: "copied",
                now: Date()
            )
            #expect(claim == .bound)
            let desk = TeacherDesk(storage: harness.storage, now: { Date() })
            #expect(try await desk.roster("quiz-1").students.first { $0.user == "student" }?.attemptId == "copied")

            // The teacher's new package: the copy's hand-in is kept apart from now on.
            try await harness.storage.replaceEnrolments(secretHash: "new-package-secret-hash", scope: scope, now: Date())
            func row() async throws -> Roster.Student? { try await desk.roster("quiz-1").students.first { $0.user == "student" } }
            var ana = try #require(try await row())
            #expect(ana.state != .handedIn && ana.attemptId == nil && ana.attempts == 0 && ana.score == nil, "\(ana)")
            #expect(ana.keptApart?.map(\.attemptId) == ["copied"] && ana.keptApart?.first?.decision == nil, "\(String(describing: ana.keptApart))")
            #expect(try await harness.storage.deviceKeyRecords(user: "student").first?.revokedBy == "a new package for quiz-1")

            // The student's own hand-in (the right answer) is theirs: one attempt allowed, and this is not a second.
            let own = [Fixtures.item(served, question: "q1", answer: .string("b"), attempt: "own")]
            _ = try await api.batch(own, token: student)
            #expect(try await api.handIn(own, attempt: "own", assessment: "quiz-1", token: student).status == .created)
            ana = try #require(try await row())
            #expect(ana.attemptId == "own" && ana.attempts == 1 && ana.score == 1 && !ana.flags.contains(.secondAttempt), "\(ana)")
            #expect(ana.keptApart?.count == 1)
            try await desk.release("quiz-1")
            let results = try await api.send(.get, APIPath.results, token: student)
            #expect(results.status == .ok && results.text.contains("\"own\"") && !results.text.contains("\"copied\""), "\(results.text)")

            // The desk: the row says so and offers Accept and Discard, each asked first.
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let page = try await browser.send(.get, "/desk/a/quiz-1")
            #expect(page.text.contains("Handed in by a device you revoked") && page.text.contains(">Discard</button>"), "\(page.text)")
            let csrf = try #require(DeskBrowser.hidden("csrf", in: page))
            let asked = try await browser.send(.post, "/desk/a/quiz-1/late", form: ["csrf": csrf, "attempt": "copied", "decision": "zeroed"])
            #expect(asked.status == .ok && asked.text.contains("Discard the hand-in a revoked device made as student?"), "\(asked.text)")
            #expect(try await row()?.keptApart?.first?.decision == nil, "asking changes nothing")
            let discarded = try await browser.send(
                .post,
                "/desk/a/quiz-1/late",
                form: ["csrf": csrf, "attempt": "copied", "decision": "zeroed", "confirm": "yes"]
            )
            #expect(discarded.status == .seeOther && discarded.headers[.location]?.contains("notice=apart_zeroed") == true)
            ana = try #require(try await row())
            #expect(ana.attemptId == "own" && ana.score == 1 && ana.keptApart?.first?.decision == .zeroed, "\(ana)")
            #expect(try await browser.send(.get, "/desk/a/quiz-1").text.contains("(discarded)"))
            // Undo, then Accept: it counts as an attempt of the student's (the latest still stands on the row).
            _ = try await browser.send(.post, "/desk/a/quiz-1/late", form: ["csrf": csrf, "attempt": "copied", "decision": "undecided"])
            #expect(try await row()?.keptApart?.first?.decision == nil)
            try await desk.decideLate("quiz-1", attempt: "copied", decision: .accepted, by: "teacher")
            ana = try #require(try await row())
            #expect(ana.keptApart == nil && ana.attempts == 2 && ana.attemptId == "own" && ana.flags.contains(.secondAttempt), "\(ana)")
            #expect(try await desk.analysis("quiz-1", attempts: .all).analysis.test.attempts == 2, "an accepted hand-in counts in the analysis")
        }
    }
}

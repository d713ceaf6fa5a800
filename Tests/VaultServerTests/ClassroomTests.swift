import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultCore
import VaultRules
import VaultServer
import VaultTestSupport

/// The second hop (issue 58), through both routers in one process: a district (either store) and a classroom server
/// (SQLite) that pulled from it. The district takes from the classroom only what the student's own vault key signed.
struct ClassroomTests {
    /// Answers to the quiz, each signed by `key` as a vault signs them when they go.
    static func signedAnswers(_ served: Assessment, key: DeviceKey, attempt: String = "attempt-1") throws -> [ResponseItem] {
        let answers: [(String, JSONValue)] = [
            ("q1", .string("b")), ("q2", .array([.string("a"), .string("c")])), ("q3", .bool(true)), ("q4", .number(3.14)),
            ("q5", .string("coefficient")), ("q6", .string("Add 3 to both sides.\nThen divide by 4: x = 3.")),
        ]
        return try answers.map { question, answer in
            var item = Fixtures.item(served, question: question, answer: answer, attempt: attempt)
            item.signature = try key.signature(for: AnswerSignature.statement(item))
            return item
        }
    }

    /// Sends `items` to the classroom as the student's vault does: one batch, naming the key that signed them.
    static func answer(_ classroom: APIClient, _ items: [ResponseItem], token: String, key: DeviceKey) async throws -> APIClient.Reply {
        try await classroom.send(.post, APIPath.batch, token: token, json: BatchRequest(responses: items, deviceKey: key.publicKey))
    }

    /// The quiz's hand-in of `attempt` as `storage` holds it.
    static func handedIn(
        _ storage: some ServerStorage,
        _ attempt: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ResultInput {
        try #require(try await storage.resultInputs(user: nil, assessmentID: "quiz-1", attemptIDs: [attempt]).first, sourceLocation: sourceLocation)
    }

    static func signedSubmission(
        _ items: [ResponseItem],
        key: DeviceKey,
        attempt: String = "attempt-1",
        submittedAt: String = "2026-11-20T10:10:00.000Z"
    ) throws -> SubmissionRequest {
        var request = SubmissionRequest(
            attemptId: attempt,
            assessmentId: "quiz-1",
            assessmentVersion: 1,
            submittedAt: submittedAt,
            responseIds: items.map(\.id)
        ).listing(items)
        request.deviceKey = key.publicKey
        request.signature = try key.signature(for: request.signedStatement())
        return request
    }

    /// A district with the quiz published by its teacher and `student`'s vault key registered; a classroom server
    /// that pulled it; the student signed in to the classroom with that key (no password).
    struct Setup {
        let district: ServerHarness
        let classroom: ServerHarness
        let key = DeviceKey()
    }

    static func setUp(_ backend: Backend) async throws -> Setup {
        let district = try await ServerHarness(backend)
        var classroom = try await ServerHarness(.sqlite)
        classroom.configuration.classroom = true
        return Setup(district: district, classroom: classroom)
    }

    /// What `classroom push` sends, made from the classroom's outbox (`change` may alter a body on the way).
    static func push(
        _ classroom: ServerHarness,
        to district: APIClient,
        token: String,
        change: (inout ClassroomPushRequest.Item) -> Void = { _ in }
    )
        async throws -> [ClassroomPushResponse.Result]
    {
        let waiting = try await classroom.storage.upstreamWaiting(limit: 500)
        var items = waiting.map {
            ClassroomPushRequest.Item(
                seq: $0.seq,
                kind: $0.kind,
                user: $0.user,
                deviceKey: $0.deviceKey,
                body: $0.body,
                heldAt: $0.keptAt.map(Timestamp.string)
            )
        }
        for index in items.indices { change(&items[index]) }
        let reply = try await district.send(.post, APIPath.classroomPush, token: token, json: ClassroomPushRequest(classroom: "test", items: items))
        #expect(reply.status == .ok, "\(reply.text)")
        let results = try reply.decode(ClassroomPushResponse.self).results
        try await classroom.storage.settleUpstream(results, now: Date())
        return results
    }

    /// Runs `body` with the district and the classroom routers, the class pulled and the student signed in to the
    /// classroom by their vault key.
    static func withClass(
        _ setup: Setup,
        _ body:
            @Sendable (_ district: APIClient, _ teacher: String, _ classroom: APIClient, _ student: String, _ served: Assessment) async throws ->
            Void
    ) async throws {
        try await setup.district.test { district in
            let teacher = try await district.token("teacher")
            #expect(try await district.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            let password = try await district.token("student")
            #expect(
                try await district.send(.post, APIPath.deviceKeys, token: password, json: DeviceKeyRequest(publicKey: setup.key.publicKey)).status
                    == .created
            )
            // A student must not pull a class, nor the teacher with their password (issue 69): only a classroom's key.
            #expect(try await district.send(.get, APIPath.classroomPull, token: password).status == .forbidden)
            #expect(try await district.send(.get, APIPath.classroomPull, token: teacher).status == .forbidden)
            let classroomToken = try await district.classroomToken("teacher")
            let pull = try await district.send(.get, APIPath.classroomPull, token: classroomToken).decode(ClassroomPull.self)
            try await setup.classroom.storage.importClass(pull, now: Date())
            try await setup.classroom.test { classroom in
                let fingerprint = try await classroom.send(.get, APIPath.serverKey).decode(ServerKeyResponse.self).fingerprint
                let signIn = try await DeviceSignInTests.signed(classroom, user: "student", key: setup.key, fingerprint: fingerprint)
                let reply = try await classroom.send(.post, APIPath.deviceToken, json: signIn)
                #expect(reply.status == .ok, "\(reply.text)")
                let student = try reply.decode(TokenResponse.self).token
                let served = try await classroom.served("quiz-1", token: student)
                try await body(district, classroomToken, classroom, student, served)
            }
        }
    }

    @Test(
        "a classroom pulls the class with no password or hash, serves the district's version byte for byte, and passes every signed answer and hand-in on exactly once, pushed twice",
        arguments: Backend.all
    )
    func pullServeAndPushTwice(backend: Backend) async throws {
        let setup = try await Self.setUp(backend)
        try await Self.withClass(setup) { district, teacher, classroom, student, served in
            // The class as pulled: the students with no password (nobody signs in to a classroom with one), the
            // district's version and content hash.
            let pulled = try #require(try await setup.classroom.storage.user(named: "student"))
            #expect(pulled.passwordHash.isEmpty && pulled.salt.isEmpty)
            // The teacher's local account of the same name too: the desk takes a desk code instead.
            #expect(try await setup.classroom.storage.user(named: "teacher")?.passwordHash.isEmpty == true)
            #expect(
                try await classroom.send(.post, APIPath.token, json: TokenRequest(user: "student", password: "student-pw")).status == .unauthorized
            )
            // A pull whose numbers are not this server's is refused whole, nothing written.
            var hostile = try await district.send(.get, APIPath.classroomPull, token: teacher).decode(ClassroomPull.self)
            hostile.extraTime = [ClassroomPull.ExtraTime(assessmentId: "quiz-1", user: "student", extraMinutes: 1_000_000_000_000)]
            await #expect(throws: StorageError.self) { try await setup.classroom.storage.importClass(hostile, now: Date()) }
            #expect(try await setup.classroom.storage.extraMinutes(assessmentID: "quiz-1", user: "student") == 0)
            let districtServed = try #require(try await setup.district.storage.served(id: "quiz-1"))
            let classroomServed = try #require(try await setup.classroom.storage.served(id: "quiz-1"))
            #expect(districtServed.bytes == classroomServed.bytes && districtServed.contentHash == classroomServed.contentHash)

            let items = try Self.signedAnswers(served, key: setup.key)
            let batch = try await Self.answer(classroom, items, token: student, key: setup.key)
            #expect(try batch.decode(BatchResponse.self).results.allSatisfy { $0.status == .accepted })
            let submission = try Self.signedSubmission(items, key: setup.key)
            #expect(try await classroom.send(.post, APIPath.submissions, token: student, json: submission).status == .created)
            var summary = try await setup.classroom.storage.upstreamSummary()
            #expect(summary.waitingAnswers == 6 && summary.waitingHandIns == 1)

            let first = try await Self.push(setup.classroom, to: district, token: teacher)
            // Six answers, the hand-in, and the student's download of the quiz here (the district's roster counts it).
            #expect(first.count == 8 && first.allSatisfy { $0.outcome == .stored }, "\(first)")
            // The district's receipt verifies against the district's key, and names the student's answers.
            let receipt = try #require(first.compactMap(\.receipt).first?.signed)
            let districtKey = try ServerPublicKey(try await district.send(.get, APIPath.serverKey).decode(ServerKeyResponse.self))
            let statement = try districtKey.verify(receipt)
            #expect(statement.user == "student" && Set(statement.responses.map(\.responseId)) == Set(items.map(\.id)))
            // The district's roster names the classroom the hand-in and the download came through (issue 69).
            let classroomID = try #require(try await setup.district.storage.classroomKeys().first?.fingerprint)
            let row = try #require(
                try await TeacherDesk(storage: setup.district.storage, now: { Date() }).roster("quiz-1").students.first { $0.user == "student" }
            )
            #expect(row.handedInThrough == classroomID && row.downloadedThrough == classroomID, "\(row)")
            #expect(row.stateText.hasSuffix(", through classroom \(classroomID.prefix(9))"), "\(row.stateText)")

            // Pushed again (a cut link before the classroom noted the district's word): the same once.
            try await setup.classroom.storage.keepForUpstream(
                [
                    UpstreamItem(
                        kind: .answer,
                        itemID: "again",
                        user: "student",
                        deviceKey: setup.key.publicKey,
                        body: String(decoding: try CanonicalJSON.encode(items[0]), as: UTF8.self)
                    )
                ],
                now: Date()
            )
            let again = try await Self.push(setup.classroom, to: district, token: teacher)
            #expect(again.count == 1 && again[0].outcome == .stored)
            let received = try #require(try await setup.district.storage.received(assessmentID: "quiz-1"))
            #expect(received.responses.count == 6 && received.submissions.count == 1)
            summary = try await setup.classroom.storage.upstreamSummary()
            #expect(summary.waitingAnswers == 0 && summary.storedAnswers == 7 && summary.storedHandIns == 1 && summary.refused.isEmpty)
        }
    }

    @Test(
        "an answer changed by the classroom, one signed by a key the district does not know, and an unsigned one are refused by the district and named; every other answer is stored",
        arguments: Backend.all
    )
    func changedAnswerRefused(backend: Backend) async throws {
        let setup = try await Self.setUp(backend)
        try await Self.withClass(setup) { district, teacher, classroom, student, served in
            let items = try Self.signedAnswers(served, key: setup.key)
            let batch = try await Self.answer(classroom, items, token: student, key: setup.key)
            #expect(batch.status == .ok)
            // A signature that does not match what arrived is refused by the classroom itself, nothing stored.
            var forged = Fixtures.item(served, question: "q5", answer: .string("forged"), attempt: "attempt-2")
            forged.signature = items[4].signature
            let refusedHere = try await Self.answer(classroom, [forged], token: student, key: setup.key)
            #expect(try refusedHere.decode(BatchResponse.self).results.map(\.status) == [.rejected])
            // Another vault of someone unknown to the district, and an answer with no signature (an older vault).
            let stranger = DeviceKey()
            var unsigned = Fixtures.item(served, question: "q1", answer: .string("a"), attempt: "attempt-3")
            unsigned.signature = nil
            try await setup.classroom.storage.keepForUpstream(
                [
                    UpstreamItem(
                        kind: .answer,
                        itemID: "stranger",
                        user: "student2",
                        deviceKey: stranger.publicKey,
                        body: String(
                            decoding: try CanonicalJSON.encode(try Self.signedAnswers(served, key: stranger, attempt: "attempt-9")[0]),
                            as: UTF8.self
                        )
                    ),
                    UpstreamItem(
                        kind: .answer,
                        itemID: unsigned.id,
                        user: "student",
                        deviceKey: setup.key.publicKey,
                        body: String(decoding: try CanonicalJSON.encode(unsigned), as: UTF8.self)
                    ),
                ],
                now: Date()
            )
            // The classroom changes the essay on its way up.
            let essay = items[5].id
            let results = try await Self.push(setup.classroom, to: district, token: teacher) { item in
                if item.body.contains(essay) { item.body = item.body.replacingOccurrences(of: "x = 3.", with: "x = 4.") }
            }
            // Five answers and the download of the quiz here.
            #expect(results.count { $0.outcome == .stored } == 6)
            let summary = try await setup.classroom.storage.upstreamSummary()
            #expect(Set(summary.refused.map(\.itemID)) == [essay, "stranger", unsigned.id])
            #expect(summary.refused.allSatisfy { !($0.message ?? "").isEmpty })
            #expect(summary.refused.first { $0.itemID == "stranger" }?.message?.contains("no vault registered") == true)
            let received = try #require(try await setup.district.storage.received(assessmentID: "quiz-1"))
            #expect(Set(received.responses.map(\.id)) == Set(items.dropLast().map(\.id)))
            #expect(!received.responses.contains { $0.id == essay })
        }
    }

    /// The classroom store linked to the district (what `classroom init` keeps), so the teacher's marks here are kept
    /// for it.
    static func link(_ setup: Setup, district: APIClient) async throws {
        let key = try await district.send(.get, APIPath.serverKey).decode(ServerKeyResponse.self)
        try await setup.classroom.storage.setClassroomLink(ClassroomLink(upstream: "http://district.invalid", teacher: "teacher", districtKey: key))
    }

    @Test(
        "a classroom cannot move time (issue 69): a hand-in it says it held in 2000 counts as reaching the district now, its receipt is never dated before the student made it",
        arguments: Backend.all
    )
    func heldAtBounded(backend: Backend) async throws {
        let setup = try await Self.setUp(backend)
        try await Self.withClass(setup) { district, teacher, classroom, student, served in
            let items = try Self.signedAnswers(served, key: setup.key)
            _ = try await Self.answer(classroom, items, token: student, key: setup.key)
            let madeAt = Timestamp.string(Date())
            let submission = try Self.signedSubmission(items, key: setup.key, submittedAt: madeAt)
            #expect(try await classroom.send(.post, APIPath.submissions, token: student, json: submission).status == .created)
            let before = Date()
            let results = try await Self.push(setup.classroom, to: district, token: teacher) { item in
                if item.kind == .submission { item.heldAt = "2000-01-01T00:00:00.000Z" }
            }
            let receipt = try #require(results.first { $0.receipt != nil }?.receipt, "\(results)")
            let received = try #require(Timestamp.date(receipt.receivedAt))
            #expect(received >= before.addingTimeInterval(-1), "received \(receipt.receivedAt), made \(madeAt)")
            // Within the bounds, the classroom's word stands: a week offline is not late.
            let weekAgo = Date().addingTimeInterval(-7 * 86_400)
            let old = try Self.signedSubmission(items, key: setup.key, submittedAt: Timestamp.string(weekAgo.addingTimeInterval(-60)))
            #expect(ClosingHandIn.heldTime(weekAgo, submission: old, now: Date()) == weekAgo)
            #expect(ClosingHandIn.heldTime(Date().addingTimeInterval(3600), submission: old, now: before) == before)
        }
    }

    @Test(
        "results come down and marks go up: points and feedback made on the classroom's desk reach the district; the district's release, points, feedback and taken-back feedback reach the classroom (what waits to go up stands); a hostile reply changes nothing",
        arguments: Backend.all
    )
    func resultsDownMarksUp(backend: Backend) async throws {
        let setup = try await Self.setUp(backend)
        try await Self.withClass(setup) { district, teacher, classroom, student, served in
            try await Self.link(setup, district: district)
            let items = try Self.signedAnswers(served, key: setup.key)
            _ = try await Self.answer(classroom, items, token: student, key: setup.key)
            #expect(
                try await classroom.send(.post, APIPath.submissions, token: student, json: Self.signedSubmission(items, key: setup.key)).status
                    == .created
            )
            #expect(try await Self.push(setup.classroom, to: district, token: teacher).allSatisfy { $0.outcome == .stored })

            // The teacher grades the essay on the classroom's desk: kept for the district, then taken there.
            let here = TeacherDesk(storage: setup.classroom.storage, now: { Date() })
            try await here.saveSheet("quiz-1", attempt: "attempt-1", points: ["q6": 0.5], feedback: ["q6": "Clear steps."])
            #expect(try await setup.classroom.storage.upstreamSummary().waitingMarks == 2)
            let marks = try await Self.push(setup.classroom, to: district, token: teacher)
            #expect(marks.count == 2 && marks.allSatisfy { $0.outcome == .stored }, "\(marks)")
            var atDistrict = try await Self.handedIn(setup.district.storage, "attempt-1")
            #expect(atDistrict.grades["q6"] == 0.5 && atDistrict.feedback["q6"] == "Clear steps.")

            // At the district: results released, q5 marked down with a word, then q6's feedback taken back.
            let there = TeacherDesk(storage: setup.district.storage, now: { Date() })
            try await there.release("quiz-1", by: "teacher")
            try await there.saveSheet("quiz-1", attempt: "attempt-1", points: ["q5": 0], feedback: ["q5": "Spelling.", "q6": ""])
            // The district's own desk keeps nothing for anyone (it has no link).
            #expect(try await setup.district.storage.upstreamSummary().waiting == 0)
            // Before the results come down the student sees none at the classroom.
            var seen = try await classroom.send(.get, APIPath.results, token: student).decode(ResultsResponse.self).results
            #expect(seen.first?.released != true)

            let results = try await district.send(.get, APIPath.classroomResults, token: teacher).decode(ClassroomResults.self)
            #expect(try await district.send(.get, APIPath.classroomResults, token: try await district.token("student")).status == .forbidden)
            let brought = try await setup.classroom.storage.importResults(results, now: Date())
            #expect(brought.released == 1 && brought.grades == 1 && brought.feedback == 2 && brought.skipped == 0, "\(brought)")
            var kept = try await Self.handedIn(setup.classroom.storage, "attempt-1")
            #expect(kept.grades["q5"] == 0 && kept.grades["q6"] == 0.5 && kept.feedback["q5"] == "Spelling." && kept.feedback["q6"] == nil)
            // What came down is not sent back up.
            #expect(try await setup.classroom.storage.upstreamSummary().waiting == 0)
            seen = try await classroom.send(.get, APIPath.results, token: student).decode(ResultsResponse.self).results
            let result = try #require(seen.first)
            #expect(result.released && result.questions.first { $0.questionId == "q5" }?.feedback == "Spelling.")
            // Brought down again: nothing changes.
            #expect(try await setup.classroom.storage.importResults(results, now: Date()).changed == 0)

            // The teacher changes q6 here and the district has not taken it yet: theirs stands.
            try await here.saveSheet("quiz-1", attempt: "attempt-1", points: ["q6": 1], feedback: [:])
            #expect(try await setup.classroom.storage.importResults(results, now: Date()).grades == 0)
            kept = try await Self.handedIn(setup.classroom.storage, "attempt-1")
            #expect(kept.grades["q6"] == 1)

            // Points the question cannot give are refused by the district, named; points from the district that are
            // not a number are refused whole by the classroom.
            let outOfRange = try await Self.push(setup.classroom, to: district, token: teacher) { item in
                item.body = item.body.replacingOccurrences(of: "\"points\":1", with: "\"points\":1000")
            }
            #expect(outOfRange.map(\.outcome) == [.refused] && outOfRange.first?.message?.contains("from 0 to 1") == true, "\(outOfRange)")
            atDistrict = try await Self.handedIn(setup.district.storage, "attempt-1")
            #expect(atDistrict.grades["q6"] == 0.5)
            var hostile = results
            hostile.grades = [ClassroomMark(assessmentId: "quiz-1", attemptId: "attempt-1", questionId: "q5", points: -1)]
            await #expect(throws: StorageError.self) { try await setup.classroom.storage.importResults(hostile, now: Date()) }
            hostile.grades = []
            hostile.late = [ClassroomResults.Late(attemptId: "attempt-1", decision: "maybe")]
            await #expect(throws: StorageError.self) { try await setup.classroom.storage.importResults(hostile, now: Date()) }
            kept = try await Self.handedIn(setup.classroom.storage, "attempt-1")
            #expect(kept.grades["q5"] == 0 && kept.grades["q6"] == 1)

            // Results hidden again on the classroom's desk are hidden at the district too.
            try await here.change("quiz-1", .hideResults, by: "teacher")
            #expect(try await Self.push(setup.classroom, to: district, token: teacher).map(\.outcome) == [.stored])
            atDistrict = try await Self.handedIn(setup.district.storage, "attempt-1")
            #expect(!atDistrict.released)
            #expect(try await setup.district.storage.actions(assessmentID: "quiz-1").last?.actor == "teacher on a classroom server")
        }
    }

    @Test(
        "one story on both desks (issue 69): a student who handed in straight to the district shows on the classroom's desk as handed in at the district once results come down, and not once results no longer name it; a reply with a hand-in that cannot be read changes nothing",
        arguments: Backend.all
    )
    func districtHandInsOnTheClassroomDesk(backend: Backend) async throws {
        let setup = try await Self.setUp(backend)
        try await Self.withClass(setup) { district, teacher, classroom, _, _ in
            try await Self.link(setup, district: district)
            #expect(try await DeskTests.handIn(district, student: "student2", attempt: "direct-1").status == .created)
            let here = TeacherDesk(storage: setup.classroom.storage, now: { Date() })
            #expect(try await here.roster("quiz-1").students.first { $0.user == "student2" }?.handedIn == false)
            var results = try await district.send(.get, APIPath.classroomResults, token: teacher).decode(ClassroomResults.self)
            #expect(results.held?.map(\.attemptId) == ["direct-1"], "\(String(describing: results.held))")
            var hostile = results
            hostile.held?[0].receivedAt = "yesterday"
            await #expect(throws: StorageError.self) { try await setup.classroom.storage.importResults(hostile, now: Date()) }
            _ = try await setup.classroom.storage.importResults(results, now: Date())
            let row = try #require(try await here.roster("quiz-1").students.first { $0.user == "student2" })
            #expect(row.state == .handedIn && row.atDistrict == true && row.attemptId == "direct-1", "\(row)")
            #expect(row.stateText.hasSuffix(", at the district"), "\(row.stateText)")
            var desk = DeskBrowser(api: classroom)
            let code = try #require(try await DeskCode.make(for: "teacher", storage: setup.classroom.storage, now: Date()))
            _ = try await desk.signIn("teacher", password: code)
            let page = try await desk.send(.get, "/desk/a/quiz-1?show=handed-in")
            #expect(
                page.text.contains(", at the district") && page.text.contains("Handed in (1)") && page.text.contains("data-user=\"student2\""),
                "\(page.text)"
            )
            // The next results without it (the district no longer counts it): not handed in here either.
            results.held = []
            _ = try await setup.classroom.storage.importResults(results, now: Date())
            #expect(try await here.roster("quiz-1").students.first { $0.user == "student2" }?.handedIn == false)
        }
    }

    @Test(
        "closings go both ways (issue 69): closed on the classroom's desk, the district closes too at the push; reopened at the district, the classroom reopens at the next pull; a reopening on the classroom not yet taken by the district is not undone by a pull",
        arguments: Backend.all
    )
    func closingsBothWays(backend: Backend) async throws {
        let setup = try await Self.setUp(backend)
        try await Self.withClass(setup) { district, teacher, _, _, _ in
            try await Self.link(setup, district: district)
            let here = TeacherDesk(storage: setup.classroom.storage, now: { Date() })
            let there = TeacherDesk(storage: setup.district.storage, now: { Date() })
            @Sendable func pull() async throws {
                let pulled = try await district.send(.get, APIPath.classroomPull, token: teacher).decode(ClassroomPull.self)
                try await setup.classroom.storage.importClass(pulled, now: Date())
            }
            _ = try await here.close("quiz-1", by: "teacher")
            #expect(try await there.consequences("quiz-1").closed == false)
            let pushed = try await Self.push(setup.classroom, to: district, token: teacher)
            // The student's download on the classroom goes up first, then the closing.
            #expect(pushed.map(\.outcome) == [.stored, .stored], "\(pushed)")
            // The district's roster names the classroom the download came through (issue 69).
            let classroomID = try #require(try await setup.district.storage.classroomKeys().first?.fingerprint)
            let row = try #require(try await there.roster("quiz-1").students.first { $0.user == "student" })
            #expect(row.downloadedThrough == classroomID && row.stateText.hasSuffix("through classroom \(classroomID.prefix(9))"), "\(row)")
            #expect(try await there.consequences("quiz-1").closed)
            #expect(try await setup.district.storage.actions(assessmentID: "quiz-1").last?.actor == "teacher on a classroom server")
            try await pull()
            #expect(try await here.consequences("quiz-1").closed)

            // Reopened at the district: the classroom follows at its next pull.
            try await there.change("quiz-1", .reopen, by: "teacher")
            try await pull()
            #expect(try await here.consequences("quiz-1").closed == false)

            // Closed at the district again, reopened on the classroom before its push: the pull keeps it open here
            // (the teacher's latest word), and the push reopens it at the district.
            _ = try await there.close("quiz-1", by: "teacher")
            try await pull()
            #expect(try await here.consequences("quiz-1").closed)
            try await here.change("quiz-1", .reopen, by: "teacher")
            try await pull()
            #expect(try await here.consequences("quiz-1").closed == false)
            #expect(try await Self.push(setup.classroom, to: district, token: teacher).map(\.outcome) == [.stored])
            #expect(try await there.consequences("quiz-1").closed == false)
        }
    }

    @Test(
        "the teacher signs in to a classroom's desk with a one-time desk code (no password there): a wrong one and the district's password are refused, the code works once, the desk shows what waits to go up, and neither the desk nor the API adds students or assessments there",
        arguments: Backend.all
    )
    func deskCode(backend: Backend) async throws {
        let setup = try await Self.setUp(backend)
        try await Self.withClass(setup) { district, _, classroom, _, _ in
            try await Self.link(setup, district: district)
            var desk = DeskBrowser(api: classroom)
            var later = DeskBrowser(api: classroom)
            let login = try await desk.send(.get, "/desk/login")
            #expect(login.text.contains("vault-server classroom desk-code"))
            #expect(try await desk.signIn("teacher", password: "teacher-pw").status == .unauthorized)
            let code = try #require(try await DeskCode.make(for: "teacher", storage: setup.classroom.storage, now: Date()))
            #expect(try await desk.signIn("teacher", password: "ABCD-EFGH-JKMN").status == .unauthorized)
            // Typed as a person would: small letters, spaces for dashes.
            let typed = code.lowercased().replacingOccurrences(of: "-", with: " ")
            let signedIn = try await desk.signIn("teacher", password: typed)
            #expect(signedIn.status == .seeOther && signedIn.headers[.location] == "/desk", "\(signedIn.text)")
            let page = try await desk.send(.get, "/desk")
            #expect(page.status == .ok && page.text.contains("Classroom") && page.text.contains("Waiting to go up: 0 answers"), "\(page.text)")
            // Students and assessments come from the district: the classroom's desk and API add neither.
            #expect(!page.text.contains("Publish a file") && !page.text.contains("Add students"))
            for path in ["/desk/publish", "/desk/students"] {
                let refused = try await desk.send(.get, path)
                #expect(refused.status == .forbidden && refused.text.contains("classroom pull"), "\(path): \(refused.text)")
            }
            // The teacher's API sign-in on the classroom: by a key registered to them there.
            let teacherKey = DeviceKey()
            #expect(
                try await setup.classroom.storage.registerDeviceKey(
                    user: "teacher",
                    publicKey: teacherKey.publicKey,
                    origin: .signIn,
                    detail: nil,
                    now: Date()
                )
            )
            let fingerprint = try await classroom.send(.get, APIPath.serverKey).decode(ServerKeyResponse.self).fingerprint
            let teacherSignIn = try await DeviceSignInTests.signed(classroom, user: "teacher", key: teacherKey, fingerprint: fingerprint)
            let teacherToken = try await classroom.send(.post, APIPath.deviceToken, json: teacherSignIn).decode(TokenResponse.self).token
            var local = Fixtures.quiz()
            local.id = "local-1"
            let put = try await classroom.send(.put, APIPath.assessment("local-1"), token: teacherToken, json: local)
            #expect(put.status == .forbidden && put.text.contains("publish at the district"))
            #expect(try await setup.classroom.storage.served(id: "local-1") == nil)
            #expect(try await later.signIn("teacher", password: code).status == .unauthorized)
            // The student has no desk code and no password here.
            #expect(try await later.signIn("student", password: code).status == .unauthorized)
            // A district (not a classroom) never takes a code for a password.
            let districtCode = try #require(try await DeskCode.make(for: "teacher", storage: setup.district.storage, now: Date()))
            var districtDesk = DeskBrowser(api: district)
            #expect(try await districtDesk.signIn("teacher", password: districtCode).status == .unauthorized)
        }
    }

    @Test(
        "a sealed exam is pulled with the district's sealing (one start code for the class on both servers); a pull whose sealing cannot be read is refused whole",
        arguments: Backend.all
    )
    func sealedPull(backend: Backend) async throws {
        let setup = try await Self.setUp(backend)
        try await Self.withClass(setup) { district, teacher, _, _, _ in
            var exam = SealedExamTests.sealedQuiz()
            exam.id = "sealed-1"
            #expect(try await district.publish(exam, teacher: try await district.token("teacher")).status == .created)
            // Nobody downloaded it at the district yet: the pull makes its sealing there, once.
            let pull = try await district.send(.get, APIPath.classroomPull, token: teacher).decode(ClassroomPull.self)
            let index = try #require(pull.assessments.firstIndex { $0.id == "sealed-1" })
            let material = try #require(try await setup.district.storage.sealing(assessmentID: "sealed-1", version: 1))
            #expect(pull.assessments[index].sealing?.startCode == material.startCode)
            #expect(pull.assessments.first { $0.id == "quiz-1" }?.sealing == nil)

            var hostile = pull
            hostile.assessments[index].sealing?.contentKey = Data(count: 7).base64EncodedString()
            await #expect(throws: StorageError.self) { try await setup.classroom.storage.importClass(hostile, now: Date()) }
            #expect(try await setup.classroom.storage.sealing(assessmentID: "sealed-1", version: 1) == nil)
            try await setup.classroom.storage.importClass(pull, now: Date())
            #expect(try await setup.classroom.storage.sealing(assessmentID: "sealed-1", version: 1) == material)
        }
    }

    @Test(
        "a hand-in that reached the classroom before the district closed is not late at the district, though pushed after closing; one that reached it after closing is, and the classroom teacher's decision on it goes up while the district's undoing comes down",
        arguments: Backend.all
    )
    func lateByTheClassroomsClock(backend: Backend) async throws {
        let setup = try await Self.setUp(backend)
        try await Self.withClass(setup) { district, teacher, classroom, student, served in
            let items = try Self.signedAnswers(served, key: setup.key)
            _ = try await Self.answer(classroom, items, token: student, key: setup.key)
            #expect(
                try await classroom.send(.post, APIPath.submissions, token: student, json: Self.signedSubmission(items, key: setup.key)).status
                    == .created
            )
            // The district closes the exam while the classroom cannot reach it; the class's push comes afterwards.
            try await TeacherDesk(storage: setup.district.storage, now: { Date() }).close("quiz-1", by: "teacher")
            #expect(try await Self.push(setup.classroom, to: district, token: teacher).allSatisfy { $0.outcome == .stored })
            let onTime = try await Self.handedIn(setup.district.storage, "attempt-1")
            #expect(!onTime.record.flags.contains(.afterClosing), "\(onTime.record.flags)")

            // A second attempt handed in at the classroom after the district's closing time (and the classroom's own:
            // its teacher closed it there too) is late at both.
            let here = TeacherDesk(storage: setup.classroom.storage, now: { Date() })
            _ = try await here.close("quiz-1", by: "teacher")
            let second = try Self.signedAnswers(served, key: setup.key, attempt: "attempt-2")
            _ = try await Self.answer(classroom, second, token: student, key: setup.key)
            #expect(
                try await classroom.send(
                    .post,
                    APIPath.submissions,
                    token: student,
                    // Handed in after closing: a hand-in made before it would be on time whenever it arrived.
                    json: Self.signedSubmission(second, key: setup.key, attempt: "attempt-2", submittedAt: Timestamp.string(Date()))
                )
                .status == .created
            )
            _ = try await Self.push(setup.classroom, to: district, token: teacher)
            let late = try await Self.handedIn(setup.district.storage, "attempt-2")
            #expect(late.record.flags.contains(.afterClosing), "\(late.record.flags)")

            // The classroom's teacher accepts it: the decision goes up; the district's undoing comes down.
            try await Self.link(setup, district: district)
            try await here.decideLate("quiz-1", attempt: "attempt-2", decision: .accepted, by: "teacher")
            #expect(try await Self.push(setup.classroom, to: district, token: teacher).map(\.outcome) == [.stored])
            let accepted = try await Self.handedIn(setup.district.storage, "attempt-2")
            #expect(accepted.record.lateDecision == .accepted)
            try await TeacherDesk(storage: setup.district.storage, now: { Date() }).decideLate(
                "quiz-1",
                attempt: "attempt-2",
                decision: nil,
                by: "teacher"
            )
            let results = try await district.send(.get, APIPath.classroomResults, token: teacher).decode(ClassroomResults.self)
            #expect(try await setup.classroom.storage.importResults(results, now: Date()).late == 1)
            let undone = try await Self.handedIn(setup.classroom.storage, "attempt-2")
            #expect(undone.record.lateDecision == nil)
        }
    }

    @Test(
        "the district closes between the push of the answers and the push of the hand-in the classroom held before closing: the student's own hand-in replaces the one the district made at closing, with the answer changed in between",
        arguments: Backend.all
    )
    func closingBetweenPushes(backend: Backend) async throws {
        let setup = try await Self.setUp(backend)
        try await Self.withClass(setup) { district, teacher, classroom, student, served in
            var items = try Self.signedAnswers(served, key: setup.key)
            _ = try await Self.answer(classroom, items, token: student, key: setup.key)
            _ = try await Self.push(setup.classroom, to: district, token: teacher)
            // The student changes q5 at the last minute and hands in at the classroom.
            var changed = Fixtures.item(served, question: "q5", answer: .string("constant"), attempt: "attempt-1")
            changed.answeredAt = "2026-11-20T10:09:00.000Z"
            changed.signature = try setup.key.signature(for: AnswerSignature.statement(changed))
            _ = try await Self.answer(classroom, [changed], token: student, key: setup.key)
            items[4] = changed
            let handIn = try Self.signedSubmission(items, key: setup.key)
            #expect(try await classroom.send(.post, APIPath.submissions, token: student, json: handIn).status == .created)
            // The district closes now and hands the attempt in with the answers it has.
            try await TeacherDesk(storage: setup.district.storage, now: { Date() }).close("quiz-1", by: "teacher")
            let closing = try await Self.handedIn(setup.district.storage, "attempt-1")
            #expect(closing.record.via == .closing && closing.answers["q5"] == .string("coefficient"))

            let results = try await Self.push(setup.classroom, to: district, token: teacher)
            #expect(results.allSatisfy { $0.outcome == .stored }, "\(results)")
            let own = try await Self.handedIn(setup.district.storage, "attempt-1")
            #expect(own.record.via == .sync && !own.record.flags.contains(.afterClosing), "\(own.record)")
            #expect(own.answers["q5"] == .string("constant"))
            // The district's receipt names the student's answers, the changed one among them.
            let receipt = try #require(results.last?.receipt)
            #expect(receipt.signed?.statement.contains(changed.id) == true && receipt.signed?.statement.contains("handed_in_at_closing") == false)
        }
    }

    @Test(
        "a held hand-in that the district then refuses (an answer it never got) leaves the attempt handed in at closing, as it was, never open",
        arguments: Backend.all
    )
    func closingHandInRestored(backend: Backend) async throws {
        let setup = try await Self.setUp(backend)
        try await Self.withClass(setup) { district, teacher, classroom, student, served in
            let items = try Self.signedAnswers(served, key: setup.key)
            _ = try await Self.answer(classroom, items, token: student, key: setup.key)
            _ = try await Self.push(setup.classroom, to: district, token: teacher)
            // A hand-in held before closing that lists an answer nobody sent (kept as it came).
            let phantom = try Self.signedAnswers(served, key: setup.key, attempt: "attempt-1")[0]
            let handIn = try Self.signedSubmission(items + [phantom], key: setup.key)
            try await setup.classroom.storage.keepForUpstream(
                [
                    UpstreamItem(
                        kind: .submission,
                        itemID: "attempt-1",
                        user: "student",
                        deviceKey: setup.key.publicKey,
                        body: String(decoding: try CanonicalJSON.encode(handIn), as: UTF8.self)
                    )
                ],
                now: Date()
            )
            try await TeacherDesk(storage: setup.district.storage, now: { Date() }).close("quiz-1", by: "teacher")
            let results = try await Self.push(setup.classroom, to: district, token: teacher)
            #expect(results.count == 1 && results.first?.outcome != .stored, "\(results)")
            let kept = try await Self.handedIn(setup.district.storage, "attempt-1")
            #expect(kept.record.via == .closing)
        }
    }
}

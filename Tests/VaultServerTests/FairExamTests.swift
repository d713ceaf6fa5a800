import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultCore
import VaultModel
import VaultRules
import VaultServer
import VaultTestSupport

/// Pools and each student's own order (issue 54): drawn once by the server, the same on every download, only the
/// student's questions served, answers to others refused, maxima of the drawn questions.
struct FairExamTests {
    /// Section "pool" gives 2 of 4 questions (1, 2, 3 and 4 points), shuffled; section "rest" is shuffled with a
    /// fixed first question, and a choice question whose last choice is fixed. Choices are shuffled everywhere.
    static func pooled(id: String = "fair-1") -> Assessment {
        func choice(_ id: String, points: Double, key: String = "b", texts: [String]? = nil) -> Question {
            let texts = texts ?? ["alpha \(id)", "beta \(id)", "gamma \(id)", "delta \(id)"]
            return Question(
                id: id,
                type: .singleChoice,
                prompt: "Pool question \(id): pick \(key)",
                points: points,
                choices: zip(["a", "b", "c", "d"], texts).map { Choice(id: $0, text: $1) },
                answerKey: [.string(key)]
            )
        }
        var fixedFirst = Question(id: "intro", type: .trueFalse, prompt: "The exam has begun.", answerKey: [.bool(true)])
        fixedFirst.fixed = true
        var noneLast = choice("c1", points: 1, key: "a")
        if case .singleChoice(var body) = noneLast.body {
            body.choices[3] = Choice(id: "d", text: "None of the above", fixed: true)
            noneLast.body = .singleChoice(body)
        }
        var assessment = Assessment(
            id: id,
            title: "A fair exam",
            questions: [
                choice("p1", points: 1), choice("p2", points: 2), choice("p3", points: 3), choice("p4", points: 4), fixedFirst, noneLast,
                Question(id: "e1", type: .essay, prompt: "Say why."),
            ]
        )
        assessment.results = .onSubmit
        assessment.shuffleChoices = true
        assessment.sections = [
            Section(id: "pool", title: "Pool", select: 2, shuffle: true, questions: ["p1", "p2", "p3", "p4"]),
            Section(id: "rest", title: "The rest", shuffle: true, questions: ["intro", "c1", "e1"]),
        ]
        return assessment
    }

    /// Student accounts with the harness's password rule (NAME-pw).
    static func addStudents(_ names: [String], to harness: ServerHarness) async throws {
        for name in names {
            try await harness.storage.createUser(
                PasswordHasher.makeRecord(name: name, role: .student, password: SecretBytes(Array("\(name)-pw".utf8)), iterations: 1_000),
                now: Date()
            )
        }
    }

    @Test(
        "12 students: each gets 2 of the pool and only their text, orders differ, the fixed question and choice never move, the same on every download",
        arguments: Backend.all
    )
    func eachStudentTheirOwn(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        let names = (1...12).map { "pupil\($0)" }
        try await Self.addStudents(names, to: harness)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Self.pooled(), teacher: teacher).status == .created)
            var orders = Set<[String]>()
            var choiceOrders = Set<[String]>()
            for name in names {
                let token = try await api.token(name)
                let raw = try await api.send(.get, APIPath.assessment("fair-1"), token: token)
                #expect(raw.status == .ok)
                let served = try raw.decode(Assessment.self)
                try ServedDocument.verify(served)
                try AssessmentValidator.validate(served, requireAnswerKeyAbsent: true)
                let ids = served.questions.map(\.id)
                let pool = ids.filter { $0.hasPrefix("p") }
                #expect(pool.count == 2 && ids.count == 5, "\(ids)")
                // The fixed question keeps its place: first of its section, right after the pool's two.
                #expect(ids[2] == "intro")
                let text = String(decoding: raw.body, as: UTF8.self)
                for undrawn in ["p1", "p2", "p3", "p4"] where !pool.contains(undrawn) {
                    #expect(!text.contains("Pool question \(undrawn)") && !text.contains("alpha \(undrawn)"), "\(name) got \(undrawn)")
                }
                #expect(!text.contains("\"select\"") && !text.contains("\"fixed\"") && !text.contains("shuffle"))
                let c1 = try #require(served.question("c1"))
                #expect(c1.body.choices.last?.id == "d", "None of the above stays last")
                orders.insert(ids)
                choiceOrders.insert(try #require(served.question(pool[0])).body.choices.map(\.id))
                // The same on a second download (another device, a re-download): same bytes, same hash.
                let again = try await api.send(.get, APIPath.assessment("fair-1"), token: token)
                #expect(again.body == raw.body)
                #expect(served.contentHash != nil && served.questions.allSatisfy { $0.hash != nil })
            }
            #expect(orders.count >= 3, "\(orders)")
            #expect(choiceOrders.count >= 3, "\(choiceOrders)")
            // The teacher still sees the whole document in the author's order.
            let whole = try await api.served("fair-1", token: teacher)
            #expect(whole.questions.count == 7)
        }
    }

    @Test(
        "answering by what was shown scores full points over the drawn questions' maximum; an answer to a question not drawn is refused and stored nowhere",
        arguments: Backend.all
    )
    func scoredByTheirQuestions(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            try await api.publish(Self.pooled(), teacher: teacher)
            let student = try await api.token("student")
            let served = try await api.served("fair-1", token: student)
            let pool = served.questions.map(\.id).filter { $0.hasPrefix("p") }
            let undrawn = try #require(["p1", "p2", "p3", "p4"].first { !pool.contains($0) })
            let crafted = Fixtures.item(served, question: undrawn, answer: .string("b"), attempt: "fair-a")
            let refused = try await api.batch([crafted], token: student)
            #expect(refused.map(\.status) == [.rejected])
            #expect(refused.first?.message?.contains("not given to you") == true)
            // The right choice by the letter shown: the student sees their own order, the wire carries the id.
            var items: [ResponseItem] = []
            for id in pool + ["c1"] {
                let question = try #require(served.question(id))
                let key = id == "c1" ? "a" : "b"
                let letter = try #require(question.body.choices.firstIndex { $0.id == key })
                items.append(Fixtures.item(served, question: id, answer: .string(question.body.choices[letter].id), attempt: "fair-a"))
            }
            items.append(Fixtures.item(served, question: "intro", answer: .bool(true), attempt: "fair-a"))
            #expect(try await api.batch(items, token: student).allSatisfy { $0.status == .accepted })
            let submission = SubmissionRequest(
                attemptId: "fair-a",
                assessmentId: "fair-1",
                assessmentVersion: served.version ?? 1,
                submittedAt: "2026-11-20T10:10:00.000Z",
                responseIds: items.map(\.id)
            ).listing(items)
            #expect(try await api.send(.post, APIPath.submissions, token: student, json: submission).status == .created)
            let result = try #require(try await api.send(.get, APIPath.results, token: student).decode(ResultsResponse.self).results.first)
            let drawnPoints = pool.map { Double($0.dropFirst())! }.reduce(0, +)
            // Drawn pool points, c1 (1), intro (1), the essay (1, left blank: 0, and nothing for the teacher to grade).
            #expect(result.maxScore == drawnPoints + 3)
            #expect(result.score == drawnPoints + 2 && result.pending == 0)
            #expect(Set(result.questions.map(\.questionId)) == Set(pool + ["intro", "c1", "e1"]))
            let received = try await api.send(.get, APIPath.responses("fair-1"), token: teacher)
            #expect(!String(decoding: received.body, as: UTF8.self).contains(crafted.id), "the refused answer is stored nowhere")
        }
    }

    @Test(
        "the teacher's side: item analysis counts only those who drew a question (drawn by N of M), the grading queue lists only them, the answer sheet gives the student's letters beside the source's",
        arguments: Backend.all
    )
    func teachersSide(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        let names = (1...6).map { "pupil\($0)" }
        try await Self.addStudents(names, to: harness)
        try await harness.test { api in
            var drawn: [String: [String]] = [:]
            var shownC1: [String: [String]] = [:]
            let teacher = try await api.token("teacher")
            var exam = Self.pooled()
            exam.questions.removeAll { $0.id == "e1" }
            exam.sections?[1].questions.removeAll { $0 == "e1" }
            try await api.publish(exam, teacher: teacher)
            for name in names {
                let token = try await api.token(name)
                let served = try await api.served("fair-1", token: token)
                drawn[name] = served.questions.map(\.id)
                shownC1[name] = try #require(served.question("c1")).body.choices.map(\.id)
                let items = served.questions.map { question in
                    Fixtures.item(
                        served,
                        question: question.id,
                        answer: question.type == .trueFalse ? .bool(true) : .string(question.id == "c1" ? "a" : "b"),
                        attempt: "\(name)-a"
                    )
                }
                _ = try await api.batch(items, token: token)
                let submission = SubmissionRequest(
                    attemptId: "\(name)-a",
                    assessmentId: "fair-1",
                    assessmentVersion: 1,
                    submittedAt: "2026-11-20T10:10:00.000Z",
                    responseIds: items.map(\.id)
                ).listing(items)
                #expect(try await api.send(.post, APIPath.submissions, token: token, json: submission).status == .created)
            }
            try await Self.checkDesk(harness.storage, drawn: drawn, shownC1: shownC1)
        }
    }

    /// The desk's figures over the class's draws (run while the store runs).
    static func checkDesk(_ storage: any ServerStorage, drawn: [String: [String]], shownC1: [String: [String]]) async throws {
        let desk = TeacherDesk(storage: storage, now: { Date() })
        let (_, analysis) = try await desk.analysis("fair-1")
        #expect(analysis.pooled && analysis.test.attempts == 6)
        for question in analysis.questions {
            let drawers = drawn.values.filter { $0.contains(question.id) }.count
            #expect(question.attempts == drawers, "\(question.id)")
        }
        let queue = try await desk.queue("fair-1", question: "p1")
        #expect(Set(queue.entries.map(\.user)) == Set(drawn.filter { $0.value.contains("p1") }.keys))
        // A student whose c1 choices moved: their letter beside the source's.
        if let (name, order) = shownC1.first(where: { $0.value.firstIndex(of: "a") != 0 }) {
            let sheet = try await desk.sheet("fair-1", user: name)
            let line = try #require(sheet.lines.first { $0.question.id == "c1" })
            let own = ["a", "b", "c", "d"][try #require(order.firstIndex(of: "a"))]
            #expect(line.answer?.contains("their \(own)) = a) in the source") == true, "\(line.answer ?? "")")
        }
    }

    @Test("a sealed exam with pools: the sealed document holds the student's own draw, opened by the start code", arguments: Backend.all)
    func sealedDraw(backend: Backend) async throws {
        var harness = try await ServerHarness(backend)
        harness.configuration.sealIterations = 1_000
        let exams = SealedExams(storage: harness.storage, receipts: ReceiptIssuer(storage: harness.storage), iterations: 1_000)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            var exam = Self.pooled()
            exam.sealed = true
            exam.opensAt = "2030-12-01T09:00:00.000Z"
            try await api.publish(exam, teacher: teacher)
            let student = try await api.token("student")
            let raw = try await api.send(.get, APIPath.assessment("fair-1"), token: student)
            for prompt in ["Pool question", "Say why", "alpha"] { #expect(!String(decoding: raw.body, as: UTF8.self).contains(prompt)) }
            let sealed = try raw.decode(Assessment.self)
            #expect(sealed.questions.isEmpty && sealed.questionCount == 5)
            let material = try await exams.material(id: "fair-1", version: 1)
            let wrapped = try #require(sealed.sealedContent?.wrappedKey)
            let opened = try Sealing.unseal(sealed, contentKey: try Sealing.unwrap(wrapped, code: material.startCode, id: "fair-1", version: 1))
            try ServedDocument.verify(opened)
            #expect(opened.questions.filter { $0.id.hasPrefix("p") }.count == 2 && opened.questions.count == 5)
            // The same draw again, and the same draw unsealed as when the document was not sealed.
            let again = try await api.send(.get, APIPath.assessment("fair-1"), token: student)
            let reopened = try Sealing.unseal(
                try again.decode(Assessment.self),
                contentKey: try Sealing.unwrap(wrapped, code: material.startCode, id: "fair-1", version: 1)
            )
            #expect(reopened.questions.map(\.id) == opened.questions.map(\.id))
        }
    }

    @Test("a document that says nothing of pools or shuffling is served byte for byte as before", arguments: Backend.all)
    func unshuffledUnchanged(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let student = try await api.token("student")
            let forStudent = try await api.send(.get, APIPath.assessment("quiz-1"), token: student)
            let published = try AssessmentPublisher.serve(Fixtures.quiz(), version: 1)
            #expect(forStudent.body == published.bytes)
        }
    }
}

struct DrawPlanTests {
    @Test("a later version keeps the student's questions and orders where it still has them, and draws only what is new")
    func laterVersionKeepsTheDraw() throws {
        let first = FairExamTests.pooled()
        let draw = DrawPlan.draw(first, seed: 42)
        #expect(DrawPlan.draw(first, seed: 42) == draw, "the same seed draws the same")
        var second = first
        // One drawn question leaves the pool; a new one comes in.
        let gone = try #require(draw.questions.first { $0.hasPrefix("p") })
        second.questions.removeAll { $0.id == gone }
        second.questions.append(Question(id: "p5", type: .numeric, prompt: "New", answerKey: [.number(1)]))
        second.sections?[0].questions = ["p1", "p2", "p3", "p4", "p5"].filter { $0 != gone }
        let kept = DrawPlan.draw(second, seed: 42, previous: draw)
        let stayed = draw.questions.filter { $0.hasPrefix("p") && $0 != gone }
        #expect(kept.questions.filter { $0.hasPrefix("p") }.count == 2)
        #expect(kept.questions.filter { $0.hasPrefix("p") }.first == stayed.first)
        for id in stayed { #expect(kept.lists[id] == draw.lists[id]) }
    }

    @Test("an ordering question is never shown in its right order; a fixed choice keeps its place; the hash is the author's")
    func orderingAndHash() throws {
        var assessment = Assessment(
            id: "ord",
            title: "Order",
            questions: [
                Question(
                    id: "o",
                    prompt: "Order them",
                    body: .ordering(.init(items: [Choice(id: "x", text: "1"), Choice(id: "y", text: "2")], answerKey: [.string("x"), .string("y")]))
                )
            ]
        )
        assessment.shuffleChoices = true
        for seed in Int64(1)...40 {
            let draw = DrawPlan.draw(assessment, seed: seed)
            #expect(draw.lists["o"]?["items"] == ["y", "x"])
        }
        let served = try AssessmentPublisher.serve(assessment, version: 1).document
        let own = try DrawPlan.apply(DrawPlan.draw(assessment, seed: 7), to: served)
        try ServedDocument.verify(own)
        #expect(own.questions[0].hash == served.questions[0].hash)
        #expect(own.questions[0].shownOrder == ["items": [1, 0]])
    }

    @Test(
        "regrading a pooled exam (issue 67): a key fixed in version 2 rescores exactly the students who drew that question and answered by the new key; a version 3 that drops a drawn question leaves those students as they were, said why",
        arguments: Backend.all
    )
    func regradeByWhatWasDrawn(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        let names = (1...8).map { "pupil\($0)" }
        try await FairExamTests.addStudents(names, to: harness)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            try await api.publish(FairExamTests.pooled(), teacher: teacher)
            // Every student answers c to each pool question they drew (wrong by version 1, where the key is b).
            var drew: [String: [String]] = [:]
            for name in names {
                let token = try await api.token(name)
                let served = try await api.served("fair-1", token: token)
                let pool = served.questions.map(\.id).filter { $0.hasPrefix("p") }
                drew[name] = pool
                let items = pool.map { Fixtures.item(served, question: $0, answer: .string("c"), attempt: "rg-\(name)") }
                #expect(try await api.batch(items, token: token).allSatisfy { $0.status == .accepted })
                #expect(try await api.handIn(items, attempt: "rg-\(name)", assessment: "fair-1", token: token).status == .created)
            }
            let desk = TeacherDesk(storage: harness.storage, now: { Date() })
            #expect(try await desk.scores("fair-1").values.allSatisfy { $0 == 0 })
            // The draws are random: the question fixed is one that some students drew and others did not.
            let pool = ["p1", "p2", "p3", "p4"]
            func drawers(_ question: String) -> [String] { names.filter { drew[$0]?.contains(question) == true }.sorted() }
            let target = try #require(pool.first { !drawers($0).isEmpty && drawers($0).count < names.count }, "\(drew)")
            let points = Double(target.dropFirst())!
            // Its key moves to c (in `document`, which keeps its place in the list).
            func keyedC(_ question: String, in document: inout Assessment) {
                guard let index = document.questions.firstIndex(where: { $0.id == question }) else { return }
                document.questions[index] = Question(
                    id: question,
                    type: .singleChoice,
                    prompt: "Pool question \(question): pick c",
                    points: Double(question.dropFirst())!,
                    choices: zip(["a", "b", "c", "d"], ["alpha", "beta", "gamma", "delta"].map { "\($0) \(question)" }).map {
                        Choice(id: $0, text: $1)
                    },
                    answerKey: [.string("c")]
                )
            }
            // Version 2: the target's key was wrong; c is right.
            var fixed = FairExamTests.pooled()
            keyedC(target, in: &fixed)
            #expect(try await api.publish(fixed, teacher: teacher).decode(PublishResponse.self).version == 2)
            let expected = drawers(target)
            let dry = try await desk.regrade("fair-1", dryRun: true)
            #expect(dry.skipped.isEmpty, "\(dry.skipped)")
            #expect(dry.changes.map(\.user) == expected, "\(dry.changes.map(\.user)) drew: \(drew)")
            #expect(dry.changes.allSatisfy { $0.old.score == 0 && $0.new.score == points && $0.new.maxScore == $0.old.maxScore })
            _ = try await desk.regrade("fair-1", dryRun: false)
            let after = try await desk.scores("fair-1")
            for name in names { #expect(after[name] == (expected.contains(name) ? points : 0), "\(name): \(after)") }
            // The student's released results follow the new key.
            try await desk.release("fair-1")
            if let first = expected.first {
                let results = try await api.send(.get, APIPath.results, token: try await api.token(first))
                #expect(results.status == .ok && results.text.contains("\"score\":\(AttemptResult.pointsText(points))"), "\(results.text)")
            }
            // Version 3 drops another pool question someone drew and fixes a third's key: those who drew the dropped
            // one stay as they were, said why; the others who drew the third are rescored.
            let others = pool.filter { $0 != target }
            let gone = try #require(others.first { !drawers($0).isEmpty }, "\(drew)")
            let rekeyed = try #require(others.first { $0 != gone })
            var dropped = fixed
            keyedC(rekeyed, in: &dropped)
            dropped.questions.removeAll { $0.id == gone }
            dropped.sections?[0].questions = pool.filter { $0 != gone }
            #expect(try await api.publish(dropped, teacher: teacher).decode(PublishResponse.self).version == 3)
            let third = try await desk.regrade("fair-1", dryRun: true)
            #expect(third.skipped.map(\.user) == drawers(gone), "\(third.skipped)")
            #expect(third.skipped.allSatisfy { $0.reason.contains(gone) })
            let rescored = drawers(rekeyed).filter { !drawers(gone).contains($0) }
            #expect(third.changes.map(\.user) == rescored, "\(third.changes.map(\.user)) drew: \(drew)")
        }
    }

    @Test("sections that cannot be drawn are refused in a sentence")
    func validation() {
        func problem(_ change: (inout Assessment) -> Void) -> String? {
            var assessment = FairExamTests.pooled()
            change(&assessment)
            do {
                try AssessmentValidator.validate(assessment)
                return nil
            } catch let problem as AssessmentValidator.Problem {
                return problem.message
            } catch {
                return "\(error)"
            }
        }
        #expect(problem { _ in } == nil)
        #expect(problem { $0.sections?[0].select = 5 }?.contains("selects 5 of its 4") == true)
        #expect(problem { $0.sections?[1].questions.append("p1") }?.contains("in two sections") == true)
        #expect(problem { $0.sections?[1].questions.append("zz") }?.contains("does not have") == true)
        #expect(problem { $0.sections?[1].questions.removeLast() }?.contains("is in no section") == true)
    }
}

import Foundation
import Testing
import VaultAPI
import VaultModel
import VaultRules
import VaultTestSupport

/// The per-item rules as pure functions.
struct ResponseRulesTests {
    static func served(prompt: String = "2x = 10") throws -> Assessment {
        try AssessmentPublisher.serve(Fixtures.quiz(q1Prompt: prompt), version: 1).document
    }

    @Test("one answer rule: what the client's parser refuses the server refuses too, the default text limits included")
    func oneAnswerRule() throws {
        let served = try Self.served()
        let essay = Question(id: "e", type: .essay, prompt: "Explain")
        let short = Question(id: "s", type: .shortText, prompt: "Name")
        let cases: [(Question, String, JSONValue)] = [
            (served.question("q2")!, "", .array([])),
            (short, "   ", .string("   ")),
            (short, String(repeating: "x", count: 1_001), .string(String(repeating: "x", count: 1_001))),
            (essay, String(repeating: "y", count: 20_001), .string(String(repeating: "y", count: 20_001))),
            (served.question("q1")!, "z", .string("z")),
        ]
        for (question, typed, value) in cases {
            #expect(throws: VaultError.self) { try AnswerParser.parse(typed, for: question) }
            #expect(AnswerRules.problem(with: value, for: question) != nil, "\(question.id) \(typed.prefix(10))")
        }
        // And what the parser produces, the server accepts.
        for (question, typed) in [(served.question("q2")!, "c,a"), (short, "Ada"), (essay, String(repeating: "y", count: 20_000))] {
            #expect(AnswerRules.problem(with: try AnswerParser.parse(typed, for: question), for: question) == nil)
        }
    }

    @Test("a question hash that does not match the answered version is rejected")
    func hashMismatch() throws {
        let v1 = try Self.served()
        var item = Fixtures.item(v1, question: "q1", answer: .string("b"))
        item.questionHash = "forged"
        #expect(ResponseRules.judge(item, answeredVersion: v1, current: v1).status == .rejected)
    }

    @Test("an unknown version or question is rejected; an unchanged question on an old version is accepted")
    func versions() throws {
        let v1 = try Self.served()
        var v2 = try AssessmentPublisher.serve(Fixtures.quiz(q1Prompt: "changed"), version: 2).document
        v2.version = 2
        let unchanged = Fixtures.item(v1, question: "q3", answer: .bool(true))
        #expect(ResponseRules.judge(unchanged, answeredVersion: v1, current: v2).status == .accepted)
        let changed = Fixtures.item(v1, question: "q1", answer: .string("a"))
        let result = ResponseRules.judge(changed, answeredVersion: v1, current: v2)
        #expect(result.status == .conflict && result.currentVersion == 2)
        #expect(ResponseRules.judge(changed, answeredVersion: nil, current: v2).status == .rejected)
    }

    @Test("answered_at parses with and without milliseconds")
    func times() {
        #expect(Timestamp.milliseconds("2026-11-20T10:00:00.250Z") == 1_795_168_800_250)
        #expect(Timestamp.milliseconds("2026-11-20T10:00:00Z") == 1_795_168_800_000)
        #expect(Timestamp.milliseconds("20/11/2026") == nil)
    }

    @Test("publishing: a served document carries version, hashes and no answer keys; a changed key alone keeps the hash")
    func publishing() throws {
        let served = try AssessmentPublisher.serve(Fixtures.quiz(), version: 3)
        #expect(served.document.version == 3)
        #expect(served.document.questions.allSatisfy { $0.hash?.count == 64 && $0.wire.answerKey == nil })
        var rekeyed = Fixtures.quiz()
        rekeyed.questions[0].wire.answerKey = [.string("a")]
        #expect(try AssessmentPublisher.serve(rekeyed, version: 3).contentHash == served.contentHash)
        #expect(try AssessmentPublisher.sourceBytes(rekeyed) != AssessmentPublisher.sourceBytes(Fixtures.quiz()))
    }
}

struct KeptScoreTests {
    @Test("a kept score is the attempt's result from the stored rows; a teacher's grade counts over the key; a zeroed late hand-in reads 0")
    func kept() throws {
        let source = try AssessmentPublisher.sourceBytes(Fixtures.quiz())
        let document = try JSONDecoder().decode(Assessment.self, from: source)
        let answers = [(questionID: "q1", answer: "\"b\""), (questionID: "q6", answer: "\"An essay.\"")]
        var record = SubmissionRecord(
            attemptID: "a",
            user: "s",
            assessmentID: "quiz-1",
            assessmentVersion: 1,
            submittedAt: "2026-11-20T10:10:00.000Z",
            forced: false,
            receiptID: "r",
            receivedAt: 0,
            responseCount: 2
        )
        for grades in [[], [(questionID: "q6", points: 1.5)], [(questionID: "q1", points: 0.0)]] {
            let kept = try #require(Scoring.kept(source: source, answers: answers, grades: grades))
            let computed = Scoring.totals(
                for: record,
                document: document,
                answers: Dictionary(
                    uniqueKeysWithValues: answers.compactMap { row in JSONReader.storedAnswer(row.answer).map { (row.questionID, $0) } }
                ),
                grades: Dictionary(uniqueKeysWithValues: grades.map { ($0.questionID, $0.points) })
            )
            #expect(kept == Scoring.Totals(score: computed.score, maxScore: computed.maxScore, pending: computed.pending), "\(grades)")
        }
        let graded = try #require(Scoring.kept(source: source, answers: answers, grades: [(questionID: "q6", points: 1.5)]))
        #expect(graded.score > 0 && graded.maxScore > graded.score)
        record.lateDecision = .zeroed
        #expect(graded.for(record) == Scoring.Totals(score: 0, maxScore: graded.maxScore, pending: 0))
        record.lateDecision = .accepted
        #expect(graded.for(record) == graded)
        #expect(Scoring.kept(source: Data("not a document".utf8), answers: answers, grades: []) == nil)
    }
}

/// What publishing into a taken id may do without --replace.
struct RevisionRuleTests {
    static func document(_ title: String, _ prompts: [String]) -> Assessment {
        Assessment(id: "x", title: title, questions: prompts.enumerated().map { Question(id: "q\($0.offset + 1)", type: .essay, prompt: $0.element) })
    }

    @Test("a revision keeps its title and at least half its questions (in any case and spacing); another file under the id is not one")
    func revision() {
        let existing = Self.document("Unit 1", ["What is 2+2?", "Name a planet.", "Why is the sky blue?"])
        #expect(AssessmentPublisher.isRevision(Self.document("unit 1", ["what is 2+2?", "Name a  planet.", "A new one?"]), of: existing))
        #expect(!AssessmentPublisher.isRevision(Self.document("Unit 1", ["Which is a planet?"]), of: existing))
        #expect(!AssessmentPublisher.isRevision(Self.document("Unit 2", ["What is 2+2?", "Name a planet.", "Why is the sky blue?"]), of: existing))
        // Our JSON names its own id: its title decides (questions may all change).
        #expect(AssessmentPublisher.isRevision(Self.document("Unit 1", ["Which is a planet?"]), of: existing, comparingQuestions: false))
        #expect(!AssessmentPublisher.isRevision(Self.document("Unit 2", ["What is 2+2?"]), of: existing, comparingQuestions: false))
        // A sealed document shows no questions: its title decides.
        #expect(AssessmentPublisher.isRevision(Self.document("Unit 1", ["Anything?"]), of: Self.document("Unit 1", [])))
    }
}

/// What a publish report says of how students get a document (issue 67).
struct DrawSummaryTests {
    @Test("a pool of uneven points, shuffled choices and a time limit are each said; a plain document says none of it")
    func saysDrawsShufflingAndTime() {
        func choice(_ id: String, points: Double) -> Question {
            Question(id: id, type: .singleChoice, prompt: id, points: points, choices: [Choice(id: "a", text: "x"), Choice(id: "b", text: "y")])
        }
        var exam = Assessment(
            id: "pooled",
            title: "Pooled",
            timeLimitSeconds: 1800,
            questions: [choice("p1", points: 1), choice("p2", points: 3), choice("p3", points: 2), choice("r1", points: 1), choice("r2", points: 1)]
        )
        exam.sections = [
            Section(id: "pool", title: "Pool", select: 2, shuffle: true, questions: ["p1", "p2", "p3"]),
            Section(id: "rest", questions: ["r1", "r2"]),
        ]
        exam.shuffleChoices = true
        #expect(exam.questionsPerStudent == 4)
        let lines = DrawSummary.lines(exam)
        #expect(
            lines.contains("Each student gets 4 of the 5 questions: Pool gives 2 of 3 in each student's own order; rest gives all 2."),
            "\(lines)"
        )
        #expect(lines.contains { $0.hasPrefix("Each student's maximum is 5 to 7 points") }, "\(lines)")
        #expect(lines.contains("Choices are shuffled for each student; each sees their own letters."))
        #expect(lines.contains("Time limit: 30 minutes from when each student starts."))
        let plain = Assessment(id: "plain", title: "Plain", questions: [choice("q1", points: 1)])
        #expect(DrawSummary.lines(plain).isEmpty && plain.questionsPerStudent == 1)
    }
}

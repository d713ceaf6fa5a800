import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import VaultAPI
import VaultCore
import VaultRules
import VaultTestSupport

@testable import VaultServer

/// The item analysis against Moodle's quiz statistics formulas, on a class whose figures are known: five students,
/// two one-point choice questions and a two-point essay.
///
///            q1  q2  q3  total
///     s1      1   1   2    4
///     s2      1   0   1    2
///     s3      0   1   2    3
///     s4      1   0   0    1
///     s5      0   0   1    1
///
/// Worked by hand from the definitions (x: the question's marks, X: the rest of the test, variances and covariances
/// over S - 1 = 4; Cmax pairs both sorted):
/// - q1: mean 0.6, facility 60 %; V(x) = 0.3, SD 54.77 %; X = 3,1,3,0,1, V(X) = 1.8, C(x, X) = -0.2,
///   discrimination -0.2 / √(0.3 × 1.8) = -27.22 %; Cmax = 0.55, efficiency -0.2 / 0.55 = -36.36 %.
/// - q2: facility 40 %, SD 54.77 %, X = 3,2,2,1,1, C = 0.35, V(X) = 0.7, discrimination 76.38 %, efficiency 100 %.
/// - q3: mean 1.2 of 2, facility 60 %, V(x) = 0.7, SD √0.7 / 2 = 41.83 %; X = 2,1,1,1,0, V(X) = 0.5, C = 0.25,
///   discrimination 42.26 %, Cmax = 0.5, efficiency 50 %.
/// - Test: totals 4,2,3,1,1: average 2.2, median 2, V(T) = 1.7, SD 1.3038; CIC = 100 × 3/2 × (1 - (0.3 + 0.3 +
///   0.7) / 1.7) = 35.29 %; error ratio 100 × √(1 - 0.3529) = 80.44 %; standard error 0.8044 × 1.3038 = 1.0488.
struct ItemAnalysisTests {
    static let document = Assessment(
        id: "stats-1",
        title: "Statistics",
        teacherContact: "t@school.example",
        questions: [
            Question(
                id: "q1",
                type: .singleChoice,
                prompt: "One",
                choices: [Choice(id: "a", text: "yes"), Choice(id: "b", text: "no")],
                answerKey: [.string("a")]
            ),
            Question(
                id: "q2",
                type: .singleChoice,
                prompt: "Two",
                choices: [Choice(id: "a", text: "yes"), Choice(id: "b", text: "no")],
                answerKey: [.string("a")]
            ),
            Question(id: "q3", type: .essay, prompt: "Explain", points: 2),
        ]
    )

    /// The class of the table: (student, q1 right, q2 right, essay points).
    static let marks: [(String, Bool, Bool, Double)] = [
        ("s1", true, true, 2), ("s2", true, false, 1), ("s3", false, true, 2), ("s4", true, false, 0), ("s5", false, false, 1),
    ]

    static func input(_ user: String, attempt: String, at: Double, q1: Bool, q2: Bool, essay: Double?, late: LateDecision? = nil) -> ResultInput {
        ResultInput(
            record: SubmissionRecord(
                attemptID: attempt,
                user: user,
                assessmentID: "stats-1",
                assessmentVersion: 1,
                submittedAt: "2026-11-20T10:00:00.000Z",
                forced: false,
                receiptID: "r-\(attempt)",
                receivedAt: at,
                responseCount: 3,
                lateDecision: late
            ),
            document: document,
            answers: ["q1": .string(q1 ? "a" : "b"), "q2": .string(q2 ? "a" : "b"), "q3": .string("Because.")],
            grades: essay.map { ["q3": $0] } ?? [:],
            released: false
        )
    }

    static var classInputs: [ResultInput] {
        marks.enumerated().map { index, row in input(row.0, attempt: "a-\(row.0)", at: 1_000 + Double(index), q1: row.1, q2: row.2, essay: row.3) }
    }

    static func near(_ value: Double?, _ expected: Double, within: Double = 0.005) -> Bool {
        guard let value else { return false }
        return abs(value - expected) < within
    }

    @Test("a pooled exam (issue 67): each question counts among those who drew it, a blank as wrong; never among those who did not draw it")
    func amongThoseWhoDrew() throws {
        var pooled = Self.document
        pooled.sections = [Section(id: "pool", select: 1, questions: ["q1", "q2"]), Section(id: "rest", questions: ["q3"])]
        // s1-s3 drew q1 (s3 left it blank), s4-s5 drew q2; everyone has the essay graded.
        let rows: [(String, String, JSONValue?)] = [
            ("s1", "q1", .string("a")), ("s2", "q1", .string("b")), ("s3", "q1", nil), ("s4", "q2", .string("a")), ("s5", "q2", .string("a")),
        ]
        let inputs = rows.enumerated().map { index, row in
            let draw = Draw(questions: [row.1, "q3"])
            var answers: [String: JSONValue] = ["q3": .string("Because.")]
            answers[row.1] = row.2
            var input = ResultInput(
                record: SubmissionRecord(
                    attemptID: "a-\(row.0)",
                    user: row.0,
                    assessmentID: "stats-1",
                    assessmentVersion: 1,
                    submittedAt: "2026-11-20T10:00:00.000Z",
                    forced: false,
                    receiptID: "r-\(row.0)",
                    receivedAt: 1_000 + Double(index),
                    responseCount: answers.count
                ),
                document: DrawPlan.asked(pooled, draw: draw),
                answers: answers,
                grades: ["q3": 1],
                released: false
            )
            input.draw = draw
            return input
        }
        let analysis = ItemAnalysis.analyse(inputs, document: pooled)
        let q1 = try #require(analysis.questions.first { $0.id == "q1" })
        let q2 = try #require(analysis.questions.first { $0.id == "q2" })
        #expect(q1.attempts == 3 && Self.near(q1.facility, 1.0 / 3), "drawn by 3, one right: \(q1)")
        #expect(q2.attempts == 2 && Self.near(q2.facility, 1), "\(q2)")
        #expect(analysis.questions.first { $0.id == "q3" }?.attempts == 5)
    }

    @Test("the item statistics match Moodle's formulas worked by hand on a class of five")
    func knownValues() throws {
        let analysis = ItemAnalysis.analyse(Self.classInputs, document: Self.document)
        #expect(analysis.test.attempts == 5 && analysis.test.maxPoints == 4)
        let q1 = analysis.questions[0]
        let q2 = analysis.questions[1]
        let q3 = analysis.questions[2]
        #expect(Self.near(q1.facility, 0.6) && Self.near(q1.standardDeviation, 0.547723, within: 1e-5), "\(q1)")
        #expect(Self.near(q1.discriminationIndex, -27.216553, within: 1e-4) && Self.near(q1.discriminativeEfficiency, -36.363636, within: 1e-4))
        #expect(q1.concerns == [.negativeDiscrimination])
        #expect(Self.near(q2.facility, 0.4) && Self.near(q2.discriminationIndex, 76.376262, within: 1e-4))
        #expect(Self.near(q2.discriminativeEfficiency, 100, within: 1e-6) && q2.concerns.isEmpty)
        #expect(Self.near(q3.facility, 0.6) && Self.near(q3.averagePoints, 1.2) && Self.near(q3.standardDeviation, 0.418330, within: 1e-5))
        #expect(Self.near(q3.discriminationIndex, 42.257713, within: 1e-4) && Self.near(q3.discriminativeEfficiency, 50, within: 1e-6))
        let test = analysis.test
        #expect(Self.near(test.average, 2.2, within: 1e-9) && test.median == 2)
        #expect(Self.near(test.standardDeviation, 1.303840, within: 1e-5))
        #expect(Self.near(test.internalConsistency, 35.294118, within: 1e-4), "\(test)")
        #expect(Self.near(test.errorRatio, 80.439967, within: 1e-4) && Self.near(test.standardError, 1.048809, within: 1e-5))
    }

    @Test("first attempts by default; every attempt on request; attempts not fully graded and late hand-ins given 0 are left out and counted")
    func whichAttempts() throws {
        var inputs = Self.classInputs
        // s1 tries again later and gets everything wrong; s6 waits for the essay's grade; s7 was late and given 0.
        inputs.append(Self.input("s1", attempt: "a-s1-again", at: 5_000, q1: false, q2: false, essay: 0))
        inputs.append(Self.input("s6", attempt: "a-s6", at: 1_010, q1: true, q2: true, essay: nil))
        inputs.append(Self.input("s7", attempt: "a-s7", at: 1_011, q1: true, q2: true, essay: 2, late: .zeroed))
        let first = ItemAnalysis.analyse(inputs.shuffled(), document: Self.document)
        #expect(first.test.attempts == 5 && first.waitingForGrading == 1 && first.zeroedLate == 1)
        #expect(Self.near(first.test.internalConsistency, 35.294118, within: 1e-4), "the same five first attempts")
        let all = ItemAnalysis.analyse(inputs, document: Self.document, attempts: .all)
        #expect(all.test.attempts == 6 && Self.near(all.test.average, 11.0 / 6, within: 1e-9))
        // Too few to say anything about spread: figures absent, never NaN.
        let two = ItemAnalysis.analyse(Array(Self.classInputs.prefix(2)), document: Self.document)
        #expect(two.test.internalConsistency == nil && two.test.standardDeviation != nil && two.questions.allSatisfy { $0.facility != nil })
        let none = ItemAnalysis.analyse([], document: Self.document)
        #expect(none.test.average == nil && none.questions.allSatisfy { $0.facility == nil && $0.attempts == 0 })
        // Everyone right: very easy, and no discrimination to speak of (no spread).
        let easy = ItemAnalysis.analyse(
            (1...4).map { Self.input("e\($0)", attempt: "e\($0)", at: Double($0), q1: true, q2: $0 % 2 == 0, essay: Double($0 % 3)) },
            document: Self.document
        )
        #expect(easy.questions[0].concerns == [.veryEasy] && easy.questions[0].discriminationIndex == nil)
    }

    @Test(
        "the desk's item-analysis page and file show the worked figures, through a real server; another teacher is told it does not exist",
        arguments: Backend.all
    )
    func deskPage(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        for (name, _, _, _) in Self.marks {
            try await harness.storage.createUser(
                PasswordHasher.makeRecord(name: name, role: .student, password: SecretBytes(Array("\(name)-pw".utf8)), iterations: 1_000),
                now: Date()
            )
        }
        try await harness.storage.createUser(
            PasswordHasher.makeRecord(name: "other", role: .teacher, password: SecretBytes(Array("other-pw".utf8)), iterations: 1_000),
            now: Date()
        )
        try await harness.test(.live) { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Self.document, teacher: teacher).status == .created)
            for (name, q1, q2, _) in Self.marks {
                let token = try await api.token(name)
                let served = try await api.served("stats-1", token: token)
                let attempt = "att-\(name)"
                let items = [
                    Fixtures.item(served, question: "q1", answer: .string(q1 ? "a" : "b"), attempt: attempt),
                    Fixtures.item(served, question: "q2", answer: .string(q2 ? "a" : "b"), attempt: attempt),
                    Fixtures.item(served, question: "q3", answer: .string("Because \(name)."), attempt: attempt),
                ]
                _ = try await api.batch(items, token: token)
                let submission = SubmissionRequest(
                    attemptId: attempt,
                    assessmentId: "stats-1",
                    assessmentVersion: served.version ?? 1,
                    submittedAt: "2026-11-20T10:10:00.000Z",
                    responseIds: items.map(\.id)
                ).listing(items)
                let handedIn = try await api.send(.post, APIPath.submissions, token: token, json: submission)
                #expect(handedIn.status == .created, "\(String(decoding: handedIn.body, as: UTF8.self))")
            }
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            // Before the essays are graded every attempt waits, and the page says so.
            var page = try await browser.send(.get, "/desk/a/stats-1/analysis")
            #expect(page.status == .ok && page.text.contains("5 attempts are left out until every answer is graded"), "\(page.text)")
            // The teacher grades the essays on the grading page, as a teacher would.
            let grading = try await browser.send(.get, "/desk/a/stats-1/grade?question=q3")
            let csrf = try #require(DeskBrowser.hidden("csrf", in: grading))
            var form = ["csrf": csrf, "question": "q3"]
            for (name, _, _, essay) in Self.marks { form["points:att-\(name)"] = AttemptResult.pointsText(essay) }
            #expect(try await browser.send(.post, "/desk/a/stats-1/grade", form: form).status == .seeOther)

            page = try await browser.send(.get, "/desk/a/stats-1/analysis")
            let text = page.text
            #expect(
                text.contains("5 attempts analysed (each student&#39;s first)") || text.contains("5 attempts analysed (each student's first)"),
                "\(text)"
            )
            // q1: facility 60 %, SD 54.8 %, discrimination -27.2 %, efficiency -36.4 %, marked for a second look.
            #expect(
                text.contains("<td class=\"facility\" data-label=\"Facility\">60.0 %</td><td data-label=\"Standard deviation\">54.8 %</td>"),
                "\(text)"
            )
            #expect(text.contains("-27.2 %") && text.contains("-36.4 %") && text.contains("check its key"))
            #expect(text.contains("76.4 %") && text.contains("42.3 %") && text.contains("41.8 %"))
            #expect(
                text.contains("2.20 of 4 (55.0 %)") && text.contains("1.30 of 4 (32.6 %)") && text.contains("2 of 4 (50.0 %)")
                    && text.contains("35.3 %") && text.contains("80.4 %"),
                "\(text)"
            )
            #expect(text.contains("1.05 points"))
            #expect(text.contains("class=\"flagged\" data-question=\"q1\"") && !text.contains("class=\"flagged\" data-question=\"q2\""))

            let file = try await browser.send(.get, "/desk/a/stats-1/analysis.csv")
            #expect(file.headers[.contentType] == "text/csv; charset=utf-8")
            let lines = file.text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(lines.count == 5 && lines[0].hasPrefix("\"question\",\"prompt\",\"max_points\""))
            #expect(lines[1] == "\"q1\",\"One\",1,5,0.6,,60,54.77,-27.22,-36.36,,,,\"negative_discrimination\"", "\(lines)")
            #expect(lines[4] == "\"(whole test)\",,4,5,2.2,2,,32.6,,,35.29,80.44,1.05,", "\(lines)")

            // Someone else's assessment does not exist for this teacher.
            var other = DeskBrowser(api: api)
            _ = try await other.signIn("other", password: "other-pw")
            #expect(try await other.send(.get, "/desk/a/stats-1/analysis").status == .notFound)
            #expect(try await other.send(.get, "/desk/a/stats-1/analysis.csv").status == .notFound)
        }
    }
}

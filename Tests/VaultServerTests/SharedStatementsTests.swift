import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultRules
import VaultServer
import VaultTestSupport

/// The statements both engines share, rendered by each engine's dialect and run on each engine.
struct SharedStatementsTests {
    @Test("PostgreSQL numbers its placeholders (none inside a quoted text); SQLite keeps them as written; booleans as each engine writes them")
    func placeholders() {
        let sql = "SELECT a FROM t WHERE x = ? AND y = '?' AND z IN (?, ?)"
        #expect(SQLDialect.postgres.render(sql) == "SELECT a FROM t WHERE x = $1 AND y = '?' AND z IN ($2, $3)")
        #expect(SQLDialect.sqlite.render(sql) == sql)
        // Booleans: SQLite stores 1 and 0.
        #expect(SQLDialect.sqlite.render("WHERE deleted = {false} OR open = {true}") == "WHERE deleted = 0 OR open = 1")
        #expect(SQLDialect.postgres.render("WHERE deleted = {false} OR open = {true}") == "WHERE deleted = FALSE OR open = TRUE")
        // A row lock where PostgreSQL needs one; SQLite's one writer needs none.
        #expect(SQLDialect.sqlite.render("SELECT id FROM t WHERE id = ? {forUpdate}") == "SELECT id FROM t WHERE id = ?")
        #expect(SQLDialect.postgres.render("SELECT id FROM t WHERE id = ? {forUpdate}") == "SELECT id FROM t WHERE id = $1 FOR UPDATE")
        // Anything else is kept as written, other scripts and braces included.
        let other = "SELECT x FROM t WHERE a = 'خواندن {?}' AND b = ? AND c = '{x}'"
        #expect(SQLDialect.postgres.render(other) == "SELECT x FROM t WHERE a = 'خواندن {?}' AND b = $1 AND c = '{x}'")
        #expect(SQLDialect.sqlite.render(other) == other)
    }

    @Test("an upsert is INSERT OR REPLACE on SQLite and ON CONFLICT … DO UPDATE of the other columns on PostgreSQL")
    func upserts() {
        let columns = ["assessment_id", "user_name", "extra_minutes"]
        let key = ["assessment_id", "user_name"]
        #expect(
            SQLDialect.sqlite.upsert(into: "accommodations", columns: columns, key: key)
                == "INSERT OR REPLACE INTO accommodations (assessment_id, user_name, extra_minutes) VALUES (?, ?, ?)"
        )
        #expect(
            SQLDialect.postgres.upsert(into: "accommodations", columns: columns, key: key)
                == "INSERT INTO accommodations (assessment_id, user_name, extra_minutes) VALUES (?, ?, ?) "
                + "ON CONFLICT (assessment_id, user_name) DO UPDATE SET extra_minutes = EXCLUDED.extra_minutes"
        )
    }

    @Test(
        "on both engines: the shared upsert replaces, the shared read prefers the assessment's own setting over every assessment's",
        arguments: Backend.all
    )
    func accommodations(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        let storage = harness.storage
        #expect(try await storage.extraMinutes(assessmentID: "quiz-1", user: "student") == 0)
        try await storage.setAccommodation(assessmentID: nil, user: "student", extraMinutes: 10)
        #expect(try await storage.extraMinutes(assessmentID: "quiz-1", user: "student") == 10)
        try await storage.setAccommodation(assessmentID: "quiz-1", user: "student", extraMinutes: 25)
        try await storage.setAccommodation(assessmentID: "quiz-1", user: "student", extraMinutes: 30)
        #expect(try await storage.extraMinutes(assessmentID: "quiz-1", user: "student") == 30)
        #expect(try await storage.extraMinutes(assessmentID: "quiz-2", user: "student") == 10)
        #expect(try await storage.user(named: "student")?.role == .student)
        #expect(try await storage.user(named: "nobody") == nil)
    }

    @Test(
        "on both engines: a roster of some users reads only theirs (none for an empty list); results of more than 500 attempt ids are read 500 at a time in one snapshot",
        arguments: Backend.all
    )
    func filtersAndChunks(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            #expect(try await DeskTests.handIn(api, student: "student", attempt: "f-1").status == .created)
            #expect(try await DeskTests.handIn(api, student: "student2", attempt: "f-2").status == .created)
            // The store is read while the server runs (a PostgreSQL store's pool closes with it).
            try await Self.readFiltered(harness.storage)
        }
    }

    static func readFiltered(_ storage: any ServerStorage) async throws {
        let some = try #require(try await storage.rosterFacts(assessmentID: "quiz-1", group: nil, detail: .answers, users: ["student2"]))
        #expect(some.students.map(\.name) == ["student2"] && some.results.map(\.record.attemptID) == ["f-2"])
        #expect(some.results.first?.answers.isEmpty == false, "answers are read for .answers")
        let none = try #require(try await storage.rosterFacts(assessmentID: "quiz-1", group: nil, detail: .summary, users: []))
        #expect(none.students.isEmpty && none.results.isEmpty)
        let everyone = try #require(try await storage.rosterFacts(assessmentID: "quiz-1", group: nil, detail: .summary, users: nil))
        #expect(Set(everyone.results.map(\.record.attemptID)) == ["f-1", "f-2"] && everyone.results.allSatisfy { $0.answers.isEmpty })
        #expect(try await storage.rosterFacts(assessmentID: "missing", group: nil, detail: .summary, users: nil) == nil)

        let ids = (0..<1_203).map { "unknown-\($0)" } + ["f-2"] + (0..<300).map { "other-\($0)" } + ["f-1"]
        let inputs = try await storage.resultInputs(user: nil, assessmentID: "quiz-1", attemptIDs: ids)
        #expect(Set(inputs.map(\.record.attemptID)) == ["f-1", "f-2"] && inputs.count == 2)
        #expect(try await storage.resultInputs(user: "student", assessmentID: nil, attemptIDs: ids).map(\.record.attemptID) == ["f-1"])
        #expect(try await storage.resultInputs(user: nil, assessmentID: "quiz-1", attemptIDs: []).isEmpty)
    }
}

import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultCore
import VaultRules
import VaultTestSupport

@testable import VaultServer
@testable import VaultServerPostgres

/// Teachers own their assessments: another teacher gets 404 on replace, answers, delete and every desk page of it
/// (its existence is not revealed) and does not see it listed; after `share` a co-teacher reads the answers; an
/// administrator acts on everything. Both stores, through the API and the desk; the migration on each.
struct OwnershipTests {
    static func addTeachers(_ storage: any ServerStorage) async throws {
        for (name, role) in [("lee", Role.teacher), ("ada", Role.admin)] {
            try await storage.createUser(
                PasswordHasher.makeRecord(name: name, role: role, password: SecretBytes(Array("\(name)-pw".utf8)), iterations: 1_000),
                now: Date()
            )
        }
    }

    @Test("another teacher: 404 on replace, answers, delete and the desk's pages; share opens it; an admin acts on all", arguments: Backend.all)
    func ownership(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await Self.addTeachers(harness.storage)
        try await harness.test { api in
            let owner = try await api.token("teacher")
            let other = try await api.token("lee")
            let admin = try await api.token("ada")
            let quiz = Fixtures.quiz()
            #expect(try await api.publish(quiz, teacher: owner).status == .created)
            #expect(try await harness.storage.teacherAccess(assessmentID: quiz.id, teacher: "teacher") == .owner)
            // The token names the administrator's role.
            let adminLogin = try await api.send(.post, APIPath.token, json: TokenRequest(user: "ada", password: "ada-pw"))
            #expect(try adminLogin.decode(TokenResponse.self).role == .admin)

            // Another teacher: replacing, reading the answers and deleting all answer 404, and change nothing.
            var replaced = quiz
            replaced.title = "Taken over"
            let replace = try await api.publish(replaced, teacher: other)
            #expect(replace.status == .notFound && replace.errorCode == "not_found", "\(replace.status)")
            #expect(try await api.served(quiz.id, token: try await api.token("student")).title == quiz.title)
            #expect(try await api.send(.get, APIPath.assessment(quiz.id) + "/responses", token: other).status == .notFound)
            #expect(try await api.send(.delete, APIPath.assessment(quiz.id), token: other).status == .notFound)
            #expect(try await harness.storage.served(id: quiz.id) != nil)
            // ... and the same for an id that does not exist: nothing tells the two apart.
            let unknown = try await api.send(.get, APIPath.assessment("nobody-has-this") + "/responses", token: other)
            #expect(unknown.status == .notFound)

            // The desk: not listed, every page and form 404, the exam stays open.
            var lee = DeskBrowser(api: api)
            #expect(try await lee.signIn("lee").status == .seeOther)
            let list = try await lee.send(.get, "/desk")
            #expect(list.status == .ok && !list.text.contains("/desk/a/quiz-1"))
            for path in ["/desk/a/quiz-1", "/desk/a/quiz-1/grade?question=q6", "/desk/a/quiz-1/export?format=moodle", "/desk/a/quiz-1/start-code"] {
                #expect(try await lee.send(.get, path).status == .notFound, "\(path)")
            }
            let csrf = try #require(DeskBrowser.hidden("csrf", in: list))
            #expect(try await lee.send(.post, "/desk/a/quiz-1/close", form: ["csrf": csrf]).status == .notFound)
            #expect(try await harness.storage.rosterFacts(assessmentID: quiz.id, group: nil)?.closedAt == nil)

            // The owner shares it on the desk: the co-teacher reads the answers and sees it on the desk.
            var teacher = DeskBrowser(api: api)
            #expect(try await teacher.signIn("teacher").status == .seeOther)
            let roster = try await teacher.send(.get, "/desk/a/quiz-1")
            #expect(roster.text.contains("teacher (owner)") && roster.text.contains("Add a co-teacher"))
            let ownerCSRF = try #require(DeskBrowser.hidden("csrf", in: roster))
            let nobody = try await teacher.send(.post, "/desk/a/quiz-1/share", form: ["csrf": ownerCSRF, "teacher": "student", "action": "add"])
            #expect(nobody.status == .badRequest)
            let shared = try await teacher.send(.post, "/desk/a/quiz-1/share", form: ["csrf": ownerCSRF, "teacher": "lee", "action": "add"])
            #expect(shared.status == .seeOther && shared.headers[.location]?.contains("notice=shared") == true)
            #expect(try await api.send(.get, APIPath.assessment(quiz.id) + "/responses", token: other).status == .ok)
            #expect(try await lee.send(.get, "/desk").text.contains("/desk/a/quiz-1"))
            let coRoster = try await lee.send(.get, "/desk/a/quiz-1")
            #expect(coRoster.status == .ok && coRoster.text.contains("lee (co-teacher)") && !coRoster.text.contains("Add a co-teacher"))
            // A co-teacher cannot share it further.
            let leeCSRF = try #require(DeskBrowser.hidden("csrf", in: coRoster))
            let reshare = try await lee.send(.post, "/desk/a/quiz-1/share", form: ["csrf": leeCSRF, "teacher": "ada", "action": "add"])
            #expect(reshare.status == .forbidden)
            #expect(try await harness.storage.share(assessmentID: quiz.id, teacher: "teacher", remove: true) == .cannotRemoveOwner)
            #expect(try await harness.storage.share(assessmentID: quiz.id, teacher: "student", remove: false) == .noTeacher)
            #expect(try await harness.storage.share(assessmentID: quiz.id, teacher: "lee", remove: true) == .removed)
            #expect(try await api.send(.get, APIPath.assessment(quiz.id) + "/responses", token: other).status == .notFound)

            // A teacher's own new assessment is theirs.
            #expect(try await api.publish(Fixtures.quiz(id: "lee-quiz"), teacher: other).status == .created)
            #expect(try await harness.storage.assessmentTeachers(assessmentID: "lee-quiz") == ["lee": .owner])
            #expect(try await api.send(.get, APIPath.assessment("lee-quiz") + "/responses", token: owner).status == .notFound)

            // The administrator: everything, on the API and the desk.
            #expect(try await api.send(.get, APIPath.assessment(quiz.id) + "/responses", token: admin).status == .ok)
            var ada = DeskBrowser(api: api)
            #expect(try await ada.signIn("ada").status == .seeOther)
            let all = try await ada.send(.get, "/desk")
            #expect(all.text.contains("/desk/a/quiz-1") && all.text.contains("/desk/a/lee-quiz"))
            #expect(try await api.send(.delete, APIPath.assessment("lee-quiz"), token: admin).status == .noContent)
            // A student is still refused outright.
            #expect(try await api.send(.get, APIPath.assessment(quiz.id) + "/responses", token: try await api.token("student")).status == .forbidden)
        }
    }

    @Test("the migration keeps every teacher of the time as co-teacher of every assessment that existed (SQLite)")
    func sqliteMigration() async throws {
        let directory = TemporaryDirectory("ownership-migration")
        try FileManager.default.createDirectory(atPath: directory.file("data"), withIntermediateDirectories: true)
        let path = directory.file("data") + "/server.db"
        do {
            // The schema as it was before ownership (the migrations before it), with two teachers and two
            // assessments in it.
            let database = try Database(path: path, encryption: .plaintext, configuration: DatabaseConfiguration())
            var before = Migrator()
            let ownership = try #require(ServerSchema.migrator.migrations.first { $0.sql.contains("assessment_teachers") }).version
            for migration in ServerSchema.migrator.migrations where migration.version < ownership {
                before.register(migration.version, migration.sql)
            }
            try before.migrate(database)
            for (name, role) in [("kim", "teacher"), ("lee", "teacher"), ("sam", "student")] {
                try database.execute(
                    "INSERT INTO users (name, role, password_hash, salt, iterations, created_at) VALUES (?, ?, 'h', 's', 1000, 0)",
                    [name, role]
                )
            }
            for id in ["old-1", "old-2"] { try database.execute("INSERT INTO assessments (id, current_version, updated_at) VALUES (?, 1, 0)", [id]) }
        }
        let storage = try SQLiteServerStorage(directory: directory.file("data"))
        for id in ["old-1", "old-2"] {
            #expect(try await storage.assessmentTeachers(assessmentID: id) == ["kim": .coTeacher, "lee": .coTeacher])
        }
        #expect(try await storage.mayAct(user: "kim", role: .teacher, onAssessment: "old-2"))
        #expect(try await storage.user(named: "kim")?.role == .teacher)
    }

    @Test("the migration keeps every teacher of the time as co-teacher of every assessment that existed (PostgreSQL)")
    func postgresMigration() async throws {
        guard Backend.all.contains(.postgres) else { return }
        let cluster = try await PostgresCluster.shared()
        let url = try await cluster.createDatabase()
        let database = String(url.split(separator: "/").last!)
        // The schema as it was before ownership: the versions before it, recorded as applied.
        _ = try cluster.psql(database, "CREATE TABLE schema_version (version BIGINT NOT NULL)")
        let ownership = try #require(PostgresSchema.versions.firstIndex { $0.joined().contains("assessment_teachers") })
        for (index, statements) in PostgresSchema.versions.prefix(ownership).enumerated() {
            for statement in statements { _ = try cluster.psql(database, statement) }
            _ = try cluster.psql(database, "INSERT INTO schema_version (version) VALUES (\(index + 1))")
        }
        _ = try cluster.psql(
            database,
            """
            INSERT INTO users (name, role, password_hash, salt, iterations, created_at) VALUES
                ('kim', 'teacher', 'h', 's', 1000, 0), ('lee', 'teacher', 'h', 's', 1000, 0), ('sam', 'student', 'h', 's', 1000, 0);
            INSERT INTO assessments (id, current_version, deleted, updated_at) VALUES ('old-1', 1, false, 0), ('old-2', 1, false, 0);
            """
        )
        let storage = try await PostgresServerStorage(location: PostgresLocation(url: url), connectTimeout: PostgresCluster.testConnectTimeout)
        for id in ["old-1", "old-2"] {
            #expect(try await storage.assessmentTeachers(assessmentID: id) == ["kim": .coTeacher, "lee": .coTeacher])
        }
        #expect(try await storage.user(named: "lee")?.role == .teacher)
    }
}

import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultCore
import VaultModel
import VaultServer
import VaultTestSupport

struct PublishingTests {
    @Test("versions grow only with content; hashes are canonical; answer keys are never served", arguments: Backend.all)
    func versioning(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            let first = try await api.publish(Fixtures.quiz(), teacher: teacher)
            #expect(first.status == .created)
            #expect(try first.decode(PublishResponse.self).version == 1)
            let same = try await api.publish(Fixtures.quiz(), teacher: teacher)
            #expect(same.status == .ok)
            #expect(try same.decode(PublishResponse.self).version == 1)
            #expect(try same.decode(PublishResponse.self).changed == false)
            let v1 = try await api.served("quiz-1", token: student)
            #expect(try await api.publish(Fixtures.quiz(q1Prompt: "3x = 15. x = ?"), teacher: teacher).decode(PublishResponse.self).version == 2)
            let v2 = try await api.served("quiz-1", token: student)
            #expect(v2.version == 2)
            #expect(v2.question("q1")?.hash != v1.question("q1")?.hash)
            #expect(v2.question("q3")?.hash == v1.question("q3")?.hash)
            #expect(v2.questions.allSatisfy { $0.wire.answerKey == nil })
            let raw = try await api.send(.get, APIPath.assessment("quiz-1"), token: student)
            #expect(!String(decoding: raw.body, as: UTF8.self).contains("answer_key"))
            // Anyone can re-derive the content hash from the served document.
            #expect(try ServedDocument.contentHash(v2) == v2.contentHash)
            let catalog = try await api.send(.get, APIPath.assessments, token: student).decode(CatalogResponse.self)
            #expect(catalog.assessments.map(\.id) == ["quiz-1"])
            #expect(catalog.assessments.first?.version == 2)
            #expect(catalog.assessments.first?.sizeBytes == raw.body.count)
        }
    }

    @Test("ETag and If-None-Match give 304; a new version gives a new ETag", arguments: Backend.all)
    func etags(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let first = try await api.send(.get, APIPath.assessment("quiz-1"), token: teacher)
            let etag = try #require(first.headers[.eTag])
            let again = try await api.send(.get, APIPath.assessment("quiz-1"), token: teacher, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(again.body.isEmpty)
            try await api.publish(Fixtures.quiz(q1Prompt: "changed"), teacher: teacher)
            let changed = try await api.send(.get, APIPath.assessment("quiz-1"), token: teacher, headers: [.ifNoneMatch: etag])
            #expect(changed.status == .ok)
            #expect(changed.headers[.eTag] != etag)
        }
    }

    @Test(
        "invalid documents are refused with a reason, never a 500",
        arguments: [
            #"{"id":"Bad ID","title":"t","questions":[{"id":"q1","type":"essay","prompt":"p"}]}"#,
            #"{"id":"x","title":"","questions":[{"id":"q1","type":"essay","prompt":"p"}]}"#,
            #"{"id":"x","title":"t","questions":[]}"#,
            #"{"id":"x","title":"t","questions":[{"id":"q1","type":"single_choice","prompt":"p","choices":[{"id":"a","text":"1"}]}]}"#,
            #"{"id":"x","title":"t","questions":[{"id":"q1","type":"single_choice","prompt":"p","choices":[{"id":"a","text":"1"},{"id":"b","text":"2"}],"answer_key":["z"]}]}"#,
            #"{"id":"x","title":"t","questions":[{"id":"q1","type":"essay","prompt":"p"},{"id":"q1","type":"essay","prompt":"p"}]}"#,
            #"{"id":"x","title":"t","questions":[{"id":"q1","type":"dance","prompt":"p"}]}"#,
            #"{"id":"x","title":"t","time_limit_seconds":-5,"questions":[{"id":"q1","type":"essay","prompt":"p"}]}"#,
            #"{"id":"x","title":"t","not_after":"tomorrow","questions":[{"id":"q1","type":"essay","prompt":"p"}]}"#,
            #"{"id":"x","title":"t","questions":[{"id":"q1","type":"true_false","prompt":"p","answer_key":["yes"]}]}"#,
        ]
    )
    func invalid(document: String) async throws {
        try await ServerHarness().test { api in
            let teacher = try await api.token("teacher")
            let id = (try? JSONDecoder().decode(Assessment.self, from: Data(document.utf8)).id) ?? "x"
            let path = AssessmentValidator.isValidID(id) ? APIPath.assessment(id) : APIPath.assessment("x")
            let reply = try await api.send(.put, path, token: teacher, body: Data(document.utf8))
            #expect([.badRequest, .unprocessableContent].contains(reply.status), "\(reply.status)")
            #expect(reply.errorCode != nil)
            #expect(try await api.send(.get, APIPath.assessments, token: teacher).decode(CatalogResponse.self).assessments.isEmpty)
        }
    }

    @Test("a question with a list its type does not have (an essay with choices) is refused in a sentence naming it")
    func foreignList() async throws {
        try await ServerHarness().test { api in
            let teacher = try await api.token("teacher")
            let document =
                #"{"id":"x","title":"t","questions":[{"id":"q7","type":"essay","prompt":"p","choices":[{"id":"a","text":"1"},{"id":"b","text":"2"}]}]}"#
            let reply = try await api.send(.put, APIPath.assessment("x"), token: teacher, body: Data(document.utf8))
            #expect(reply.status == .badRequest)
            #expect(String(decoding: reply.body, as: UTF8.self).contains("question q7 is essay and cannot have choices"))
            #expect(try await api.send(.get, APIPath.assessments, token: teacher).decode(CatalogResponse.self).assessments.isEmpty)
        }
    }

    @Test("a 2,001-question document is refused; 2,000 with every script is accepted", arguments: Backend.all)
    func limits(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            func document(_ count: Int) -> Assessment {
                Assessment(
                    id: "big",
                    title: "Big",
                    questions: (0..<count).map {
                        Question(id: "q\($0)", type: .shortText, prompt: "سؤال \($0) 问题 🙂 پرسش", maxLength: 50)
                    }
                )
            }
            #expect(try await api.publish(document(2_001), teacher: teacher).status == .unprocessableContent)
            #expect(try await api.publish(document(2_000), teacher: teacher).status == .created)
            let served = try await api.served("big", token: teacher)
            #expect(served.questions[7].prompt == "سؤال 7 问题 🙂 پرسش")
        }
    }

    @Test("delete makes the assessment 404 and drops it from the catalog; republishing revives it at a new version", arguments: Backend.all)
    func deletion(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            #expect(try await api.send(.delete, APIPath.assessment("quiz-1"), token: teacher).status == .noContent)
            #expect(try await api.send(.get, APIPath.assessment("quiz-1"), token: teacher).status == .notFound)
            #expect(try await api.send(.delete, APIPath.assessment("quiz-1"), token: teacher).status == .notFound)
            #expect(try await api.send(.get, APIPath.assessments, token: teacher).decode(CatalogResponse.self).assessments.isEmpty)
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).decode(PublishResponse.self).version == 2)
        }
    }
}

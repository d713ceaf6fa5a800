import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import VaultAPI
import VaultCore
import VaultServer
import VaultTestSupport

struct BodyHandlingTests {
    @Test("gzip request bodies are read; gzip responses are sent when accepted", arguments: Backend.all)
    func gzip(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let body = try Gzip.compress(try CanonicalJSON.encode(Fixtures.quiz()))
            let published = try await api.send(.put, APIPath.assessment("quiz-1"), token: teacher, body: body, headers: [.contentEncoding: "gzip"])
            #expect(published.status == .created)
            let zipped = try await api.send(.get, APIPath.assessment("quiz-1"), token: teacher, headers: [.acceptEncoding: "gzip, deflate"])
            #expect(zipped.headers[.contentEncoding] == "gzip")
            let document = try JSONDecoder().decode(Assessment.self, from: try Gzip.decompress(zipped.body))
            #expect(document.id == "quiz-1")
            let plain = try await api.send(.get, APIPath.assessment("quiz-1"), token: teacher)
            #expect(plain.headers[.contentEncoding] == nil)
        }
    }

    @Test("oversized bodies and gzip bombs get 413; broken gzip and unknown encodings get 4xx; nothing is stored", arguments: Backend.all)
    func hostileBodies(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            let huge = Data(repeating: 0x20, count: 13 * 1024 * 1024)
            #expect(try await api.send(.post, APIPath.batch, token: student, body: huge).status == .contentTooLarge)
            let bomb = try Gzip.compress(Data(repeating: 0x20, count: 64 * 1024 * 1024))
            #expect(
                try await api.send(.post, APIPath.batch, token: student, body: bomb, headers: [.contentEncoding: "gzip"]).status == .contentTooLarge
            )
            #expect(
                try await api.send(.post, APIPath.batch, token: student, body: Data([0x1F, 0x8B, 1, 2, 3]), headers: [.contentEncoding: "gzip"])
                    .status == .badRequest
            )
            #expect(
                try await api.send(.post, APIPath.batch, token: student, body: Data("{}".utf8), headers: [.contentEncoding: "br"]).status
                    == .unsupportedMediaType
            )
            for junk in ["", "null", "{\"responses\": 5}", "{\"responses\": [{\"id\": 1}]}", "\u{FF}\u{FE}"] {
                let reply = try await api.send(.post, APIPath.batch, token: student, body: Data(junk.utf8))
                #expect(reply.status == .badRequest, "\(junk)")
            }
            let tooMany = BatchRequest(
                responses: (0..<501).map { index in
                    ResponseItem(
                        id: "r\(index)",
                        attemptId: "a",
                        assessmentId: "x",
                        assessmentVersion: 1,
                        questionId: "q",
                        questionHash: "h",
                        answer: .null,
                        timeSpentMs: 0,
                        answeredAt: "2026-01-01T00:00:00Z"
                    )
                }
            )
            #expect(try await api.send(.post, APIPath.batch, token: student, json: tooMany).status == .contentTooLarge)
            #expect(try await api.send(.get, APIPath.assessments, token: teacher).decode(CatalogResponse.self).assessments.isEmpty)
        }
    }

    @Test("over a real socket: concurrent identical batches store exactly one copy", arguments: Backend.all)
    func concurrentBatchesLive(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test(.live) { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let served = try await api.served("quiz-1", token: student)
            let items = (0..<20).map {
                Fixtures.item(
                    served,
                    question: "q\($0 % 6 + 1)",
                    answer: $0 % 6 == 2
                        ? .bool(true) : $0 % 6 == 3 ? .number(1) : $0 % 6 == 1 ? .array([.string("a")]) : $0 % 6 == 0 ? .string("a") : .string("t"),
                    attempt: "attempt-\($0)"
                )
            }
            let all = try await withThrowingTaskGroup(of: [ItemResult].self) { group in
                for _ in 0..<6 { group.addTask { try await api.batch(items, token: student) } }
                return try await group.reduce(into: [[ItemResult]]()) { $0.append($1) }
            }
            for index in items.indices {
                let statuses = all.map { $0[index].status }
                #expect(statuses.filter { $0 == .accepted }.count == 1, "\(statuses)")
                #expect(statuses.filter { $0 == .duplicate }.count == 5)
            }
            let received = try await api.send(.get, APIPath.responses("quiz-1"), token: teacher).decode(ReceivedResponses.self)
            #expect(received.responses.count == items.count)
        }
    }
}

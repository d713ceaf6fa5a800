import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultServer
import VaultTestSupport

struct ResponseTests {
    @Test("accepted, then duplicate on resend; a repeated batch yields the same results again", arguments: Backend.all)
    func idempotentBatches(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let served = try await api.served("quiz-1", token: student)
            let items = [
                Fixtures.item(served, question: "q1", answer: .string("b")),
                Fixtures.item(served, question: "q2", answer: .array([.string("a"), .string("c")])),
                Fixtures.item(served, question: "q4", answer: .number(3.14)),
                Fixtures.item(served, question: "q5", answer: .string("coefficient")),
                Fixtures.item(served, question: "q1", answer: .string("zzz"), attempt: "attempt-2"),
            ]
            let first = try await api.batch(items, token: student)
            #expect(first.map(\.status) == [.accepted, .accepted, .accepted, .accepted, .rejected])
            #expect(first.map(\.id) == items.map(\.id))
            let second = try await api.batch(items, token: student)
            #expect(second.map(\.status) == [.duplicate, .duplicate, .duplicate, .duplicate, .rejected])
            #expect(try await api.batch(items, token: student) == second)
            let received = try await api.send(.get, APIPath.responses("quiz-1"), token: teacher).decode(ReceivedResponses.self)
            #expect(received.responses.count == 4)
            #expect(Set(received.responses.map(\.id)).count == 4)
        }
    }

    @Test("last write wins by answered_at, whatever the arrival order; superseded rows are kept and marked", arguments: Backend.all)
    func supersede(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let served = try await api.served("quiz-1", token: student)
            let late = Fixtures.item(served, question: "q1", answer: .string("b"), at: "2026-11-20T10:05:00.000Z")
            let early = Fixtures.item(served, question: "q1", answer: .string("a"), at: "2026-11-20T10:00:00.000Z")
            #expect(try await api.batch([late], token: student).map(\.status) == [.accepted])
            #expect(try await api.batch([early], token: student).map(\.status) == [.superseded])
            let later = Fixtures.item(served, question: "q1", answer: .string("a"), at: "2026-11-20T10:09:00.123Z")
            #expect(try await api.batch([later], token: student).map(\.status) == [.accepted])
            let received = try await api.send(.get, APIPath.responses("quiz-1"), token: teacher).decode(ReceivedResponses.self)
            #expect(received.responses.count == 3)
            let current = received.responses.filter { !$0.superseded }
            #expect(current.map(\.id) == [later.id])
        }
    }

    @Test("a changed question is a conflict unless forced; unchanged questions of the old version are accepted", arguments: Backend.all)
    func conflicts(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let v1 = try await api.served("quiz-1", token: student)
            try await api.publish(Fixtures.quiz(q1Prompt: "A different question"), teacher: teacher)
            let changed = Fixtures.item(v1, question: "q1", answer: .string("b"))
            let unchanged = Fixtures.item(v1, question: "q3", answer: .bool(true))
            let results = try await api.batch([changed, unchanged], token: student)
            #expect(results.map(\.status) == [.conflict, .accepted])
            #expect(results[0].currentVersion == 2)
            #expect(try await api.batch([changed], token: student).map(\.status) == [.conflict])
            var forced = changed
            forced.force = true
            #expect(try await api.batch([forced], token: student).map(\.status) == [.accepted])
            let received = try await api.send(.get, APIPath.responses("quiz-1"), token: teacher).decode(ReceivedResponses.self)
            #expect(received.responses.first { $0.id == changed.id }?.forced == true)
            #expect(received.responses.first { $0.id == unchanged.id }?.forced == false)
        }
    }

    @Test("answers to a deleted assessment are gone; answers of the wrong shape are rejected with a reason", arguments: Backend.all)
    func goneAndRejected(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let served = try await api.served("quiz-1", token: student)
            let wrongShapes: [(String, JSONValue)] = [
                ("q1", .string("z")), ("q1", .array([.string("a")])), ("q2", .string("a")), ("q2", .array([.string("a"), .string("a")])),
                ("q3", .string("true")), ("q4", .string("3.14")), ("q5", .string(String(repeating: "x", count: 21))), ("q6", .number(1)),
                ("nope", .string("a")),
            ]
            let results = try await api.batch(wrongShapes.map { Fixtures.item(served, question: $0.0, answer: $0.1) }, token: student)
            #expect(results.allSatisfy { $0.status == .rejected && $0.message != nil })
            var badTime = Fixtures.item(served, question: "q3", answer: .bool(true))
            badTime.answeredAt = "yesterday"
            #expect(try await api.batch([badTime], token: student).map(\.status) == [.rejected])
            #expect(try await api.send(.delete, APIPath.assessment("quiz-1"), token: teacher).status == .noContent)
            let gone = try await api.batch([Fixtures.item(served, question: "q3", answer: .bool(true))], token: student)
            #expect(gone.map(\.status) == [.gone])
        }
    }

    @Test("another student cannot reuse an attempt or a response id", arguments: Backend.all)
    func ownership(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let alice = try await api.token("student")
            let bob = try await api.token("student2")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let served = try await api.served("quiz-1", token: alice)
            let item = Fixtures.item(served, question: "q3", answer: .bool(true))
            #expect(try await api.batch([item], token: alice).map(\.status) == [.accepted])
            #expect(try await api.batch([item], token: bob).map(\.status) == [.rejected])
            let sameAttempt = Fixtures.item(served, question: "q1", answer: .string("a"))
            #expect(try await api.batch([sameAttempt], token: bob).map(\.status) == [.rejected])
        }
    }
}

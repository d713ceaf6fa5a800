import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultServer
import VaultTestSupport

struct AuthAndRoleTests {
    @Test("health needs no token, and says whether the school collects the vaults' own counts (off until turned on)", arguments: Backend.all)
    func health(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let reply = try await api.send(.get, APIPath.health)
            #expect(reply.status == .ok)
            #expect(try reply.decode(HealthResponse.self) == HealthResponse(clientStats: false))
            try await harness.storage.setSetting(.clientStats, to: "on")
            #expect(try await api.send(.get, APIPath.health).decode(HealthResponse.self) == HealthResponse(clientStats: true))
        }
    }

    @Test("tokens: issued for the right password, 401 otherwise, and never for malformed bodies", arguments: Backend.all)
    func tokens(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let good = try await api.send(.post, APIPath.token, json: TokenRequest(user: "student", password: "student-pw"))
            #expect(good.status == .ok)
            let token = try good.decode(TokenResponse.self)
            #expect(token.role == .student && token.token.hasPrefix("vt_") && token.token.count == 67)
            #expect(try await api.send(.post, APIPath.token, json: TokenRequest(user: "student", password: "nope")).status == .unauthorized)
            #expect(try await api.send(.post, APIPath.token, json: TokenRequest(user: "ghost", password: "x")).status == .unauthorized)
            let malformed = try await api.send(.post, APIPath.token, body: Data("{\"user\":".utf8))
            #expect(malformed.status == .badRequest)
            #expect(malformed.errorCode == "bad_request")
            #expect(try await api.send(.post, APIPath.token, body: Data("[1,2]".utf8)).status == .badRequest)
        }
    }

    @Test("routes behind the token refuse a missing, unknown or expired one", arguments: Backend.all)
    func bearer(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            #expect(try await api.send(.get, APIPath.assessments).status == .unauthorized)
            #expect(try await api.send(.get, APIPath.assessments, token: "vt_" + String(repeating: "0", count: 64)).status == .unauthorized)
            let token = try await api.token("student")
            #expect(try await api.send(.get, APIPath.assessments, token: token).status == .ok)
        }
        try await ServerHarness(backend, tokenLifetime: -1).test { api in
            let expired = try await api.token("student")
            let reply = try await api.send(.get, APIPath.assessments, token: expired)
            #expect(reply.status == .unauthorized)
            #expect(reply.errorCode == "unauthorized")
        }
    }

    @Test("teacher-only routes answer 403 to students", arguments: Backend.all)
    func roles(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let student = try await api.token("student")
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Fixtures.quiz(), teacher: student).status == .forbidden)
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            #expect(try await api.send(.delete, APIPath.assessment("quiz-1"), token: student).status == .forbidden)
            #expect(try await api.send(.get, APIPath.responses("quiz-1"), token: student).status == .forbidden)
            #expect(try await api.send(.get, APIPath.responses("quiz-1"), token: teacher).status == .ok)
        }
    }
}

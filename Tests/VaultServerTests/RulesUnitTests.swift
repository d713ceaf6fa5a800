import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultCore
import VaultModel
import VaultRules
import VaultServer
import VaultTestSupport

struct ServerEdgeTests {
    @Test("unknown assessment: 404 with a JSON envelope; an id in the body that differs from the path: 400", arguments: Backend.all)
    func edges(backend: Backend) async throws {
        try await ServerHarness(backend).test { api in
            let teacher = try await api.token("teacher")
            let missing = try await api.send(.get, APIPath.assessment("nope"), token: teacher)
            #expect(missing.status == .notFound && missing.errorCode == "not_found")
            let mismatch = try await api.send(.put, APIPath.assessment("other"), token: teacher, json: Fixtures.quiz())
            #expect(mismatch.status == .badRequest)
            #expect(try await api.send(.get, APIPath.responses("nope"), token: teacher).status == .notFound)
        }
    }

    @Test("a token expires when its lifetime says, and the response says when", arguments: Backend.all)
    func tokenExpiry(backend: Backend) async throws {
        try await ServerHarness(backend, tokenLifetime: 120).test { api in
            // Between the lifetime after the request left and after its answer came (a loaded machine took 10 s).
            let sent = Date()
            let reply = try await api.send(.post, APIPath.token, json: TokenRequest(user: "student", password: "student-pw"))
            let answered = Date()
            let token = try reply.decode(TokenResponse.self)
            let expires = try #require(Timestamp.date(token.expiresAt))
            #expect(expires >= sent.addingTimeInterval(119) && expires <= answered.addingTimeInterval(121), "\(sent) \(expires) \(answered)")
        }
    }
}

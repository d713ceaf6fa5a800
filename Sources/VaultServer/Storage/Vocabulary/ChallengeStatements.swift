import Foundation
import VaultAPI

/// `device_challenges`: the one-time challenges a vault signs to sign in with its key (issue 58).
enum ChallengeStatements {
    static func create(_ challenge: String, user: String, expiresAt: Date) -> SQLStatement {
        SQLStatement(
            "INSERT INTO device_challenges (challenge, user_name, expires_at) VALUES (?, ?, ?)",
            [.text(challenge), .text(user), .real(expiresAt.timeIntervalSince1970)]
        )
    }

    static func expired(now: Date) -> SQLStatement {
        SQLStatement("DELETE FROM device_challenges WHERE expires_at < ?", [.real(now.timeIntervalSince1970)])
    }

    static func find(_ challenge: String) -> SQLStatement {
        SQLStatement(
            "SELECT user_name, expires_at FROM device_challenges WHERE challenge = ? {forUpdate}",
            [.text(challenge)],
            columns: ["user_name", "expires_at"]
        )
    }

    static let count = SQLStatement("SELECT count(*) AS waiting FROM device_challenges", [], columns: ["waiting"])

    /// Challenges open at once, at most: anyone may ask for one, so their table is bounded (past it, 429).
    static let maxOpen = 10_000

    static func delete(_ challenge: String) -> SQLStatement {
        SQLStatement("DELETE FROM device_challenges WHERE challenge = ?", [.text(challenge)])
    }
}

extension SharedStatements {
    /// False when too many challenges are open already (nothing is stored then).
    public func createChallenge(_ challenge: String, user: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await run(ChallengeStatements.expired(now: now))
        let open = try await rows(ChallengeStatements.count) { try $0.int("waiting") }.first ?? 0
        guard open < ChallengeStatements.maxOpen else { return false }
        try await run(ChallengeStatements.create(challenge, user: user, expiresAt: expiresAt))
        return true
    }

    /// One transaction reads the challenge and deletes it: two requests with the same challenge never both succeed.
    public func takeChallenge(_ challenge: String, user: String, now: Date) async throws -> Bool {
        try await readThenWrite([ChallengeStatements.find(challenge)], queue: nil) { tables in
            guard let row = tables[0].first else { return (false, []) }
            let fresh = try row.string("user_name") == user && (try row.double("expires_at")) >= now.timeIntervalSince1970
            return (fresh, [ChallengeStatements.delete(challenge)])
        }
    }
}

import Foundation
import VaultAPI
import VaultRules

/// What became of a hand-in's enrolment secret (packages by file, issue 57).
public enum EnrolmentClaim: Sendable, Equatable {
    /// The secret is this student's and now binds this vault key (the first hand-in made from the package).
    case bound
    /// The secret already binds this vault key.
    case sameDevice
    /// The secret already binds another vault key: a copy of the package, used on a second device.
    case otherDevice
    /// No such secret for this student (another student's package, or none issued).
    case unknown
}

/// One-time enrolment secrets, kept as their SHA-256.
public enum EnrolmentStatements {
    static let columns = ["user_name", "assessment_id", "device_key"]

    static func enrolment(secretHash: String) -> SQLStatement {
        SQLStatement(
            "SELECT user_name, assessment_id, device_key FROM enrolments WHERE secret_hash = ? {forUpdate}",
            [.text(secretHash)],
            columns: columns
        )
    }

    static func create(secretHash: String, user: String, assessmentID: String, at: Date) -> SQLStatement {
        SQLStatement(
            "INSERT INTO enrolments (secret_hash, user_name, assessment_id, created_at) VALUES (?, ?, ?, ?)",
            [.text(secretHash), .text(user), .text(assessmentID), .real(at.timeIntervalSince1970)]
        )
    }

    static func bind(secretHash: String, deviceKey: String) -> SQLStatement {
        SQLStatement("UPDATE enrolments SET device_key = ? WHERE secret_hash = ? AND device_key IS NULL", [.text(deviceKey), .text(secretHash)])
    }
}

extension SharedStatements {
    /// Keeps a new package's enrolment secret (its hash) for `user`.
    public func createEnrolment(secretHash: String, user: String, assessmentID: String, now: Date) async throws {
        try await run(EnrolmentStatements.create(secretHash: secretHash, user: user, assessmentID: assessmentID, at: now))
    }

    /// A hand-in's claim to be `user`'s through their package: one transaction reads the secret's row and, the first
    /// time, binds `deviceKey` to it and registers that key to the student (as a sign-in would).
    public func claimEnrolment(secretHash: String, user: String, deviceKey: String, fingerprint: String, now: Date) async throws -> EnrolmentClaim {
        try await readThenWrite([EnrolmentStatements.enrolment(secretHash: secretHash), DeskStatements.keyOwner(publicKey: deviceKey)]) {
            tables in
            guard let row = tables[0].first, try row.string("user_name") == user else { return (.unknown, []) }
            let owner = try tables[1].first?.string("user_name")
            if let owner, owner != user { return (.otherDevice, []) }
            switch try row.optionalString("device_key") {
            case deviceKey?: return (.sameDevice, [])
            case .some: return (.otherDevice, [])
            case nil:
                var writes = [EnrolmentStatements.bind(secretHash: secretHash, deviceKey: deviceKey)]
                if owner == nil { writes.append(DeskStatements.registerKey(user: user, publicKey: deviceKey, fingerprint: fingerprint, at: now)) }
                return (.bound, writes)
            }
        }
    }
}

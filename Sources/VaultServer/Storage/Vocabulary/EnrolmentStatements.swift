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

/// What an enrolment is for: whose, which assessment (or `ClassCode.scope`), which version, until when.
public struct EnrolmentScope: Sendable, Equatable {
    public var user: String
    public var assessmentID: String
    public var version: Int?
    public var expiresAt: Date?
    public init(user: String, assessmentID: String, version: Int? = nil, expiresAt: Date? = nil) {
        self.user = user
        self.assessmentID = assessmentID
        self.version = version
        self.expiresAt = expiresAt
    }

    /// A hand-in of `assessmentID` version `version`, made at `madeAt`, is within this enrolment: the same assessment
    /// and version (where it says one), made before it expired (by the clock tolerance).
    public func covers(assessmentID: String, version: Int, madeAt: Date?) -> Bool {
        guard assessmentID == self.assessmentID, self.version.map({ $0 == version }) ?? true else { return false }
        guard let expiresAt, let madeAt else { return true }
        return madeAt <= expiresAt.addingTimeInterval(TimeAuthority.clockTolerance)
    }
}

/// One-time enrolment secrets, kept as their SHA-256.
public enum EnrolmentStatements {
    static let columns = ["user_name", "assessment_id", "device_key", "version", "expires_at"]

    static func enrolment(secretHash: String) -> SQLStatement {
        SQLStatement(
            "SELECT user_name, assessment_id, device_key, version, expires_at FROM enrolments WHERE secret_hash = ? {forUpdate}",
            [.text(secretHash)],
            columns: columns
        )
    }

    static func create(secretHash: String, scope: EnrolmentScope, at: Date) -> SQLStatement {
        SQLStatement(
            "INSERT INTO enrolments (secret_hash, user_name, assessment_id, version, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(secretHash), .text(scope.user), .text(scope.assessmentID), scope.version.map(SQLValue.integer) ?? .null,
                scope.expiresAt.map { SQLValue.real($0.timeIntervalSince1970) } ?? .null, .real(at.timeIntervalSince1970),
            ]
        )
    }

    /// The attempt handed in under the enrolment (a package's hand-in file), kept once.
    static func handedIn(secretHash: String, attemptID: String, dialect: SQLDialect) -> SQLStatement {
        SQLStatement(
            dialect.insertIfAbsent(into: "enrolment_hand_ins", columns: ["secret_hash", "attempt_id"], key: ["secret_hash", "attempt_id"]),
            [.text(secretHash), .text(attemptID)]
        )
    }

    static func bind(secretHash: String, deviceKey: String) -> SQLStatement {
        SQLStatement("UPDATE enrolments SET device_key = ? WHERE secret_hash = ? AND device_key IS NULL", [.text(deviceKey), .text(secretHash)])
    }
}

extension SharedStatements {
    /// Keeps a new package's (or class code's) enrolment secret (its hash) with what it is for.
    public func createEnrolment(secretHash: String, scope: EnrolmentScope, now: Date) async throws {
        try await run(EnrolmentStatements.create(secretHash: secretHash, scope: scope, at: now))
    }

    /// A package replacing the student's earlier ones of the same assessment, in the same transaction (issue 68: the
    /// teacher's remedy for a lost or copied stick): they end now, the package keys they bound are revoked, and the
    /// teacher's history says so.
    public func replaceEnrolments(secretHash: String, scope: EnrolmentScope, now: Date) async throws {
        let create = EnrolmentStatements.create(secretHash: secretHash, scope: scope, at: now)
        let earlier = SQLStatement(
            "SELECT secret_hash, device_key FROM enrolments WHERE user_name = ? AND assessment_id = ? AND (expires_at IS NULL OR expires_at > ?)",
            [.text(scope.user), .text(scope.assessmentID), .real(now.timeIntervalSince1970)],
            columns: ["secret_hash", "device_key"]
        )
        // What was handed in under them: kept apart from the student's attempt from now on, for the teacher to
        // accept or discard (a copy of the stick may have made it).
        let handedIn = SQLStatement(
            """
            SELECT s.attempt_id, s.flags FROM enrolment_hand_ins h JOIN enrolments e ON e.secret_hash = h.secret_hash
                JOIN submissions s ON s.attempt_id = h.attempt_id
            WHERE e.user_name = ? AND e.assessment_id = ? AND (e.expires_at IS NULL OR e.expires_at > ?) AND s.user_name = e.user_name
            """,
            [.text(scope.user), .text(scope.assessmentID), .real(now.timeIntervalSince1970)],
            columns: ["attempt_id", "flags"]
        )
        _ = try await readThenWrite([earlier, handedIn]) { tables in
            guard !tables[0].isEmpty else { return ((), [create]) }
            let bound = try tables[0].compactMap { try $0.optionalString("device_key") }
            let apart = try tables[1].map { row in
                SQLStatement(
                    "UPDATE submissions SET flags = ? WHERE attempt_id = ?",
                    [
                        .text(try SubmissionRecord.merged(row.optionalString("flags"), adding: [.revokedDevice])),
                        .text(try row.string("attempt_id")),
                    ]
                )
            }
            let writes =
                [
                    SQLStatement(
                        "UPDATE enrolments SET expires_at = ? WHERE user_name = ? AND assessment_id = ? AND (expires_at IS NULL OR expires_at > ?)",
                        [.real(now.timeIntervalSince1970), .text(scope.user), .text(scope.assessmentID), .real(now.timeIntervalSince1970)]
                    )
                ]
                + bound.map { DeviceKeyStatements.supersede(user: scope.user, publicKey: $0, assessmentID: scope.assessmentID, at: now) }
                + apart
                + [
                    TeachingStatements.history(
                        assessmentID: scope.assessmentID,
                        kind: .packageRenewed,
                        by: "a new package",
                        at: now,
                        subject: scope.user
                    ), create,
                ]
            return ((), writes)
        }
    }

    public func packageEnrolments(assessmentID: String, now: Date) async throws -> [(user: String, secretHash: String, expiresAt: Date)] {
        let rows = try await rows(
            SQLStatement(
                "SELECT user_name, secret_hash, expires_at, created_at FROM enrolments WHERE assessment_id = ? AND expires_at > ? ORDER BY user_name, created_at DESC",
                [.text(assessmentID), .real(now.timeIntervalSince1970)],
                columns: ["user_name", "secret_hash", "expires_at", "created_at"]
            )
        ) {
            (
                user: try $0.string("user_name"), secretHash: try $0.string("secret_hash"),
                expiresAt: Date(timeIntervalSince1970: try $0.double("expires_at"))
            )
        }
        var seen: Set<String> = []
        return rows.filter { seen.insert($0.user).inserted }
    }

    /// What claiming the secret for `deviceKey` would be, and the enrolment's scope, without writing anything: a
    /// hand-in file is judged whole before its enrolment binds a key (a refused import binds none, issue 68).
    public func checkEnrolment(secretHash: String, user: String, deviceKey: String) async throws -> (claim: EnrolmentClaim, scope: EnrolmentScope?) {
        try await readThenWrite([EnrolmentStatements.enrolment(secretHash: secretHash), DeviceKeyStatements.owner(publicKey: deviceKey)]) {
            tables in
            let (claim, scope) = try Self.claim(tables, user: user, deviceKey: deviceKey)
            return ((claim, scope), [])
        }
    }

    /// A claim to be `user`'s through their package or class code: one transaction reads the secret's row and, the
    /// first time, binds `deviceKey` to it and registers that key to the student, saying how it came (`origin`).
    /// `attemptID`: the attempt a package's hand-in file stored, kept with the enrolment (bound now or before).
    public func claimEnrolment(
        secretHash: String,
        user: String,
        deviceKey: String,
        origin: DeviceKeyRecord.Origin,
        handedIn attemptID: String?,
        now: Date
    ) async throws -> EnrolmentClaim {
        let handIn = attemptID.map { EnrolmentStatements.handedIn(secretHash: secretHash, attemptID: $0, dialect: dialect) }
        return try await readThenWrite([EnrolmentStatements.enrolment(secretHash: secretHash), DeviceKeyStatements.owner(publicKey: deviceKey)]) {
            tables in
            let (claim, scope) = try Self.claim(tables, user: user, deviceKey: deviceKey)
            if claim == .sameDevice, let handIn { return (claim, [handIn]) }
            guard claim == .bound else { return (claim, []) }
            var writes = [EnrolmentStatements.bind(secretHash: secretHash, deviceKey: deviceKey)] + (handIn.map { [$0] } ?? [])
            if tables[1].isEmpty {
                writes.append(
                    DeviceKeyStatements.register(user: user, publicKey: deviceKey, origin: origin, detail: scope?.assessmentID, at: now)
                )
            } else if try tables[1].first?.optionalDouble("revoked_at") != nil {
                // The student's own vault taking the teacher's new package (`claim` allowed it).
                writes.append(DeviceKeyStatements.restoreForPackage(user: user, publicKey: deviceKey))
            }
            return (.bound, writes)
        }
    }

    /// The claim the rows of `enrolment(secretHash:)` and `DeviceKeyStatements.owner` make for `deviceKey`.
    static func claim(_ tables: [[any StoredRow]], user: String, deviceKey: String) throws -> (EnrolmentClaim, EnrolmentScope?) {
        guard let row = tables[0].first, try row.string("user_name") == user else { return (.unknown, nil) }
        let scope = EnrolmentScope(
            user: user,
            assessmentID: try row.string("assessment_id"),
            version: try row.optionalInt("version"),
            expiresAt: try row.optionalDouble("expires_at").map(Date.init(timeIntervalSince1970:))
        )
        if let owner = tables[1].first {
            // A key another student holds, or one revoked, is never bound; except one a newer package of this
            // assessment revoked, bound again by that newer package (the student's own vault, issue 68).
            let renewed =
                try owner.optionalString("revoked_by") == DeviceKeyStatements.supersededBy(assessmentID: scope.assessmentID)
                && row.optionalString("device_key") == nil
            if try owner.string("user_name") != user || (owner.optionalDouble("revoked_at") != nil && !renewed) { return (.otherDevice, scope) }
        }
        switch try row.optionalString("device_key") {
        case deviceKey?: return (.sameDevice, scope)
        case .some: return (.otherDevice, scope)
        case nil: return (.bound, scope)
        }
    }
}

import Foundation
import VaultAPI
import VaultRules

/// What both engines do the same way: single statements, snapshots and transactions (reads and the writes they call
/// for), each statement written once (the vocabulary of their tables) and run through the engine's `StatementSession`.
/// An engine conforms and gets these parts of `ServerStorage` (here, in `SharedReads`, `SubmissionStatements` and
/// `RosterStatements`); what depends on the engine (the answer batch with PostgreSQL's prepared statements and `unnest`,
/// the token check, a download's upsert SQLite 3.15 cannot write) it writes itself.
public protocol SharedStatements: StatementSession {
    /// How this engine writes what the two write differently (placeholders, upserts).
    var dialect: SQLDialect { get }
    /// The store's served versions, decoded once.
    var documents: DocumentCache { get }
}

/// `users` and `tokens`.
public enum AccountStatements {
    static let userColumns = ["name", "role", "password_hash", "salt", "iterations", "group_name", "disabled"]

    public static func user(named name: String) -> SQLStatement {
        SQLStatement(
            "SELECT name, \(StoredRole.column()) AS role, password_hash, salt, iterations, group_name, disabled FROM users WHERE name = ?",
            [.text(name)],
            columns: userColumns
        )
    }

    public static func user(_ row: any StoredRow) throws -> UserRecord {
        UserRecord(
            name: try row.string("name"),
            role: Role(rawValue: try row.string("role")) ?? .student,
            passwordHash: try row.string("password_hash"),
            salt: try row.string("salt"),
            iterations: try row.int("iterations"),
            group: try row.optionalString("group_name"),
            disabled: try row.bool("disabled")
        )
    }

    /// Turns an account off (or on again).
    public static func setDisabled(name: String, disabled: Bool) -> SQLStatement {
        SQLStatement("UPDATE users SET disabled = \(disabled ? "{true}" : "{false}") WHERE name = ?", [.text(name)])
    }

    public static func exists(name: String) -> SQLStatement {
        SQLStatement("SELECT name FROM users WHERE name = ?", [.text(name)], columns: ["name"])
    }

    public static func createUser(_ user: UserRecord, now: Date) -> SQLStatement {
        let stored = StoredRole.columns(user.role)
        return SQLStatement(
            "INSERT INTO users (name, role, admin, password_hash, salt, iterations, created_at, group_name) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(user.name), .text(stored.role), .integer(stored.admin), .text(user.passwordHash), .text(user.salt), .integer(user.iterations),
                .real(now.timeIntervalSince1970), user.group.map(SQLValue.text) ?? .null,
            ]
        )
    }

    public static func storeToken(hash: String, user: String, expiresAt: Date, classroom: String?) -> SQLStatement {
        SQLStatement(
            "INSERT INTO tokens (token_hash, user_name, expires_at, classroom) VALUES (?, ?, ?, ?)",
            [.text(hash), .text(user), .real(expiresAt.timeIntervalSince1970), classroom.map(SQLValue.text) ?? .null]
        )
    }

    /// Who holds a token (`?` its hash, then now): a live account, and for a classroom's token a classroom key of
    /// that account not revoked (a revocation ends the classroom's session within the next request). One text for
    /// both engines (PostgreSQL prepares it with `$1`, `$2`).
    public static func tokenOwnerSQL(hash: String, now: String) -> String {
        """
        SELECT u.name, \(StoredRole.column("u.")), t.classroom FROM tokens t JOIN users u ON u.name = t.user_name
        WHERE t.token_hash = \(hash) AND t.expires_at > \(now) AND NOT u.disabled
        AND (t.classroom IS NULL OR EXISTS (SELECT 1 FROM device_keys k WHERE k.user_name = t.user_name AND k.fingerprint = t.classroom
        AND k.origin = '\(DeviceKeyRecord.Origin.classroomServer.rawValue)' AND k.revoked_at IS NULL))
        """
    }

    public static func updatePassword(_ user: UserRecord) -> SQLStatement {
        SQLStatement(
            "UPDATE users SET password_hash = ?, salt = ?, iterations = ? WHERE name = ?",
            [.text(user.passwordHash), .text(user.salt), .integer(user.iterations), .text(user.name)]
        )
    }

    public static func revokeToken(hash: String) -> SQLStatement { SQLStatement("DELETE FROM tokens WHERE token_hash = ?", [.text(hash)]) }

    public static func revokeTokens(user: String) -> SQLStatement { SQLStatement("DELETE FROM tokens WHERE user_name = ?", [.text(user)]) }

    public static func purgeExpiredTokens(now: Date) -> SQLStatement {
        SQLStatement("DELETE FROM tokens WHERE expires_at <= ?", [.real(now.timeIntervalSince1970)])
    }
}

/// `assessments`, `assessment_versions` and `sealing`.
public enum PublishingStatements {
    /// The current served version of an assessment that is not deleted.
    public static func served(id: String) -> SQLStatement {
        SQLStatement(
            """
            SELECT v.served, v.content_hash, v.version FROM assessments a
            JOIN assessment_versions v ON v.id = a.id AND v.version = a.current_version WHERE a.id = ? AND a.deleted = {false}
            """,
            [.text(id)],
            columns: ["served", "content_hash", "version"]
        )
    }

    /// Every assessment that is not deleted, at its current version, by id.
    public static let catalog = SQLStatement(
        """
        SELECT a.id, v.served, a.current_version, v.content_hash, a.updated_at FROM assessments a
        JOIN assessment_versions v ON v.id = a.id AND v.version = a.current_version
        WHERE a.deleted = {false} ORDER BY a.id
        """,
        columns: ["id", "served", "current_version", "content_hash", "updated_at"]
    )

    public static func sealing(assessmentID: String, version: Int) -> SQLStatement {
        SQLStatement(
            "SELECT content_key, start_code, wrapped_key FROM sealing WHERE assessment_id = ? AND version = ?",
            [.text(assessmentID), .integer(version)],
            columns: ["content_key", "start_code", "wrapped_key"]
        )
    }

    public static func storeSealing(assessmentID: String, version: Int, material: SealingMaterial) -> SQLStatement {
        SQLStatement(
            "INSERT INTO sealing (assessment_id, version, content_key, start_code, wrapped_key) VALUES (?, ?, ?, ?, ?)",
            [.text(assessmentID), .integer(version), .blob(material.contentKey), .text(material.startCode), .text(material.wrappedKeyText)]
        )
    }

    /// Whether the assessment exists and is not deleted (its row locked on PostgreSQL until the change commits).
    public static func live(id: String) -> SQLStatement {
        SQLStatement("SELECT id FROM assessments WHERE id = ? AND deleted = {false} {forUpdate}", [.text(id)], columns: ["id"])
    }

    public static func close(id: String, at: Date) -> SQLStatement {
        SQLStatement("UPDATE assessments SET closed_at = ? WHERE id = ? AND deleted = {false}", [.real(at.timeIntervalSince1970), .text(id)])
    }

    public static func release(id: String, at: Date) -> SQLStatement {
        SQLStatement(
            "UPDATE assessments SET released_at = ? WHERE id = ? AND deleted = {false} AND released_at IS NULL",
            [.real(at.timeIntervalSince1970), .text(id)]
        )
    }

    public static func delete(id: String, at: Date) -> SQLStatement {
        SQLStatement(
            "UPDATE assessments SET deleted = {true}, updated_at = ? WHERE id = ? AND deleted = {false}",
            [.real(at.timeIntervalSince1970), .text(id)]
        )
    }

    /// An assessment's head: its current version and whether it is deleted (no row: never published).
    static func head(id: String) -> SQLStatement {
        SQLStatement("SELECT current_version, deleted FROM assessments WHERE id = ?", [.text(id)], columns: ["current_version", "deleted"])
    }

    /// The teacher's document and content hash of the current version, deleted or not.
    static func currentSource(id: String) -> SQLStatement {
        SQLStatement(
            """
            SELECT v.source, v.content_hash FROM assessments a JOIN assessment_versions v ON v.id = a.id AND v.version = a.current_version
            WHERE a.id = ?
            """,
            [.text(id)],
            columns: ["source", "content_hash"]
        )
    }

    /// A version's rows: the assessment's head (new, or moved to this version and live again) and the version itself.
    static func publish(id: String, version: PublishPlan.NewVersion, source: Data, isNew: Bool, at: Date) -> [SQLStatement] {
        let at = SQLValue.real(at.timeIntervalSince1970)
        let head =
            isNew
            ? SQLStatement(
                "INSERT INTO assessments (id, current_version, deleted, updated_at) VALUES (?, ?, {false}, ?)",
                [.text(id), .integer(version.number), at]
            )
            : SQLStatement(
                "UPDATE assessments SET current_version = ?, deleted = {false}, updated_at = ? WHERE id = ?",
                [.integer(version.number), at, .text(id)]
            )
        return [
            head,
            SQLStatement(
                "INSERT INTO assessment_versions (id, version, source, served, content_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                [.text(id), .integer(version.number), .blob(source), .blob(version.served), .text(version.contentHash), at]
            ),
        ]
    }

    static let serverKey = SQLStatement("SELECT material FROM server_keys WHERE id = 1", columns: ["material"])

    static func storeServerKey(_ material: Data) -> SQLStatement {
        SQLStatement("INSERT INTO server_keys (id, material) VALUES (1, ?)", [.blob(material)])
    }

    public static func material(_ row: any StoredRow) throws -> SealingMaterial? {
        SealingMaterial(stored: try row.data("content_key"), code: try row.string("start_code"), wrapped: try row.string("wrapped_key"))
    }
}

/// `assessment_teachers`, `assessment_actions`, `device_keys` and `accommodations`.
public enum TeachingStatements {
    /// `PublishingStore.teaches`: a count of 1 when `student` is `teacher`'s.
    static func teaches(teacher: String, student: String) -> SQLStatement {
        let taking = ["downloads", "attempts", "enrolments", "accommodations"].map {
            "EXISTS (SELECT 1 FROM \($0) x JOIN assessment_teachers t ON t.assessment_id = x.assessment_id WHERE t.teacher = ? AND x.user_name = u.name)"
        }
        let classmates = """
            (u.group_name IS NOT NULL AND EXISTS (SELECT 1 FROM users o JOIN downloads x ON x.user_name = o.name
                JOIN assessment_teachers t ON t.assessment_id = x.assessment_id WHERE t.teacher = ? AND o.group_name = u.group_name))
            """
        return SQLStatement(
            "SELECT count(*) AS n FROM users u WHERE u.name = ? AND u.role = 'student' AND (\((taking + [classmates]).joined(separator: " OR ")))",
            [.text(student)] + Array(repeating: .text(teacher), count: taking.count + 1),
            columns: ["n"]
        )
    }

    public static func access(assessmentID: String, teacher: String) -> SQLStatement {
        SQLStatement(
            "SELECT owner FROM assessment_teachers WHERE assessment_id = ? AND teacher = ?",
            [.text(assessmentID), .text(teacher)],
            columns: ["owner"]
        )
    }

    public static func sharedIDs(teacher: String) -> SQLStatement {
        SQLStatement("SELECT assessment_id FROM assessment_teachers WHERE teacher = ?", [.text(teacher)], columns: ["assessment_id"])
    }

    public static func teachers(assessmentID: String) -> SQLStatement {
        SQLStatement("SELECT teacher, owner FROM assessment_teachers WHERE assessment_id = ?", [.text(assessmentID)], columns: ["teacher", "owner"])
    }

    public static func access(_ row: any StoredRow) throws -> TeacherAccess { access(owner: try row.int("owner")) }

    /// `assessment_teachers.owner` as the teacher's place: 1 owner, 0 co-teacher.
    static func access(owner: Int) -> TeacherAccess { owner != 0 ? .owner : .coTeacher }

    /// What sharing an assessment with a teacher depends on, in one row: whether the assessment exists, the teacher's
    /// place on it (1 owner, 0 co-teacher, NULL none) and the teacher's role (NULL: no such user).
    public static func shareFacts(assessmentID: String, teacher: String) -> SQLStatement {
        SQLStatement(
            """
            SELECT (SELECT COUNT(*) FROM assessments WHERE id = ?) AS assessments,
                (SELECT owner FROM assessment_teachers WHERE assessment_id = ? AND teacher = ?) AS owner,
                (SELECT \(StoredRole.column()) FROM users WHERE name = ?) AS role
            """,
            [.text(assessmentID), .text(assessmentID), .text(teacher), .text(teacher)],
            columns: ["assessments", "owner", "role"]
        )
    }

    static func addOwner(assessmentID: String, teacher: String) -> SQLStatement {
        SQLStatement("INSERT INTO assessment_teachers (assessment_id, teacher, owner) VALUES (?, ?, 1)", [.text(assessmentID), .text(teacher)])
    }

    public static func addTeacher(assessmentID: String, teacher: String) -> SQLStatement {
        SQLStatement("INSERT INTO assessment_teachers (assessment_id, teacher, owner) VALUES (?, ?, 0)", [.text(assessmentID), .text(teacher)])
    }

    public static func removeTeacher(assessmentID: String, teacher: String) -> SQLStatement {
        SQLStatement("DELETE FROM assessment_teachers WHERE assessment_id = ? AND teacher = ?", [.text(assessmentID), .text(teacher)])
    }

    /// The change a teacher makes to an assessment, and its line in the assessment's history.
    public static func apply(_ change: AssessmentChange, assessmentID: String, by actor: String, at: Date) -> [SQLStatement] {
        let id = SQLValue.text(assessmentID)
        let statement: SQLStatement =
            switch change {
            case .close(let when): SQLStatement("UPDATE assessments SET closed_at = ? WHERE id = ?", [.real(when.timeIntervalSince1970), id])
            case .reopen: SQLStatement("UPDATE assessments SET closed_at = NULL WHERE id = ?", [id])
            case .release:
                SQLStatement("UPDATE assessments SET released_at = ? WHERE id = ? AND released_at IS NULL", [.real(at.timeIntervalSince1970), id])
            case .hideResults: SQLStatement("UPDATE assessments SET released_at = NULL WHERE id = ?", [id])
            }
        let given = change == .reopen ? giveBackClosingHandIns(assessmentID: assessmentID) : []
        return given + [statement, history(assessmentID: assessmentID, kind: change.kind, by: actor, at: at)]
    }

    /// Reopening gives back the attempts the server handed in at closing that nobody graded (no points, no
    /// feedback): each attempt's latest answer per question counts again (answers that arrived after closing were
    /// kept as not counted), then the hand-in goes. Its student answers on and hands in as before.
    static func giveBackClosingHandIns(assessmentID: String) -> [SQLStatement] {
        giveBackClosingHandIns(where: "s.assessment_id = ?", [.text(assessmentID)])
    }

    /// The student's own hand-in of `attemptID`, made at `madeAt` (their vault's signed time, or when a classroom
    /// held it), before the server handed the attempt in at closing: that closing hand-in, when the student's lists
    /// only answers the server holds for the attempt (`listed`), is read by `closingHandInToReplace` and removed by
    /// `replaceClosingHandIn`; never when one of those answers says it was given after `madeAt` (beyond the clock
    /// tolerance). A grade the teacher gave it stays on a question whose answer does not change; where
    /// an answer that arrived after closing now counts, its points and feedback go (that question is to grade).
    static func closingHandInToReplace(attemptID: String, madeAt: Date, listed: [String]) -> SQLStatement {
        let marks = Array(repeating: "?", count: listed.count).joined(separator: ", ")
        return SQLStatement(
            """
            SELECT s.attempt_id, s.assessment_id, s.user_name FROM submissions s
            WHERE s.attempt_id = ? AND s.via = '\(SubmissionChannel.closing.rawValue)' AND s.submitted_at > ? AND s.received_at > ?
            AND (SELECT COUNT(*) FROM responses r WHERE r.attempt_id = s.attempt_id AND r.id IN (\(listed.isEmpty ? "NULL" : marks))) = ?
            AND NOT EXISTS (
                SELECT 1 FROM responses r WHERE r.attempt_id = s.attempt_id AND r.id IN (\(listed.isEmpty ? "NULL" : marks))
                AND r.answered_at_ms > ?
            )
            """,
            [.text(attemptID), .text(Timestamp.string(madeAt)), .real(madeAt.timeIntervalSince1970)] + listed.map(SQLValue.text)
                + [.integer(listed.count)] + listed.map(SQLValue.text)
                + [.integer(Int(saturating: ((madeAt.timeIntervalSince1970 + TimeAuthority.clockTolerance) * 1000).rounded()))],
            columns: ["attempt_id", "assessment_id", "user_name"]
        )
    }

    /// The questions of `attemptID` whose answer changes when its closing hand-in is replaced: one that arrived after
    /// that hand-in (kept then, not counted) counts now.
    private static let changedByReplacing = """
        SELECT r.question_id FROM responses r, submissions s
        WHERE r.attempt_id = ? AND s.attempt_id = r.attempt_id AND r.received_at >= s.received_at
        """

    /// The teacher's points on the closing hand-in that carry to the student's own: those of questions whose answer
    /// does not change.
    static func gradesCarried(attemptID: String) -> SQLStatement {
        SQLStatement(
            "SELECT question_id, points FROM grades WHERE attempt_id = ? AND question_id NOT IN (\(changedByReplacing))",
            [.text(attemptID), .text(attemptID)],
            columns: ["question_id", "points"]
        )
    }

    /// The writes that remove the closing hand-in `closingHandInToReplace` found, in one transaction with its read:
    /// its grades go with it (they reference it; those carried are given again to the student's own hand-in), and
    /// the feedback on questions whose answer changes.
    static func replaceClosingHandIn(attemptID: String, assessmentID: String, student: String, at: Date) -> [SQLStatement] {
        let id = SQLValue.text(attemptID)
        return [
            SQLStatement("DELETE FROM feedback WHERE attempt_id = ? AND question_id IN (\(changedByReplacing))", [id, id]),
            SQLStatement("DELETE FROM grades WHERE attempt_id = ?", [id]),
        ] + giveBackClosingHandIns(where: "s.attempt_id = ?", [id], ungradedOnly: false) + [
            history(assessmentID: assessmentID, kind: .closingReplaced, by: "the student's vault", at: at, subject: student)
        ]
    }

    private static func giveBackClosingHandIns(where condition: String, _ values: [SQLValue], ungradedOnly: Bool = true) -> [SQLStatement] {
        let attempts = """
            SELECT s.attempt_id FROM submissions s WHERE \(condition) AND s.via = '\(SubmissionChannel.closing.rawValue)'
            """
            + (ungradedOnly
                ? """

                AND NOT EXISTS (SELECT 1 FROM grades g WHERE g.attempt_id = s.attempt_id)
                AND NOT EXISTS (SELECT 1 FROM feedback f WHERE f.attempt_id = s.attempt_id)
                """ : "")
        return [
            SQLStatement("UPDATE responses SET superseded = {true} WHERE attempt_id IN (\(attempts))", values),
            SQLStatement(
                """
                UPDATE responses SET superseded = {false} WHERE attempt_id IN (\(attempts)) AND NOT EXISTS (
                    SELECT 1 FROM responses newer WHERE newer.attempt_id = responses.attempt_id AND newer.question_id = responses.question_id
                    AND (newer.answered_at_ms > responses.answered_at_ms OR (newer.answered_at_ms = responses.answered_at_ms AND newer.id > responses.id))
                )
                """,
                values
            ),
            SQLStatement("DELETE FROM submissions WHERE attempt_id IN (\(attempts))", values),
        ]
    }

    /// A line of an assessment's history: what, who, when, and whom it concerns (a late hand-in's student).
    public static func history(assessmentID: String, kind: AssessmentAction.Kind, by actor: String, at: Date, subject: String? = nil) -> SQLStatement
    {
        SQLStatement(
            "INSERT INTO assessment_actions (assessment_id, action, actor, at, subject) VALUES (?, ?, ?, ?, ?)",
            [.text(assessmentID), .text(kind.rawValue), .text(actor), .real(at.timeIntervalSince1970), subject.map(SQLValue.text) ?? .null]
        )
    }

    public static func actions(assessmentID: String) -> SQLStatement {
        SQLStatement(
            "SELECT \(AssessmentAction.columns.joined(separator: ", ")) FROM assessment_actions WHERE assessment_id = ? ORDER BY seq",
            [.text(assessmentID)],
            columns: AssessmentAction.columns
        )
    }

    public static func deviceKeys(user: String) -> SQLStatement { DeviceKeyStatements.live(user: user) }

    public static func setAccommodation(assessmentID: String?, user: String, extraMinutes: Int, dialect: SQLDialect) -> SQLStatement {
        SQLStatement(
            dialect.upsert(into: "accommodations", columns: ["assessment_id", "user_name", "extra_minutes"], key: ["assessment_id", "user_name"]),
            [.text(AccommodationScope.stored(assessmentID)), .text(user), .integer(extraMinutes)]
        )
    }

    /// The student's extra minutes for the assessment: its own, else those for every assessment, else none.
    public static func extraMinutes(assessmentID: String, user: String) -> SQLStatement {
        SQLStatement(
            """
            SELECT extra_minutes FROM accommodations WHERE user_name = ? AND assessment_id IN (?, ?)
            ORDER BY assessment_id = ? LIMIT 1
            """,
            [.text(user), .text(assessmentID), .text(AccommodationScope.everyAssessment), .text(AccommodationScope.everyAssessment)],
            columns: ["extra_minutes"]
        )
    }
}

/// What a hand-in's score is kept from: `submissions`, `responses`, `grades` and `feedback`.
public enum ScoringStatements {
    /// The teacher's document that scores a submitted attempt: its version's, or the one it was regraded against (no
    /// row: not submitted), with the student's draw where the assessment has one (its maximum is their questions').
    public static func submittedSource(attemptID: String) -> SQLStatement {
        SQLStatement(
            """
            SELECT v.source, d.draw, s.assessment_id, s.user_name FROM submissions s
            JOIN assessment_versions v ON v.id = s.assessment_id AND v.version = COALESCE(s.scored_version, s.assessment_version)
            LEFT JOIN draws d ON d.assessment_id = s.assessment_id AND d.user_name = s.user_name
            WHERE s.attempt_id = ?
            """,
            [.text(attemptID)],
            columns: ["source", "draw", "assessment_id", "user_name"]
        )
    }

    /// The attempt's current answers (superseded ones left out): what a receipt states and a submission must list.
    public static func currentAnswers(attemptID: String) -> SQLStatement {
        SQLStatement(
            "SELECT id, question_id, answer FROM responses WHERE attempt_id = ? AND superseded = {false}",
            [.text(attemptID)],
            columns: ["id", "question_id", "answer"]
        )
    }

    public static func answer(_ row: any StoredRow) throws -> ReceiptMaterial.Answer {
        ReceiptMaterial.Answer(responseID: try row.string("id"), questionID: try row.string("question_id"), answer: try row.string("answer"))
    }

    public static func grades(attemptID: String) -> SQLStatement {
        SQLStatement("SELECT question_id, points FROM grades WHERE attempt_id = ?", [.text(attemptID)], columns: ["question_id", "points"])
    }

    public static func grade(_ row: any StoredRow) throws -> (questionID: String, points: Double) {
        (try row.string("question_id"), try row.double("points"))
    }

    /// The teacher's points for a question of a hand-in, over the automatic ones.
    public static func setGrade(attemptID: String, questionID: String, points: Double, dialect: SQLDialect) -> SQLStatement {
        SQLStatement(
            dialect.upsert(into: "grades", columns: ["attempt_id", "question_id", "points"], key: ["attempt_id", "question_id"]),
            [.text(attemptID), .text(questionID), .real(points)]
        )
    }

    /// A hand-in scored from now on by `version`'s keys and points (a regrade).
    public static func scoredBy(version: Int, attemptID: String) -> SQLStatement {
        SQLStatement("UPDATE submissions SET scored_version = ? WHERE attempt_id = ?", [.integer(version), .text(attemptID)])
    }

    public static func keepTotals(_ totals: Scoring.Totals, attemptID: String) -> SQLStatement {
        SQLStatement(
            "UPDATE submissions SET score = ?, max_score = ?, pending = ?, kept_points = ? WHERE attempt_id = ?",
            [
                .real(totals.score), .real(totals.maxScore), .integer(totals.pending), totals.automaticText.map(SQLValue.text) ?? .null,
                .text(attemptID),
            ]
        )
    }

    /// The teacher's words on a question of a hand-in (nil: take them back).
    public static func feedback(attemptID: String, questionID: String, text: String?, dialect: SQLDialect) -> SQLStatement {
        guard let text else {
            return SQLStatement("DELETE FROM feedback WHERE attempt_id = ? AND question_id = ?", [.text(attemptID), .text(questionID)])
        }
        return SQLStatement(
            dialect.upsert(into: "feedback", columns: ["attempt_id", "question_id", "text"], key: ["attempt_id", "question_id"]),
            [.text(attemptID), .text(questionID), .text(text)]
        )
    }
}

/// `downloads`, `refused_submissions`, `submissions`' late decision and `device_keys`' owners.
public enum DeskStatements {
    /// `classroom`: the classroom server it was made on (the district's roster names it), nil for a direct one.
    public static func firstDownload(assessmentID: String, version: Int, user: String, at: Date, classroom: String?) -> SQLStatement {
        SQLStatement(
            "INSERT INTO downloads (assessment_id, user_name, version, first_at, last_at, classroom) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(assessmentID), .text(user), .integer(version), .real(at.timeIntervalSince1970), .real(at.timeIntervalSince1970),
                classroom.map(SQLValue.text) ?? .null,
            ]
        )
    }

    public static func downloadAgain(assessmentID: String, version: Int, user: String, at: Date, classroom: String?) -> SQLStatement {
        SQLStatement(
            "UPDATE downloads SET last_at = ?, classroom = ? WHERE assessment_id = ? AND user_name = ? AND version = ?",
            [.real(at.timeIntervalSince1970), classroom.map(SQLValue.text) ?? .null, .text(assessmentID), .text(user), .integer(version)]
        )
    }

    /// A hand-in refused: the latest per student and assessment.
    public static func refusal(_ refusal: RosterFacts.Refusal, dialect: SQLDialect) -> SQLStatement {
        SQLStatement(
            dialect.upsert(
                into: "refused_submissions",
                columns: ["assessment_id", "user_name", "attempt_id", "reason", "at"],
                key: ["assessment_id", "user_name"]
            ),
            [.text(refusal.assessmentID), .text(refusal.user), .text(refusal.attemptID), .text(refusal.reason.rawValue), .real(refusal.at)]
        )
    }

    public static func decideLate(attemptID: String, decision: LateDecision?) -> SQLStatement {
        SQLStatement(
            "UPDATE submissions SET late_decision = ? WHERE attempt_id = ?",
            [decision.map { SQLValue.text($0.rawValue) } ?? .null, .text(attemptID)]
        )
    }

    /// A late decision's history line: on the assessment's page, with the student it concerns.
    public static func lateHistory(assessmentID: String, student: String, decision: LateDecision?, by actor: String, at: Date) -> SQLStatement {
        let kind: AssessmentAction.Kind =
            switch decision {
            case .accepted?: .lateAccepted
            case .zeroed?: .lateZeroed
            case nil: .lateUndone
            }
        return TeachingStatements.history(assessmentID: assessmentID, kind: kind, by: actor, at: at, subject: student)
    }

    public static func lateFacts(attemptID: String) -> SQLStatement {
        SQLStatement(
            "SELECT flags, user_name, assessment_id FROM submissions WHERE attempt_id = ?",
            [.text(attemptID)],
            columns: ["flags", "user_name", "assessment_id"]
        )
    }

}

extension SharedStatements {
    // MARK: Small transactions: a read, and the writes it calls for

    public func storeSealing(assessmentID: String, version: Int, material: SealingMaterial) async throws -> SealingMaterial {
        // The first material stored for a version stands (two processes sealing it at once agree on one).
        let insert = PublishingStatements.storeSealing(assessmentID: assessmentID, version: version, material: material)
        let stored = try await readThenWrite(
            PublishingStatements.sealing(assessmentID: assessmentID, version: version),
            PublishingStatements.material,
            writes: { $0.isEmpty ? [insert] : [] }
        )
        return stored.first.flatMap { $0 } ?? material
    }

    public func serverIdentityMaterial(generate: @Sendable () -> Data) async throws -> Data {
        let fresh = generate()
        let stored = try await readThenWrite(
            PublishingStatements.serverKey,
            { try $0.data("material") },
            writes: {
                $0.isEmpty ? [PublishingStatements.storeServerKey(fresh)] : []
            }
        )
        return stored.first ?? fresh
    }

    /// `change` applied to an assessment that exists and is not deleted; false when there is none.
    private func onLive(_ id: String, _ change: SQLStatement) async throws -> Bool {
        try await !readThenWrite(PublishingStatements.live(id: id), { try $0.string("id") }, writes: { $0.isEmpty ? [] : [change] }).isEmpty
    }

    public func apply(_ change: AssessmentChange, assessmentID: String, by actor: String, at: Date) async throws -> Bool {
        try await apply(change, assessmentID: assessmentID, by: actor, at: at, upstream: true)
    }

    /// `upstream`: on a classroom server, results shown or hidden are kept for the district too.
    func apply(_ change: AssessmentChange, assessmentID: String, by actor: String, at: Date, upstream: Bool) async throws -> Bool {
        var kept: [SQLStatement] = []
        if upstream {
            switch change {
            case .release, .hideResults:
                kept = try ClassroomStatements.keepRelease(ClassroomRelease(assessmentId: assessmentID, released: change == .release), at: at)
            case .close(let when):
                kept = try ClassroomStatements.keepClosing(ClassroomClosing(assessmentId: assessmentID, closedAt: Timestamp.string(when)), at: at)
            case .reopen:
                kept = try ClassroomStatements.keepClosing(ClassroomClosing(assessmentId: assessmentID, closedAt: nil), at: at)
            }
        }
        let writes = TeachingStatements.apply(change, assessmentID: assessmentID, by: actor, at: at) + kept
        return try await !readThenWrite(PublishingStatements.live(id: assessmentID), { try $0.string("id") }, writes: { $0.isEmpty ? [] : writes })
            .isEmpty
    }

    /// A teacher's document published: a new version when it differs from the current one (`PublishPlan`), by a
    /// teacher who may (`Ownership`: the first publisher owns it), in one transaction.
    public func publish(_ assessment: Assessment, now: Date, by publisher: Publisher?) async throws -> PublishResponse {
        let source = try AssessmentPublisher.sourceBytes(assessment)
        let id = assessment.id
        return try await readThenWrite([
            PublishingStatements.head(id: id), PublishingStatements.currentSource(id: id), TeachingStatements.teachers(assessmentID: id),
        ]) { tables in
            let head = try tables[0].first.map { AssessmentHead(currentVersion: try $0.int("current_version"), deleted: try $0.bool("deleted")) }
            let teachers = try tables[2].map { try $0.string("teacher") }
            guard Ownership.mayPublish(exists: head != nil, teachers: teachers, publisher: publisher) else { throw StorageError.notPermitted(id) }
            let current = try tables[1].first.map { (try $0.data("source"), try $0.string("content_hash")) }
            let plan = try PublishPlan.decide(assessment, source: source, head: head, currentSource: current)
            guard let version = plan.newVersion else { return (plan.response, []) }
            var writes = PublishingStatements.publish(id: id, version: version, source: source, isNew: head == nil, at: now)
            if head == nil, let publisher { writes.append(TeachingStatements.addOwner(assessmentID: id, teacher: publisher.name)) }
            return (plan.response, writes)
        }
    }

    public func createUser(_ user: UserRecord, now: Date) async throws {
        let insert = AccountStatements.createUser(user, now: now)
        let existing = try await readThenWrite(
            AccountStatements.exists(name: user.name),
            { try $0.string("name") },
            writes: { $0.isEmpty ? [insert] : [] }
        )
        if !existing.isEmpty { throw StorageError.userExists(user.name) }
    }

    public func share(assessmentID: String, teacher: String, remove: Bool) async throws -> ShareOutcome {
        let add = TeachingStatements.addTeacher(assessmentID: assessmentID, teacher: teacher)
        let drop = TeachingStatements.removeTeacher(assessmentID: assessmentID, teacher: teacher)
        let facts = try await readThenWrite(
            TeachingStatements.shareFacts(assessmentID: assessmentID, teacher: teacher),
            { row in
                Sharing(
                    exists: try row.int("assessments") > 0,
                    access: try row.optionalInt("owner").map(TeachingStatements.access(owner:)),
                    role: try row.optionalString("role").flatMap(Role.init(rawValue:))
                )
            },
            writes: { rows in
                guard let facts = rows.first else { return [] }
                return switch facts.outcome(remove: remove) {
                case .removed: [drop]
                case .shared where facts.access == nil: [add]
                default: []
                }
            }
        )
        return facts.first?.outcome(remove: remove) ?? .noAssessment
    }

    public func setFeedback(attemptID: String, questionID: String, text: String?) async throws -> Bool {
        try await setFeedback(attemptID: attemptID, questionID: questionID, text: text, upstream: true)
    }

    /// `upstream`: on a classroom server, kept for the district too (the teacher's own, not what came down from it).
    func setFeedback(attemptID: String, questionID: String, text: String?, upstream: Bool) async throws -> Bool {
        let change = ScoringStatements.feedback(attemptID: attemptID, questionID: questionID, text: text, dialect: dialect)
        let now = Date()
        let sources = try await readThenWrite(
            ScoringStatements.submittedSource(attemptID: attemptID),
            { (try $0.data("source"), try $0.string("assessment_id"), try $0.string("user_name")) },
            writes: { sources in
                guard let (source, assessment, student) = sources.first, GradePlan.allows(questionID: questionID, source: source) else { return [] }
                let mark = ClassroomMark(assessmentId: assessment, attemptId: attemptID, questionId: questionID, text: text)
                return [change] + (upstream ? try ClassroomStatements.keepMark(.feedback, mark, student: student, at: now) : [])
            }
        )
        return GradePlan.allows(questionID: questionID, source: sources.first?.0)
    }

    public func close(assessmentID: String, at: Date) async throws -> Bool {
        try await onLive(assessmentID, PublishingStatements.close(id: assessmentID, at: at))
    }

    public func release(assessmentID: String, now: Date) async throws -> Bool {
        try await onLive(assessmentID, PublishingStatements.release(id: assessmentID, at: now))
    }

    public func delete(id: String, now: Date) async throws -> Bool {
        try await onLive(id, PublishingStatements.delete(id: id, at: now))
    }

    public func recordRefusals(_ refusals: [RosterFacts.Refusal]) async throws {
        guard !refusals.isEmpty else { return }
        let dialect = dialect
        try await write(refusals.map { DeskStatements.refusal($0, dialect: dialect) })
    }

    /// Regrades (or, `apply: false`, only says what regrading would do): `RegradePlan` over every hand-in of the
    /// assessment, read in the transaction that writes it; each regraded hand-in is scored by the current version
    /// from then on (its kept score with it), and one history line says how many. Nil when there is no live
    /// assessment.
    public func regrade(assessmentID: String, apply: Bool, by actor: String, at: Date) async throws -> RegradePlan.Outcome? {
        let results = RosterStatements.results(user: nil, assessmentID: assessmentID, attemptIDs: nil, users: nil, detail: .answers)
        let reads = [PublishingStatements.head(id: assessmentID), PublishingStatements.currentSource(id: assessmentID)] + results
        return try await readThenWrite(reads, queue: "submissions:" + assessmentID) { tables in
            guard let head = tables[0].first, try !head.bool("deleted"), let source = tables[1].first else { return (nil, []) }
            let version = try head.int("current_version")
            let current = try StoredDocument.decode(try source.data("source"), DocumentKey(id: assessmentID, version: version))
            let outcome = RegradePlan.plan(try RosterStatements.results(tables[2...]), current: current, currentVersion: version)
            guard apply, !outcome.changes.isEmpty || !outcome.unchanged.isEmpty else { return (outcome, []) }
            var writes: [SQLStatement] = []
            for change in outcome.changes {
                writes.append(ScoringStatements.scoredBy(version: version, attemptID: change.attemptID))
                writes.append(ScoringStatements.keepTotals(change.totals, attemptID: change.attemptID))
            }
            for attempt in outcome.unchanged { writes.append(ScoringStatements.scoredBy(version: version, attemptID: attempt)) }
            let count = outcome.changes.count
            writes.append(
                TeachingStatements.history(
                    assessmentID: assessmentID,
                    kind: .regraded,
                    by: actor,
                    at: at,
                    subject: "\(count) \(count == 1 ? "score" : "scores") changed of \(count + outcome.unchanged.count)"
                )
            )
            return (outcome, writes)
        }
    }

    public func decideLate(attemptID: String, decision: LateDecision?, by actor: String?, at: Date) async throws -> Bool {
        try await decideLate(attemptID: attemptID, decision: decision, by: actor, at: at, upstream: true)
    }

    /// `upstream`: on a classroom server, kept for the district too (the teacher's own, not what came down from it).
    func decideLate(attemptID: String, decision: LateDecision?, by actor: String?, at: Date, upstream: Bool) async throws -> Bool {
        let late = try await readThenWrite(
            DeskStatements.lateFacts(attemptID: attemptID),
            {
                (
                    flags: try SubmissionRecord.flags(stored: $0.string("flags")), user: try $0.string("user_name"),
                    assessment: try $0.string("assessment_id")
                )
            },
            writes: { rows in
                guard let facts = rows.first, SubmissionRecord.decidable(facts.flags) else { return [] }
                var writes = [DeskStatements.decideLate(attemptID: attemptID, decision: decision)]
                if upstream {
                    let kept = ClassroomLate(assessmentId: facts.assessment, attemptId: attemptID, decision: decision?.rawValue)
                    writes += try ClassroomStatements.keepLate(kept, student: facts.user, at: at)
                }
                if let actor {
                    writes.append(
                        DeskStatements.lateHistory(assessmentID: facts.assessment, student: facts.user, decision: decision, by: actor, at: at)
                    )
                }
                return writes
            }
        )
        return late.first.map { SubmissionRecord.decidable($0.flags) } == true
    }

    public func registerDeviceKey(
        user: String,
        publicKey: String,
        origin: DeviceKeyRecord.Origin,
        detail: String? = nil,
        now: Date
    ) async throws -> Bool {
        let owners = try await readThenWrite(
            DeviceKeyStatements.owner(publicKey: publicKey),
            { (user: try $0.string("user_name"), revoked: try $0.optionalDouble("revoked_at") != nil) },
            writes: { owners in
                guard let owner = owners.first else {
                    return [DeviceKeyStatements.register(user: user, publicKey: publicKey, origin: origin, detail: detail, at: now)]
                }
                // A revoked key comes back only by its own student's password sign-in from that device.
                return owner.user == user && owner.revoked && origin == .signIn ? [DeviceKeyStatements.restore(user: user, publicKey: publicKey)] : []
            }
        )
        guard let owner = owners.first else { return true }
        return owner.user == user && (!owner.revoked || origin == .signIn)
    }

    public func registerableKey(_ publicKey: String, for user: String) async throws -> Bool {
        let owners = try await rows(DeviceKeyStatements.owner(publicKey: publicKey)) {
            (user: try $0.string("user_name"), revoked: try $0.optionalDouble("revoked_at") != nil)
        }
        guard let owner = owners.first else { return true }
        return owner.user == user && !owner.revoked
    }

    public func deviceKeyRecords(user: String) async throws -> [DeviceKeyRecord] {
        try await rows(DeviceKeyStatements.records(user: user)) { try DeviceKeyRecord(row: $0) }
    }

    public func revokeDeviceKeys(user: String, key: String?, by actor: String, now: Date) async throws -> Int {
        try await readThenWrite([DeviceKeyStatements.records(user: user)]) { tables in
            let records = try tables[0].map { try DeviceKeyRecord(row: $0) }
            let hit = records.filter { $0.revokedAt == nil && (key == nil || $0.publicKey == key || $0.fingerprint == key) }
            return (hit.count, hit.isEmpty ? [] : [DeviceKeyStatements.revoke(user: user, key: key, by: actor, at: now)])
        }
    }

    public func noteDeviceKeyUsed(publicKey: String, now: Date) async throws {
        try await run(DeviceKeyStatements.used(publicKey: publicKey, at: now))
    }

    // MARK: Single statements

    /// Every live assessment at its current version, each served document decoded once (`documents`).
    public func catalog() async throws -> [CatalogEntry] {
        let documents = documents
        return try await rows(PublishingStatements.catalog) { row in
            let key = DocumentKey(id: try row.string("id"), version: try row.int("current_version"))
            let served = try row.data("served")
            return CatalogEntry(
                served: try documents.decoded(key, bytes: served),
                version: key.version,
                contentHash: try row.string("content_hash"),
                servedBytes: served.count,
                updatedAt: try row.double("updated_at")
            )
        }
    }

    public func served(id: String) async throws -> (bytes: Data, contentHash: String, version: Int)? {
        try await row(PublishingStatements.served(id: id)) { (try $0.data("served"), try $0.string("content_hash"), try $0.int("version")) }
    }

    public func sealing(assessmentID: String, version: Int) async throws -> SealingMaterial? {
        try await row(PublishingStatements.sealing(assessmentID: assessmentID, version: version), PublishingStatements.material) ?? nil
    }

    public func user(named name: String) async throws -> UserRecord? {
        try await row(AccountStatements.user(named: name), AccountStatements.user)
    }

    public func storeToken(hash: String, user: String, expiresAt: Date, classroom: String?) async throws {
        try await run(AccountStatements.storeToken(hash: hash, user: user, expiresAt: expiresAt, classroom: classroom))
    }

    public func classroomKeys() async throws -> [DeviceKeyRecord] {
        try await rows(DeviceKeyStatements.classrooms) { try DeviceKeyRecord(row: $0) }
    }

    public func updatePassword(_ user: UserRecord) async throws { try await run(AccountStatements.updatePassword(user)) }

    public func revokeToken(hash: String) async throws { try await run(AccountStatements.revokeToken(hash: hash)) }

    public func revokeTokens(user: String, now: Date) async throws {
        try await write([AccountStatements.revokeTokens(user: user), DeviceKeyStatements.revokeClassrooms(user: user, by: "a new password", at: now)])
    }

    public func setDisabled(user: String, disabled: Bool, now: Date) async throws -> Bool {
        let off = [
            AccountStatements.revokeTokens(user: user), DeviceKeyStatements.revokeClassrooms(user: user, by: "turning the account off", at: now),
        ]
        let writes = [AccountStatements.setDisabled(name: user, disabled: disabled)] + (disabled ? off : [])
        return try await !readThenWrite(AccountStatements.exists(name: user), { try $0.string("name") }, writes: { $0.isEmpty ? [] : writes })
            .isEmpty
    }

    public func purgeExpiredTokens(now: Date) async throws { try await run(AccountStatements.purgeExpiredTokens(now: now)) }

    public func teacherAccess(assessmentID: String, teacher: String) async throws -> TeacherAccess? {
        try await row(TeachingStatements.access(assessmentID: assessmentID, teacher: teacher), TeachingStatements.access)
    }

    public func teaches(teacher: String, student: String) async throws -> Bool {
        try await row(TeachingStatements.teaches(teacher: teacher, student: student)) { try $0.int("n") > 0 } ?? false
    }

    public func sharedAssessmentIDs(teacher: String) async throws -> Set<String> {
        Set(try await rows(TeachingStatements.sharedIDs(teacher: teacher)) { try $0.string("assessment_id") })
    }

    public func assessmentTeachers(assessmentID: String) async throws -> [String: TeacherAccess] {
        let rows = try await rows(TeachingStatements.teachers(assessmentID: assessmentID)) {
            (try $0.string("teacher"), try TeachingStatements.access($0))
        }
        return Dictionary(rows, uniquingKeysWith: { _, last in last })
    }

    public func actions(assessmentID: String) async throws -> [AssessmentAction] {
        try await rows(TeachingStatements.actions(assessmentID: assessmentID)) { try AssessmentAction(row: $0) }
    }

    public func deviceKeys(user: String) async throws -> [String] {
        try await rows(TeachingStatements.deviceKeys(user: user)) { try $0.string("public_key") }
    }

    public func setAccommodation(assessmentID: String?, user: String, extraMinutes: Int) async throws {
        try await run(TeachingStatements.setAccommodation(assessmentID: assessmentID, user: user, extraMinutes: extraMinutes, dialect: dialect))
    }

    public func extraMinutes(assessmentID: String, user: String) async throws -> Int {
        try await row(TeachingStatements.extraMinutes(assessmentID: assessmentID, user: user)) { try $0.int("extra_minutes") } ?? 0
    }
}

/// What sharing an assessment with a teacher decides on.
struct Sharing: Sendable {
    var exists: Bool
    /// The teacher's place on it (nil: not on it).
    var access: TeacherAccess?
    var role: Role?

    func outcome(remove: Bool) -> ShareOutcome {
        guard exists else { return .noAssessment }
        if remove { return access == .owner ? .cannotRemoveOwner : .removed }
        return role?.teaches == true ? .shared : .noTeacher
    }
}

import Foundation
import VaultAPI
import VaultRules

/// What a student, a teacher and an export read back of the answers: held attempts, replaced answers, what was
/// received, the Assessments page's counts and a hand-in's receipt, written once for both engines.
public enum ResultStatements {
    /// The user's attempts of the assessment: id, clock start, handed in.
    public static func heldAttempts(user: String, assessmentID: String) -> SQLStatement {
        SQLStatement(
            """
            SELECT t.id, t.started_at, EXISTS (SELECT 1 FROM submissions s WHERE s.attempt_id = t.id) AS handed_in FROM attempts t
            WHERE t.user_name = ? AND t.assessment_id = ?
            """,
            [.text(user), .text(assessmentID)],
            columns: ["id", "started_at", "handed_in"]
        )
    }

    public static func heldAttempt(_ row: any StoredRow) throws -> HeldAttemptsQuery.AttemptRow {
        HeldAttemptsQuery.AttemptRow(id: try row.string("id"), startedAt: try row.optionalDouble("started_at"), handedIn: try row.bool("handed_in"))
    }

    /// Their current answers.
    public static func heldAnswers(user: String, assessmentID: String) -> SQLStatement {
        SQLStatement(
            """
            SELECT r.attempt_id, r.id, r.question_id, r.answer, r.answered_at, r.assessment_version FROM responses r
            WHERE r.user_name = ? AND r.assessment_id = ? AND r.superseded = {false}
            """,
            [.text(user), .text(assessmentID)],
            columns: ["attempt_id", "id", "question_id", "answer", "answered_at", "assessment_version"]
        )
    }

    public static func heldAnswer(_ row: any StoredRow) throws -> HeldAttemptsQuery.AnswerRow {
        HeldAttemptsQuery.AnswerRow(
            attemptID: try row.string("attempt_id"),
            responseID: try row.string("id"),
            questionID: try row.string("question_id"),
            answer: try row.string("answer"),
            answeredAt: try row.string("answered_at"),
            version: try row.int("assessment_version")
        )
    }

    /// An attempt's answers that do not count, with the hand-in's time (`ReplacedAnswersQuery.answer` reads a row).
    public static func replacedAnswers(attemptID: String) -> SQLStatement {
        SQLStatement(
            """
            SELECT r.question_id, r.id, r.answer, r.answered_at, r.answered_at_ms,
                (SELECT s.submitted_at FROM submissions s WHERE s.attempt_id = r.attempt_id) AS submitted_at
            FROM responses r WHERE r.attempt_id = ? AND r.superseded = {true} ORDER BY r.question_id, \(AnswerOrder.sql(time: "r.answered_at_ms", id: "r.id"))
            """,
            [.text(attemptID)],
            columns: ["question_id", "id", "answer", "answered_at", "answered_at_ms", "submitted_at"]
        )
    }

    public static func replacedAnswer(_ row: any StoredRow) throws -> ReplacedAnswer {
        try ReplacedAnswersQuery.answer(
            questionID: row.string("question_id"),
            responseID: row.string("id"),
            answer: row.string("answer"),
            answeredAt: row.string("answered_at"),
            answeredAtMilliseconds: Int64(row.int("answered_at_ms")),
            handedIn: row.optionalString("submitted_at")
        )
    }

    /// The Assessments page: students, hand-ins per assessment (of students, and of anyone else), closings.
    static let students = SQLStatement("SELECT count(*) AS students FROM users WHERE role = 'student'", columns: ["students"])
    static let handedIn = SQLStatement(
        """
        SELECT s.assessment_id, count(DISTINCT s.user_name) AS handed_in,
            count(DISTINCT CASE WHEN u.name IS NULL THEN s.user_name END) AS others
        FROM submissions s LEFT JOIN users u ON u.name = s.user_name AND u.role = 'student' GROUP BY s.assessment_id
        """,
        columns: ["assessment_id", "handed_in", "others"]
    )
    static let closed = SQLStatement("SELECT id, closed_at FROM assessments WHERE closed_at IS NOT NULL", columns: ["id", "closed_at"])

    /// Everything received for an assessment, in the order an export lists it.
    static func assessment(id: String) -> SQLStatement { SQLStatement("SELECT id FROM assessments WHERE id = ?", [.text(id)], columns: ["id"]) }

    static func receivedResponses(assessmentID: String) -> SQLStatement {
        SQLStatement(
            """
            SELECT \(ReceivedResponses.Response.selection("r")) FROM responses r WHERE r.assessment_id = ?
            ORDER BY r.attempt_id, r.question_id, \(AnswerOrder.sql(time: "r.answered_at_ms", id: "r.id"))
            """,
            [.text(assessmentID)],
            columns: ReceivedResponses.Response.columns
        )
    }

    static func receivedSubmissions(assessmentID: String) -> SQLStatement {
        SQLStatement(
            "SELECT \(SubmissionRecord.selection("s")) FROM submissions s WHERE s.assessment_id = ? ORDER BY s.attempt_id",
            [.text(assessmentID)],
            columns: SubmissionRecord.columns
        )
    }

    /// The content hash of a hand-in's version (no row: not handed in).
    static func contentHash(attemptID: String) -> SQLStatement {
        SQLStatement(
            """
            SELECT v.content_hash FROM submissions s JOIN assessment_versions v ON v.id = s.assessment_id AND v.version = s.assessment_version
            WHERE s.attempt_id = ?
            """,
            [.text(attemptID)],
            columns: ["content_hash"]
        )
    }

    static func signedReceipt(attemptID: String) -> SQLStatement {
        SQLStatement("SELECT signed_receipt FROM submissions WHERE attempt_id = ? {forUpdate}", [.text(attemptID)], columns: ["signed_receipt"])
    }

    static func attachReceipt(_ signed: SignedReceipt, attemptID: String) -> SQLStatement {
        SQLStatement(
            "UPDATE submissions SET signed_receipt = ? WHERE attempt_id = ? AND signed_receipt IS NULL",
            [.text(signed.storedText), .text(attemptID)]
        )
    }
}

extension SharedStatements {
    public func heldAttempts(user: String, assessmentID: String) async throws -> [HeldAttempt] {
        try await snapshot([
            ResultStatements.heldAttempts(user: user, assessmentID: assessmentID),
            ResultStatements.heldAnswers(user: user, assessmentID: assessmentID),
        ]) { tables in
            try HeldAttemptsQuery.assemble(
                assessmentID: assessmentID,
                attempts: tables[0].map(ResultStatements.heldAttempt),
                answers: tables[1].map(ResultStatements.heldAnswer)
            )
        }
    }

    public func replacedAnswers(attemptID: String) async throws -> [ReplacedAnswer] {
        try await rows(ResultStatements.replacedAnswers(attemptID: attemptID), ResultStatements.replacedAnswer)
    }

    public func assessmentOverview() async throws -> AssessmentOverview {
        try await snapshot([ResultStatements.students, ResultStatements.handedIn, ResultStatements.closed]) { tables in
            var handedIn: [String: (count: Int, others: Int)] = [:]
            for row in tables[1] { handedIn[try row.string("assessment_id")] = (try row.int("handed_in"), try row.int("others")) }
            var closed: [String: Double] = [:]
            for row in tables[2] { closed[try row.string("id")] = try row.double("closed_at") }
            return AssessmentOverview(students: try tables[0].first?.int("students") ?? 0, handedIn: handedIn, closedAt: closed)
        }
    }

    public func closings() async throws -> [String: Double] {
        var closed: [String: Double] = [:]
        for (id, at) in try await rows(ResultStatements.closed, { (try $0.string("id"), try $0.double("closed_at")) }) { closed[id] = at }
        return closed
    }

    public func received(assessmentID: String) async throws -> ReceivedResponses? {
        try await snapshot([
            ResultStatements.assessment(id: assessmentID), ResultStatements.receivedResponses(assessmentID: assessmentID),
            ResultStatements.receivedSubmissions(assessmentID: assessmentID),
        ]) { tables in
            guard !tables[0].isEmpty else { return nil }
            return ReceivedResponses(
                assessmentId: assessmentID,
                responses: try tables[1].map { try ReceivedResponses.Response(row: $0) },
                submissions: try tables[2].map { try SubmissionRecord(row: $0).received }
            )
        }
    }

    public func receiptMaterial(attemptID: String) async throws -> ReceiptMaterial? {
        try await snapshot([ResultStatements.contentHash(attemptID: attemptID), ScoringStatements.currentAnswers(attemptID: attemptID)]) { tables in
            guard let hash = try tables[0].first?.string("content_hash") else { return nil }
            return ReceiptMaterial(contentHash: hash, answers: try tables[1].map(ScoringStatements.answer))
        }
    }

    /// The first receipt signed for a hand-in is the one kept: a second signing (a retried hand-in) gets it back.
    public func attachReceipt(attemptID: String, signed: SignedReceipt) async throws -> SignedReceipt {
        try await readThenWrite([ResultStatements.signedReceipt(attemptID: attemptID)]) { tables in
            guard let row = tables[0].first else { return (signed, []) }
            guard let stored = try row.optionalString("signed_receipt") else {
                return (signed, [ResultStatements.attachReceipt(signed, attemptID: attemptID)])
            }
            return (SignedReceipt(storedText: stored) ?? signed, [])
        }
    }

    /// The teacher's points for a question of a hand-in, and the hand-in's kept score worked out again with them.
    /// False when the attempt was not handed in or its version has no such question.
    public func grade(attemptID: String, questionID: String, points: Double) async throws -> Bool {
        try await grade(attemptID: attemptID, questionID: questionID, points: points, upstream: true)
    }

    /// `upstream`: on a classroom server, kept for the district too (the teacher's own, not what came down from it).
    /// `bounded`: the points are held to the question's (what came from elsewhere; the desk checked its own).
    func grade(attemptID: String, questionID: String, points: Double, upstream: Bool, bounded: Bool = false) async throws -> Bool {
        let dialect = dialect
        let now = Date()
        return try await readThenWrite([
            ScoringStatements.submittedSource(attemptID: attemptID), ScoringStatements.currentAnswers(attemptID: attemptID),
            ScoringStatements.grades(attemptID: attemptID),
        ]) { tables in
            guard let submitted = tables[0].first else { return (false, []) }
            let source = try submitted.data("source")
            guard GradePlan.allows(questionID: questionID, source: source),
                !bounded || GradePlan.allows(points: points, questionID: questionID, source: source)
            else { return (false, []) }
            var writes = [ScoringStatements.setGrade(attemptID: attemptID, questionID: questionID, points: points, dialect: dialect)]
            if upstream {
                let mark = ClassroomMark(
                    assessmentId: try submitted.string("assessment_id"),
                    attemptId: attemptID,
                    questionId: questionID,
                    points: points
                )
                writes += try ClassroomStatements.keepMark(.grade, mark, student: try submitted.string("user_name"), at: now)
            }
            let answers = try tables[1].map(ScoringStatements.answer).map { (questionID: $0.questionID, answer: $0.answer) }
            let grades =
                try tables[2].map(ScoringStatements.grade).filter { $0.questionID != questionID } + [(questionID: questionID, points: points)]
            if let totals = Scoring.kept(source: source, draw: try submitted.optionalString("draw"), answers: answers, grades: grades) {
                writes.append(ScoringStatements.keepTotals(totals, attemptID: attemptID))
            }
            return (true, writes)
        }
    }
}

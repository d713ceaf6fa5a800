import Foundation
import VaultAPI
import VaultRules

/// Conditions joined by AND, with the values they bind in their order: a filter written once for both engines (a
/// value that is not given adds no condition; a list is `IN (?, …)`, at most 500 values, which SQLite's 999 variables
/// and PostgreSQL both take).
struct SQLFilter {
    private(set) var conditions: [String] = []
    private(set) var values: [SQLValue] = []

    init(_ conditions: String...) { self.conditions = conditions }

    /// `column = value`, when there is a value.
    mutating func equal(_ column: String, _ value: String?) {
        guard let value else { return }
        conditions.append("\(column) = ?")
        values.append(.text(value))
    }

    /// `column` is one of `list` (nil: every row; empty: none).
    mutating func among(_ column: String, _ list: [String]?) {
        guard let list else { return }
        conditions.append(list.isEmpty ? "1 = 0" : "\(column) IN (\(Array(repeating: "?", count: list.count).joined(separator: ", ")))")
        values += list.map(SQLValue.text)
    }

    var sql: String { conditions.isEmpty ? "1 = 1" : conditions.joined(separator: " AND ") }

    /// A statement whose only placeholders are this filter's.
    func statement(_ sql: String, columns: [String]) -> SQLStatement { SQLStatement(sql, values, columns: columns) }
}

/// The roster, the grading queue and results: every statement a teacher's view and a student's results read.
public enum RosterStatements {
    /// The students (of a group), optionally only some of them, by name.
    static func students(group: String?, users: [String]? = nil) -> SQLStatement {
        var filter = SQLFilter("role = 'student'")
        filter.equal("group_name", group)
        filter.among("name", users)
        return filter.statement("SELECT name, group_name FROM users WHERE \(filter.sql) ORDER BY name", columns: ["name", "group_name"])
    }

    static func student(_ row: any StoredRow) throws -> RosterFacts.Student {
        RosterFacts.Student(name: try row.string("name"), group: try row.optionalString("group_name"))
    }

    /// Those who handed in an attempt without a student account (a teacher trying it out), whom the roster of
    /// everyone lists too.
    static func others(assessmentID: String) -> SQLStatement {
        SQLStatement(
            """
            SELECT DISTINCT s.user_name FROM submissions s LEFT JOIN users u ON u.name = s.user_name AND u.role = 'student'
            WHERE s.assessment_id = ? AND u.name IS NULL
            """,
            [.text(assessmentID)],
            columns: ["user_name"]
        )
    }

    /// The live assessment at its current version with the teacher's document.
    static func head(assessmentID: String) -> SQLStatement {
        SQLStatement(
            """
            SELECT a.current_version, a.closed_at, a.released_at, v.source FROM assessments a
            JOIN assessment_versions v ON v.id = a.id AND v.version = a.current_version WHERE a.id = ? AND a.deleted = {false}
            """,
            [.text(assessmentID)],
            columns: ["current_version", "closed_at", "released_at", "source"]
        )
    }

    /// A filter on an assessment's rows (`column` names the assessment) and, optionally, some users' (`user`).
    private static func of(_ assessmentID: String, _ column: String, users: [String]?, user: String) -> SQLFilter {
        var filter = SQLFilter()
        filter.equal(column, assessmentID)
        filter.among(user, users)
        return filter
    }

    /// On a classroom (issue 69): the hand-ins the district holds, as its last results said.
    static func atDistrict(assessmentID: String, users: [String]?) -> SQLStatement {
        let filter = of(assessmentID, "assessment_id", users: users, user: "user_name")
        return filter.statement(
            "SELECT attempt_id, assessment_id, user_name, received_at, via FROM district_hand_ins WHERE \(filter.sql)",
            columns: ["attempt_id", "assessment_id", "user_name", "received_at", "via"]
        )
    }

    static func atDistrict(_ row: any StoredRow) throws -> ClassroomResults.Held {
        ClassroomResults.Held(
            assessmentId: try row.string("assessment_id"),
            attemptId: try row.string("attempt_id"),
            user: try row.string("user_name"),
            receivedAt: Timestamp.string(epoch: try row.double("received_at")),
            via: try SubmissionChannel(rawValue: try row.string("via")) ?? { throw StorageError.column("via", "is not a channel") }()
        )
    }

    static func downloads(assessmentID: String, users: [String]?) -> SQLStatement {
        let filter = of(assessmentID, "assessment_id", users: users, user: "user_name")
        return filter.statement(
            "SELECT user_name, version, last_at, classroom FROM downloads WHERE \(filter.sql)",
            columns: ["user_name", "version", "last_at", "classroom"]
        )
    }

    /// Extra time: "every assessment" read first, the assessment's own last, so that the own one is kept.
    static func accommodations(assessmentID: String, users: [String]?) -> SQLStatement {
        var filter = SQLFilter("assessment_id IN (?, ?)")
        filter.among("user_name", users)
        return SQLStatement(
            "SELECT user_name, extra_minutes FROM accommodations WHERE \(filter.sql) ORDER BY assessment_id = ? DESC",
            [.text(assessmentID), .text(AccommodationScope.everyAssessment)] + filter.values + [.text(AccommodationScope.everyAssessment)],
            columns: ["user_name", "extra_minutes"]
        )
    }

    /// The attempts with answers on the server that are not handed in (user, attempt, questions answered, last
    /// received, clock started). It starts from the assessment's attempts without a submission, so the answers of
    /// handed-in attempts are never read (a class that has handed in: 1.4 ms instead of 35-44 ms on PostgreSQL, 2,000
    /// attempts of 50 answers); the current answers are one per question (`responses_one_current`), so they are
    /// counted, not sorted for DISTINCT.
    static func inProgress(assessmentID: String, users: [String]?) -> SQLStatement {
        let filter = of(assessmentID, "t.assessment_id", users: users, user: "t.user_name")
        return filter.statement(
            """
            SELECT r.user_name, r.attempt_id, COUNT(*) AS answered, MAX(r.received_at) AS last_received, MIN(r.received_at) AS first_received,
                MAX(t.started_at) AS started_at
            FROM attempts t JOIN responses r ON r.attempt_id = t.id AND r.superseded = {false}
            WHERE \(filter.sql) AND NOT EXISTS (SELECT 1 FROM submissions s WHERE s.attempt_id = t.id)
            GROUP BY r.user_name, r.attempt_id
            """,
            columns: ["user_name", "attempt_id", "answered", "last_received", "first_received", "started_at"]
        )
    }

    static func inProgress(_ row: any StoredRow) throws -> RosterFacts.InProgress {
        RosterFacts.InProgress(
            user: try row.string("user_name"),
            attemptID: try row.string("attempt_id"),
            answered: try row.int("answered"),
            lastReceivedAt: try row.double("last_received"),
            firstReceivedAt: try row.double("first_received"),
            startedAt: try row.optionalDouble("started_at")
        )
    }

    /// Each student's latest refusal.
    static func refusals(assessmentID: String, users: [String]?) -> SQLStatement {
        let filter = of(assessmentID, "assessment_id", users: users, user: "user_name")
        return filter.statement(
            "SELECT user_name, attempt_id, reason, at FROM refused_submissions WHERE \(filter.sql)",
            columns: ["user_name", "attempt_id", "reason", "at"]
        )
    }

    static func refusal(_ row: any StoredRow, assessmentID: String) throws -> RosterFacts.Refusal {
        guard let reason = RefusalReason(rawValue: try row.string("reason")) else { throw StorageError.damaged("a refused hand-in's reason") }
        return RosterFacts.Refusal(
            user: try row.string("user_name"),
            assessmentID: assessmentID,
            attemptID: try row.string("attempt_id"),
            reason: reason,
            at: try row.double("at")
        )
    }

    /// Each attempt's devices and when each was last seen.
    static func devices(assessmentID: String, users: [String]?) -> SQLStatement {
        let filter = of(assessmentID, "t.assessment_id", users: users, user: "t.user_name")
        return filter.statement(
            "SELECT d.attempt_id, d.last_seen FROM attempt_devices d JOIN attempts t ON t.id = d.attempt_id WHERE \(filter.sql)",
            columns: ["attempt_id", "last_seen"]
        )
    }

    /// Handed-in attempts' result inputs in five statements, whatever their number: the submissions (with whether
    /// their assessment is released), the teacher's documents of their versions, their current answers, grades and
    /// feedback (answers and feedback left out for a summary).
    static func results(user: String?, assessmentID: String?, attemptIDs: [String]?, users: [String]?, detail: ResultDetail) -> [SQLStatement] {
        var filter = SQLFilter()
        filter.equal("s.user_name", user)
        filter.equal("s.assessment_id", assessmentID)
        filter.among("s.attempt_id", attemptIDs)
        filter.among("s.user_name", users)
        let from = "FROM submissions s JOIN assessments a ON a.id = s.assessment_id"
        let kept = "\(filter.sql) AND a.deleted = {false}"
        var statements = [
            filter.statement(
                "SELECT \(SubmissionRecord.selection("s")), a.released_at \(from) WHERE \(kept) ORDER BY s.assessment_id, s.user_name, s.attempt_id",
                columns: SubmissionRecord.columns + ["released_at"]
            ),
            // Driven from the hand-ins (each version looked up by its key): SQLite 3.15 planned an EXISTS written
            // the other way round as a scan of every version, 52 ms instead of 1 ms for a class of 2,000.
            filter.statement(
                """
                SELECT v.id, v.version, v.source FROM assessment_versions v JOIN (
                    SELECT DISTINCT s.assessment_id, COALESCE(s.scored_version, s.assessment_version) AS scored \(from) WHERE \(kept)) k
                ON v.id = k.assessment_id AND v.version = k.scored
                """,
                columns: ["id", "version", "source"]
            ),
            // The students' draws (pools): each hand-in counts only the questions its student drew.
            filter.statement(
                """
                SELECT d.assessment_id, d.user_name, d.draw FROM draws d JOIN (
                    SELECT DISTINCT s.assessment_id, s.user_name \(from) WHERE \(kept)) k
                ON d.assessment_id = k.assessment_id AND d.user_name = k.user_name
                """,
                columns: ["assessment_id", "user_name", "draw"]
            ),
            filter.statement(
                "SELECT g.attempt_id, g.question_id, g.points \(from) JOIN grades g ON g.attempt_id = s.attempt_id WHERE \(kept)",
                columns: ["attempt_id", "question_id", "points"]
            ),
        ]
        if detail == .answers {
            statements += [
                filter.statement(
                    """
                    SELECT r.attempt_id, r.question_id, r.answer \(from) JOIN responses r ON r.attempt_id = s.attempt_id
                    WHERE \(kept) AND r.superseded = {false}
                    """,
                    columns: ["attempt_id", "question_id", "answer"]
                ),
                filter.statement(
                    "SELECT f.attempt_id, f.question_id, f.text \(from) JOIN feedback f ON f.attempt_id = s.attempt_id WHERE \(kept)",
                    columns: ["attempt_id", "question_id", "text"]
                ),
            ]
        }
        return statements
    }

    /// The rows of `results`' statements (in their order) as result inputs.
    static func results(_ tables: ArraySlice<[any StoredRow]>) throws -> [ResultInput] {
        let tables = Array(tables)
        var released = Set<String>()
        let records = try tables[0].map { row in
            let record = try SubmissionRecord(row: row)
            if try row.optionalDouble("released_at") != nil { released.insert(record.assessmentID) }
            return record
        }
        var sources: [DocumentKey: Data] = [:]
        for row in tables[1] { sources[DocumentKey(id: try row.string("id"), version: try row.int("version"))] = try row.data("source") }
        var draws: [DrawKey: Draw] = [:]
        for row in tables[2] {
            draws[DrawKey(assessmentID: try row.string("assessment_id"), user: try row.string("user_name"))] = try DrawStatements.drawText(
                try row.string("draw")
            )
        }
        let grades = try tables[3].map {
            (attemptID: try $0.string("attempt_id"), questionID: try $0.string("question_id"), points: try $0.double("points"))
        }
        let answers =
            tables.count > 4
            ? try tables[4].map {
                (attemptID: try $0.string("attempt_id"), questionID: try $0.string("question_id"), answer: try $0.string("answer"))
            }
            : []
        let feedback =
            tables.count > 5
            ? try tables[5].map { (attemptID: try $0.string("attempt_id"), questionID: try $0.string("question_id"), text: try $0.string("text")) }
            : []
        return try StoredDocument.inputs(
            records: records,
            sources: sources,
            draws: draws,
            released: released,
            answers: answers,
            grades: grades,
            feedback: feedback
        )
    }
}

extension SharedStatements {
    /// Handed-in attempts' result inputs; `attemptIDs` read 500 at a time, all in one snapshot.
    public func resultInputs(user: String?, assessmentID: String?, attemptIDs: [String]?) async throws -> [ResultInput] {
        let chunks: [[String]?] =
            attemptIDs.map { ids in stride(from: 0, to: ids.count, by: 500).map { Array(ids[$0..<min($0 + 500, ids.count)]) } } ?? [nil]
        let each = chunks.map { RosterStatements.results(user: user, assessmentID: assessmentID, attemptIDs: $0, users: nil, detail: .answers) }
        return try await snapshot(Array(each.joined())) { tables in
            var inputs: [ResultInput] = []
            var start = 0
            for statements in each {
                inputs += try RosterStatements.results(tables[start..<start + statements.count])
                start += statements.count
            }
            return inputs
        }
    }

    public func rosterMembers(assessmentID: String, group: String?) async throws -> [RosterFacts.Student] {
        try await snapshot([RosterStatements.students(group: group), RosterStatements.others(assessmentID: assessmentID)]) { tables in
            RosterFacts.members(
                students: try tables[0].map(RosterStatements.student),
                others: try tables[1].map { try $0.string("user_name") },
                group: group
            )
        }
    }

    public func rosterFacts(assessmentID: String, group: String?, detail: ResultDetail, users: [String]?) async throws -> RosterFacts? {
        let statements =
            [
                RosterStatements.head(assessmentID: assessmentID), RosterStatements.students(group: group, users: users),
                RosterStatements.downloads(assessmentID: assessmentID, users: users),
                RosterStatements.accommodations(assessmentID: assessmentID, users: users),
                RosterStatements.inProgress(assessmentID: assessmentID, users: users),
                RosterStatements.refusals(assessmentID: assessmentID, users: users),
                RosterStatements.devices(assessmentID: assessmentID, users: users),
                RosterStatements.atDistrict(assessmentID: assessmentID, users: users),
            ] + RosterStatements.results(user: nil, assessmentID: assessmentID, attemptIDs: nil, users: users, detail: detail)
        return try await snapshot(statements) { tables in
            guard let head = tables[0].first else { return nil }
            let version = try head.int("current_version")
            var extra: [String: Int] = [:]
            for row in tables[3] { extra[try row.string("user_name")] = try row.int("extra_minutes") }
            var facts = RosterFacts(
                assessmentID: assessmentID,
                document: try StoredDocument.decode(try head.data("source"), DocumentKey(id: assessmentID, version: version)),
                version: version,
                closedAt: try head.optionalDouble("closed_at"),
                released: try head.optionalDouble("released_at") != nil,
                students: try tables[1].map(RosterStatements.student),
                downloads: try tables[2].map {
                    RosterFacts.Download(
                        user: try $0.string("user_name"),
                        version: try $0.int("version"),
                        at: try $0.double("last_at"),
                        classroom: try $0.optionalString("classroom")
                    )
                },
                extraMinutes: extra,
                results: try RosterStatements.results(tables[8...]),
                inProgress: try tables[4].map(RosterStatements.inProgress),
                refusals: try tables[5].map { try RosterStatements.refusal($0, assessmentID: assessmentID) },
                devices: RosterFacts.devices(try tables[6].map { (attemptID: try $0.string("attempt_id"), lastSeen: try $0.double("last_seen")) })
            )
            facts.atDistrict = try tables[7].map(RosterStatements.atDistrict)
            return facts
        }
    }
}

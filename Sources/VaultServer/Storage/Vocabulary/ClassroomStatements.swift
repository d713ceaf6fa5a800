import Foundation
import VaultAPI
import VaultCore
import VaultRules

/// A classroom server's tie to its district (issue 58): where the district is, whose class this is, the district's
/// key as pinned at `classroom init`, and when the classroom last reached it.
public struct ClassroomLink: Sendable, Equatable {
    public var upstream: String
    public var teacher: String
    public var districtKey: ServerKeyResponse
    public var pulledAt: Date?
    public var pushedAt: Date?
    /// The group the last `classroom pull` fetched (nil: every student); the server's own pulls fetch it again.
    public var group: String?
    /// When the district's results last came down.
    public var resultsAt: Date?

    public init(
        upstream: String,
        teacher: String,
        districtKey: ServerKeyResponse,
        pulledAt: Date? = nil,
        pushedAt: Date? = nil,
        group: String? = nil,
        resultsAt: Date? = nil
    ) {
        self.upstream = upstream
        self.teacher = teacher
        self.districtKey = districtKey
        self.pulledAt = pulledAt
        self.pushedAt = pushedAt
        self.group = group
        self.resultsAt = resultsAt
    }
}

/// Where an item kept for the district stands.
public enum UpstreamState: String, Sendable, CaseIterable {
    /// Not yet confirmed by the district.
    case waiting
    /// The district holds it.
    case stored
    /// The district will never take it (its sentence kept).
    case refused
}

/// What a classroom server keeps to pass on: one answer or one hand-in as the student's vault sent it.
public struct UpstreamItem: Sendable, Equatable {
    public var seq: Int
    public var kind: ClassroomPushRequest.Kind
    public var itemID: String
    public var user: String
    public var deviceKey: String?
    public var body: String
    public var state: UpstreamState
    public var message: String?
    /// When the classroom kept it (a hand-in: when it reached the classroom).
    public var keptAt: Date?

    public init(
        seq: Int = 0,
        kind: ClassroomPushRequest.Kind,
        itemID: String,
        user: String,
        deviceKey: String?,
        body: String,
        state: UpstreamState = .waiting,
        message: String? = nil,
        keptAt: Date? = nil
    ) {
        self.keptAt = keptAt
        self.seq = seq
        self.kind = kind
        self.itemID = itemID
        self.user = user
        self.deviceKey = deviceKey
        self.body = body
        self.state = state
        self.message = message
    }
}

extension UpstreamItem {
    /// What a person calls an item of `kind`.
    public static func name(_ kind: ClassroomPushRequest.Kind) -> String {
        switch kind {
        case .answer: "answer"
        case .submission: "hand-in"
        case .grade: "points"
        case .feedback: "feedback"
        case .release: "release"
        case .late: "late decision"
        case .draw: "draw"
        case .download: "download"
        case .closing: "closing"
        }
    }
}

extension ClassroomLink {
    /// Whose classroom of which district, and when it was last reached (`classroom status` and the desk).
    public var statusLines: [String] {
        func when(_ date: Date?) -> String { date.map(Timestamp.readable) ?? "never" }
        return [
            "\(teacher)'s classroom of the district at \(upstream) (district key \(districtKey.fingerprint)).",
            "Last pulled: \(when(pulledAt))\(group.map { " (group \($0))" } ?? ""). Last pushed: \(when(pushedAt)). "
                + "Results last brought down: \(when(resultsAt)).",
        ]
    }
}

extension UpstreamSummary {
    /// What waits, what the district holds and what it refused, in sentences.
    public var lines: [String] {
        var lines = [
            "Waiting to go up: \(waitingAnswers) answers, \(waitingHandIns) hand-ins, \(waitingMarks) marks, releases and closings.",
            "Held by the district: \(storedAnswers) answers, \(storedHandIns) hand-ins, \(storedMarks) marks, releases and closings.",
        ]
        if !refused.isEmpty {
            lines.append("Refused by the district (\(refused.count)):")
            for item in refused {
                lines.append(
                    "  \(item.user), \(UpstreamItem.name(item.kind)) \(item.itemID.replacingOccurrences(of: "\n", with: " ")): \(item.message ?? "")"
                )
            }
        }
        return lines
    }
}

/// What waits to go up and what the district refused.
public struct UpstreamSummary: Sendable, Equatable {
    public var waitingAnswers = 0
    public var waitingHandIns = 0
    public var storedAnswers = 0
    public var storedHandIns = 0
    /// The teacher's points, feedback, releases and closings made on the classroom's desk.
    public var waitingMarks = 0
    public var storedMarks = 0
    public var refused: [UpstreamItem] = []
    /// Students' draws first made here and their downloads here (issue 69).
    public var waitingFacts = 0
    public init() {}

    /// Everything that waits to go up.
    public var waiting: Int { waitingAnswers + waitingHandIns + waitingMarks + waitingFacts }
}

/// A classroom server's store: its link, the outbox to the district, and the class as pulled. The district's side
/// (what a pull carries) is read here too, on either engine.
public protocol ClassroomStore: Sendable {
    func classroomLink() async throws -> ClassroomLink?
    func setClassroomLink(_ link: ClassroomLink) async throws
    /// A pull of `group` (nil: every student) done at `at`: the server's own pulls fetch the same group.
    func notePulled(at: Date, group: String?) async throws
    func notePushed(at: Date) async throws
    func noteResults(at: Date) async throws
    /// Keeps items for the district: an answer once (its id), a hand-in as last sent (a changed one waits again).
    func keepForUpstream(_ items: [UpstreamItem], now: Date) async throws
    /// Items not yet confirmed, oldest first.
    func upstreamWaiting(limit: Int) async throws -> [UpstreamItem]
    /// The district's word on items: stored or refused (`later` leaves an item waiting).
    func settleUpstream(_ results: [ClassroomPushResponse.Result], now: Date) async throws
    func upstreamSummary() async throws -> UpstreamSummary
    /// The vault keys this classroom enrolled (class codes, packages made here), of `users`.
    func vouchedKeys(users: Set<String>) async throws -> [ClassroomPushRequest.Vouch]
    /// The district's receipts for `user`'s hand-ins the district took from this classroom.
    func upstreamReceipts(user: String) async throws -> [SubmissionReceipt]
    /// `user`'s answers and hand-ins the district refused, with its sentence (issue 68).
    func upstreamRefusals(user: String) async throws -> [ClassroomRefusal]
    /// Takes in a pull, in one transaction: versions by the district's numbers, students with their keys and no
    /// password, extra time and draws.
    func importClass(_ pull: ClassroomPull, now: Date) async throws
    /// The district's side: what a classroom of `teacher` needs (students of `group`, or every student).
    func classExport(teacher: String, admin: Bool, group: String?, now: Date) async throws -> ClassroomPull
    /// The district's side (issue 69): one version of an assessment, as a classroom fetches it after the pull's list.
    func classDocument(id: String, version: Int) async throws -> ClassroomPull.PulledDocument?
    /// The district's side: its releases, grades, feedback and late decisions on the hand-ins of `teacher`'s
    /// assessments (every assessment for an administrator).
    func classResults(teacher: String, admin: Bool) async throws -> ClassroomResults
    /// Takes in what the district decided, leaving alone what this classroom's teacher changed that still waits to
    /// go up; says what changed.
    func importResults(_ results: ClassroomResults, now: Date) async throws -> ResultsBroughtDown
    /// The district's side (issue 69): a draw a classroom made for a student the district has none for is kept as
    /// theirs; false when the district holds another one (its own stands).
    func adoptDraw(_ draw: ClassroomPull.PulledDraw, now: Date) async throws -> Bool
    /// The district's side (issue 69): the hand-in `attemptID` came through `classroom` (its key's fingerprint), so
    /// the roster names it.
    func noteThroughClassroom(_ classroom: String, attemptID: String) async throws
}

/// What bringing the district's results down changed on a classroom.
public struct ResultsBroughtDown: Sendable, Equatable {
    public var released = 0
    public var hidden = 0
    public var grades = 0
    public var feedback = 0
    public var late = 0
    /// Marks the classroom could not apply (a hand-in it does not hold, points outside the question's).
    public var skipped = 0
    public init() {}
    public var changed: Int { released + hidden + grades + feedback + late }
}

/// `classroom_link` and `classroom_outbox`.
enum ClassroomStatements {
    static let outboxColumns = ["seq", "kind", "item_id", "user_name", "device_key", "body", "state", "message", "kept_at"]

    static func outboxItem(_ row: any StoredRow) throws -> UpstreamItem {
        guard let kind = ClassroomPushRequest.Kind(rawValue: try row.string("kind")),
            let state = UpstreamState(rawValue: try row.string("state"))
        else { throw StorageError.damaged("an item kept for the district cannot be read") }
        return UpstreamItem(
            seq: try row.int("seq"),
            kind: kind,
            itemID: try row.string("item_id"),
            user: try row.string("user_name"),
            deviceKey: try row.optionalString("device_key"),
            body: try row.string("body"),
            state: state,
            message: try row.optionalString("message"),
            keptAt: Date(timeIntervalSince1970: try row.double("kept_at"))
        )
    }

    static func insert(_ item: UpstreamItem, at: Date, dialect: SQLDialect) -> SQLStatement {
        SQLStatement(
            dialect.insertIfAbsent(
                into: "classroom_outbox",
                columns: ["kind", "item_id", "user_name", "device_key", "body", "state", "kept_at"],
                key: ["kind", "item_id"]
            ),
            [
                .text(item.kind.rawValue), .text(item.itemID), .text(item.user), item.deviceKey.map(SQLValue.text) ?? .null, .text(item.body),
                .text(UpstreamState.waiting.rawValue), .real(at.timeIntervalSince1970),
            ]
        )
    }

    static func kept(kind: ClassroomPushRequest.Kind, itemID: String) -> SQLStatement {
        SQLStatement(
            "SELECT body FROM classroom_outbox WHERE kind = ? AND item_id = ?",
            [.text(kind.rawValue), .text(itemID)],
            columns: ["body"]
        )
    }

    static func drop(kind: ClassroomPushRequest.Kind, itemID: String) -> SQLStatement {
        SQLStatement("DELETE FROM classroom_outbox WHERE kind = ? AND item_id = ?", [.text(kind.rawValue), .text(itemID)])
    }

    /// A teacher's mark on one answer, kept for the district when this server is a classroom (the statements do
    /// nothing elsewhere): it replaces the answer's earlier mark of that kind, sent or not.
    static func keepMark(_ kind: ClassroomPushRequest.Kind, _ mark: ClassroomMark, student: String, at: Date) throws -> [SQLStatement] {
        try replaceKept(
            kind,
            itemID: ClassroomMark.itemID(attemptID: mark.attemptId, questionID: mark.questionId),
            user: .text(student),
            body: mark,
            at: at
        )
    }

    /// A decision on a late hand-in made on a classroom, kept for the district (nothing elsewhere).
    /// A student's draw first made here, for the district (nothing on a server that is not a classroom).
    static func keepDraw(_ draw: ClassroomPull.PulledDraw, at: Date) throws -> [SQLStatement] {
        try replaceKept(.draw, itemID: draw.assessmentId + "/" + draw.user, user: .text(draw.user), body: draw, at: at)
    }

    static func keepLate(_ late: ClassroomLate, student: String, at: Date) throws -> [SQLStatement] {
        try replaceKept(.late, itemID: late.attemptId, user: .text(student), body: late, at: at)
    }

    /// Results shown or hidden on a classroom's desk, kept for the district (nothing elsewhere).
    static func keepRelease(_ release: ClassroomRelease, at: Date) throws -> [SQLStatement] {
        try replaceKept(.release, itemID: release.assessmentId, user: nil, body: release, at: at)
    }

    /// A closing or reopening on the classroom's desk, kept for the district (the latest replaces one not yet sent).
    static func keepClosing(_ closing: ClassroomClosing, at: Date) throws -> [SQLStatement] {
        try replaceKept(.closing, itemID: closing.assessmentId, user: nil, body: closing, at: at)
    }

    /// The teacher's item for the district, in the transaction that made it: inserted only when a link exists, under
    /// `user` (nil: the linked teacher).
    private static func replaceKept(
        _ kind: ClassroomPushRequest.Kind,
        itemID: String,
        user: SQLValue?,
        body: some Encodable,
        at: Date
    ) throws -> [SQLStatement] {
        let text = String(decoding: try CanonicalJSON.encode(body), as: UTF8.self)
        let owner = user == nil ? "teacher" : "?"
        return [
            drop(kind: kind, itemID: itemID),
            SQLStatement(
                """
                INSERT INTO classroom_outbox (kind, item_id, user_name, body, state, kept_at)
                SELECT ?, ?, \(owner), ?, ?, ? FROM classroom_link WHERE id = 1
                """,
                [.text(kind.rawValue), .text(itemID)] + (user.map { [$0] } ?? [])
                    + [.text(text), .text(UpstreamState.waiting.rawValue), .real(at.timeIntervalSince1970)]
            ),
        ]
    }

    /// The teacher's marks of one kind (`grades`' points, `feedback`'s text) on an assessment's hand-ins.
    static func marks(in table: String, value: String, assessmentID: String) -> SQLStatement {
        SQLStatement(
            """
            SELECT m.attempt_id, m.question_id, m.\(value) FROM \(table) m JOIN submissions s ON s.attempt_id = m.attempt_id
            WHERE s.assessment_id = ? ORDER BY m.attempt_id, m.question_id
            """,
            [.text(assessmentID)],
            columns: ["attempt_id", "question_id", value]
        )
    }

    static let link = SQLStatement(
        "SELECT upstream, teacher, district_key, pulled_at, pushed_at, pull_group, results_at FROM classroom_link WHERE id = 1",
        [],
        columns: ["upstream", "teacher", "district_key", "pulled_at", "pushed_at", "pull_group", "results_at"]
    )
}

extension SharedStatements {
    public func classroomLink() async throws -> ClassroomLink? {
        try await row(ClassroomStatements.link) { row in
            guard let key = try? JSONDecoder().decode(ServerKeyResponse.self, from: Data(try row.string("district_key").utf8)) else {
                throw StorageError.damaged("the district's key kept at classroom init cannot be read")
            }
            return ClassroomLink(
                upstream: try row.string("upstream"),
                teacher: try row.string("teacher"),
                districtKey: key,
                pulledAt: try row.optionalDouble("pulled_at").map(Date.init(timeIntervalSince1970:)),
                pushedAt: try row.optionalDouble("pushed_at").map(Date.init(timeIntervalSince1970:)),
                group: try row.optionalString("pull_group"),
                resultsAt: try row.optionalDouble("results_at").map(Date.init(timeIntervalSince1970:))
            )
        }
    }

    public func setClassroomLink(_ link: ClassroomLink) async throws {
        let key = String(decoding: try CanonicalJSON.encode(link.districtKey), as: UTF8.self)
        try await run(
            SQLStatement(
                dialect.upsert(into: "classroom_link", columns: ["id", "upstream", "teacher", "district_key"], key: ["id"]),
                [.integer(1), .text(link.upstream), .text(link.teacher), .text(key)]
            )
        )
    }

    public func notePulled(at: Date, group: String?) async throws {
        try await run(
            SQLStatement(
                "UPDATE classroom_link SET pulled_at = ?, pull_group = ? WHERE id = 1",
                [.real(at.timeIntervalSince1970), group.map(SQLValue.text) ?? .null]
            )
        )
    }

    public func noteResults(at: Date) async throws {
        try await run(SQLStatement("UPDATE classroom_link SET results_at = ? WHERE id = 1", [.real(at.timeIntervalSince1970)]))
    }

    public func notePushed(at: Date) async throws {
        try await run(SQLStatement("UPDATE classroom_link SET pushed_at = ? WHERE id = 1", [.real(at.timeIntervalSince1970)]))
    }

    public func keepForUpstream(_ items: [UpstreamItem], now: Date) async throws {
        // Kept once by their id: answers, and downloads (one per student, assessment and version).
        let answers = items.filter { $0.kind == .answer || $0.kind == .download }.map { ClassroomStatements.insert($0, at: now, dialect: dialect) }
        if !answers.isEmpty { try await write(answers) }
        for item in items where item.kind == .submission {
            // A hand-in sent again as it was stays where it stands; a changed one (amended) waits again, after the
            // answers that came with it.
            let insert = ClassroomStatements.insert(item, at: now, dialect: dialect)
            let drop = ClassroomStatements.drop(kind: item.kind, itemID: item.itemID)
            _ = try await readThenWrite(
                ClassroomStatements.kept(kind: item.kind, itemID: item.itemID),
                { try $0.string("body") },
                writes: { kept in
                    switch kept.first {
                    case nil: [insert]
                    case item.body?: []
                    default: [drop, insert]
                    }
                }
            )
        }
    }

    public func upstreamWaiting(limit: Int) async throws -> [UpstreamItem] {
        try await rows(
            SQLStatement(
                "SELECT \(ClassroomStatements.outboxColumns.joined(separator: ", ")) FROM classroom_outbox WHERE state = ? ORDER BY seq LIMIT ?",
                [.text(UpstreamState.waiting.rawValue), .integer(limit)],
                columns: ClassroomStatements.outboxColumns
            ),
            ClassroomStatements.outboxItem
        )
    }

    public func settleUpstream(_ results: [ClassroomPushResponse.Result], now: Date) async throws {
        let writes: [SQLStatement] = results.compactMap { result in
            let state: UpstreamState
            switch result.outcome {
            case .stored: state = .stored
            case .refused: state = .refused
            case .later: return nil
            }
            let receipt = result.receipt.flatMap { try? CanonicalJSON.encode($0) }.map { SQLValue.text(String(decoding: $0, as: UTF8.self)) }
            return SQLStatement(
                "UPDATE classroom_outbox SET state = ?, message = ?, receipt = ?, settled_at = ? WHERE seq = ? AND state = ?",
                [
                    .text(state.rawValue), result.message.map { SQLValue.text(String($0.prefix(500))) } ?? .null, receipt ?? .null,
                    .real(now.timeIntervalSince1970), .integer(result.seq), .text(UpstreamState.waiting.rawValue),
                ]
            )
        }
        if !writes.isEmpty { try await write(writes) }
    }

    public func vouchedKeys(users: Set<String>) async throws -> [ClassroomPushRequest.Vouch] {
        try await rows(
            SQLStatement(
                // Class codes and packages made here (issue 69: a hand-in file imported here goes up under its key).
                "SELECT user_name, device_key FROM enrolments WHERE device_key IS NOT NULL ORDER BY created_at",
                [],
                columns: ["user_name", "device_key"]
            )
        ) { ClassroomPushRequest.Vouch(user: try $0.string("user_name"), deviceKey: try $0.string("device_key")) }.filter { users.contains($0.user) }
    }

    public func upstreamReceipts(user: String) async throws -> [SubmissionReceipt] {
        try await rows(
            SQLStatement(
                "SELECT receipt FROM classroom_outbox WHERE kind = ? AND user_name = ? AND state = ? AND receipt IS NOT NULL ORDER BY seq",
                [.text(ClassroomPushRequest.Kind.submission.rawValue), .text(user), .text(UpstreamState.stored.rawValue)],
                columns: ["receipt"]
            )
        ) { row in
            guard let receipt = try? JSONDecoder().decode(SubmissionReceipt.self, from: Data(try row.string("receipt").utf8)) else {
                throw StorageError.damaged("a district receipt kept by the classroom cannot be read")
            }
            return receipt
        }
    }

    public func upstreamRefusals(user: String) async throws -> [ClassroomRefusal] {
        let kinds = [ClassroomPushRequest.Kind.answer, .submission]
        return try await rows(
            SQLStatement(
                "SELECT kind, item_id, body, message FROM classroom_outbox WHERE user_name = ? AND state = ? AND kind IN (?, ?) ORDER BY seq",
                [.text(user), .text(UpstreamState.refused.rawValue)] + kinds.map { .text($0.rawValue) },
                columns: ["kind", "item_id", "body", "message"]
            )
        ) { row -> ClassroomRefusal? in
            let kind = try row.string("kind")
            let body = Data(try row.string("body").utf8)
            let ids: (assessment: String, attempt: String)? =
                kind == ClassroomPushRequest.Kind.submission.rawValue
                ? (try? JSONDecoder().decode(SubmissionRequest.self, from: body)).map { ($0.assessmentId, $0.attemptId) }
                : (try? JSONDecoder().decode(ResponseItem.self, from: body)).map { ($0.assessmentId, $0.attemptId) }
            guard let ids else { return nil }
            return ClassroomRefusal(
                kind: kind,
                itemId: try row.string("item_id"),
                assessmentId: ids.assessment,
                attemptId: ids.attempt,
                message: try row.optionalString("message") ?? "The district refused it."
            )
        }.compactMap { $0 }
    }

    public func noteThroughClassroom(_ classroom: String, attemptID: String) async throws {
        try await write([SQLStatement("UPDATE submissions SET classroom = ? WHERE attempt_id = ?", [.text(classroom), .text(attemptID)])])
    }

    public func adoptDraw(_ draw: ClassroomPull.PulledDraw, now: Date) async throws -> Bool {
        guard let seed = Int64(draw.seed), draw.version >= 1, let made = try? StoredDraw(seed: seed, version: draw.version, drawText: draw.draw)
        else { return false }
        let held = try await readThenWrite(
            DrawStatements.draw(assessmentID: draw.assessmentId, user: draw.user),
            DrawStatements.stored,
            writes: { held in
                held.isEmpty
                    ? [try DrawStatements.insert(made, assessmentID: draw.assessmentId, user: draw.user, at: now, dialect: self.dialect)] : []
            }
        )
        return held.first.map { $0.seed == seed } ?? true
    }

    public func upstreamSummary() async throws -> UpstreamSummary {
        let counts = try await rows(
            SQLStatement(
                "SELECT kind, state, COUNT(*) AS n FROM classroom_outbox GROUP BY kind, state",
                [],
                columns: ["kind", "state", "n"]
            )
        ) { (try $0.string("kind"), try $0.string("state"), try $0.int("n")) }
        var summary = UpstreamSummary()
        for (kind, state, count) in counts {
            switch (ClassroomPushRequest.Kind(rawValue: kind), UpstreamState(rawValue: state)) {
            case (.answer, .waiting): summary.waitingAnswers += count
            case (.submission, .waiting): summary.waitingHandIns += count
            case (.answer, .stored): summary.storedAnswers += count
            case (.submission, .stored): summary.storedHandIns += count
            case (.grade, .waiting), (.feedback, .waiting), (.release, .waiting), (.late, .waiting), (.closing, .waiting):
                summary.waitingMarks += count
            case (.draw, .waiting), (.download, .waiting): summary.waitingFacts += count
            case (.grade, .stored), (.feedback, .stored), (.release, .stored), (.late, .stored), (.closing, .stored): summary.storedMarks += count
            default: break
            }
        }
        summary.refused = try await rows(
            SQLStatement(
                "SELECT \(ClassroomStatements.outboxColumns.joined(separator: ", ")) FROM classroom_outbox WHERE state = ? ORDER BY seq LIMIT 200",
                [.text(UpstreamState.refused.rawValue)],
                columns: ClassroomStatements.outboxColumns
            ),
            ClassroomStatements.outboxItem
        )
        return summary
    }

    // MARK: The class, pulled

    public func importClass(_ pull: ClassroomPull, now: Date) async throws {
        // Numbers from the wire are held to what this server would take from its own teacher before anything is
        // written: a pull with one that is not is refused whole.
        for extra in pull.extraTime where !(0...TeacherDesk.maxExtraMinutes).contains(extra.extraMinutes) {
            throw StorageError.damaged("the district's extra time for \(extra.user) on \(extra.assessmentId) is not 0 to 1440 minutes")
        }
        for draw in pull.draws where Int64(draw.seed) == nil || draw.version < 1 {
            throw StorageError.damaged("the district's draw for \(draw.user) on \(draw.assessmentId) cannot be read")
        }
        for assessment in pull.assessments where assessment.version < 1 {
            throw StorageError.damaged("the district's copy of \(assessment.id) has no version")
        }
        var sealings: [(id: String, version: Int, material: SealingMaterial)] = []
        for assessment in pull.assessments {
            guard let sealing = assessment.sealing else { continue }
            guard let key = Data(base64Encoded: sealing.contentKey), key.count == 32, sealing.startCode.count <= 64,
                let material = SealingMaterial(stored: key, code: sealing.startCode, wrapped: sealing.wrappedKey)
            else { throw StorageError.damaged("the district's sealing of \(assessment.id) cannot be read") }
            sealings.append((assessment.id, assessment.version, material))
        }
        let at = SQLValue.real(now.timeIntervalSince1970)
        var writes: [SQLStatement] = []
        let heads = try await rows(SQLStatement("SELECT id, current_version FROM assessments", [], columns: ["id", "current_version"])) {
            (try $0.string("id"), try $0.int("current_version"))
        }
        let known = Dictionary(heads, uniquingKeysWith: { first, _ in first })
        let versions = Set(
            try await rows(SQLStatement("SELECT id, version FROM assessment_versions", [], columns: ["id", "version"])) {
                "\(try $0.string("id"))\n\(try $0.int("version"))"
            }
        )
        for assessment in pull.assessments {
            let held = versions.contains("\(assessment.id)\n\(assessment.version)")
            // A version held already needs no document (a pull with documents apart brings only new ones).
            let source = assessment.source.flatMap { Data(base64Encoded: $0) }
            let served = assessment.served.flatMap { Data(base64Encoded: $0) }
            guard held || (source != nil && served != nil) else {
                throw StorageError.damaged("the district's copy of \(assessment.id) cannot be read")
            }
            let closed = assessment.closedAt.flatMap(Timestamp.date).map { SQLValue.real($0.timeIntervalSince1970) } ?? .null
            if known[assessment.id] == nil {
                writes.append(
                    SQLStatement(
                        "INSERT INTO assessments (id, current_version, deleted, updated_at, closed_at) VALUES (?, ?, {false}, ?, ?)",
                        [.text(assessment.id), .integer(assessment.version), at, closed]
                    )
                )
            } else {
                // The district's closing or reopening stands, unless the classroom's teacher closed or reopened it here
                // and the district has not taken that yet (the server pulls again by itself, every few minutes).
                writes.append(
                    SQLStatement(
                        """
                        UPDATE assessments SET current_version = ?, deleted = {false}, updated_at = ?,
                            closed_at = CASE WHEN EXISTS (SELECT 1 FROM classroom_outbox WHERE kind = ? AND item_id = ? AND state = ?)
                                THEN closed_at ELSE ? END
                        WHERE id = ?
                        """,
                        [
                            .integer(assessment.version), at, .text(ClassroomPushRequest.Kind.closing.rawValue), .text(assessment.id),
                            .text(UpstreamState.waiting.rawValue), closed, .text(assessment.id),
                        ]
                    )
                )
            }
            if !held, let source, let served {
                writes.append(
                    SQLStatement(
                        "INSERT INTO assessment_versions (id, version, source, served, content_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                        [.text(assessment.id), .integer(assessment.version), .blob(source), .blob(served), .text(assessment.contentHash), at]
                    )
                )
            }
        }
        // A version this classroom sealed itself already (a student downloaded it before the pull) keeps its own.
        for sealing in sealings where try await self.sealing(assessmentID: sealing.id, version: sealing.version) == nil {
            writes.append(PublishingStatements.storeSealing(assessmentID: sealing.id, version: sealing.version, material: sealing.material))
        }
        let people = Set(try await rows(SQLStatement("SELECT name FROM users", [], columns: ["name"])) { try $0.string("name") })
        // The teacher and the students, with no password: nobody signs in to a classroom with one (a vault signs in
        // with its key), and no password or hash ever leaves the district.
        if !people.contains(pull.teacher) {
            writes.append(
                AccountStatements.createUser(UserRecord(name: pull.teacher, role: .teacher, passwordHash: "", salt: "", iterations: 0), now: now)
            )
        } else {
            // A local account of the teacher's name is the district's teacher from now on: it signs in to the desk with
            // a desk code, like the students with their vaults.
            writes.append(SQLStatement("UPDATE users SET password_hash = '', salt = '', iterations = 0 WHERE name = ?", [.text(pull.teacher)]))
        }
        for assessment in pull.assessments {
            writes.append(
                SQLStatement(
                    dialect.insertIfAbsent(
                        into: "assessment_teachers",
                        columns: ["assessment_id", "teacher", "owner"],
                        key: ["assessment_id", "teacher"]
                    ),
                    [.text(assessment.id), .text(pull.teacher), .integer(1)]
                )
            )
        }
        for student in pull.students {
            if people.contains(student.name) {
                // A local account of the same name becomes the district's student: its password goes too.
                writes.append(
                    SQLStatement(
                        "UPDATE users SET group_name = ?, password_hash = '', salt = '', iterations = 0 WHERE name = ?",
                        [student.group.map(SQLValue.text) ?? .null, .text(student.name)]
                    )
                )
            } else {
                writes.append(
                    AccountStatements.createUser(
                        UserRecord(name: student.name, role: .student, passwordHash: "", salt: "", iterations: 0, group: student.group),
                        now: now
                    )
                )
            }
            for key in student.deviceKeys {
                writes.append(
                    SQLStatement(
                        dialect.insertIfAbsent(
                            into: "device_keys",
                            columns: ["user_name", "public_key", "fingerprint", "registered_at", "origin"],
                            key: ["user_name", "public_key"]
                        ),
                        [
                            .text(student.name), .text(key), .text(DeviceKey.fingerprint(publicKey: key)), at,
                            .text(DeviceKeyRecord.Origin.district.rawValue),
                        ]
                    )
                )
            }
            // A key the district no longer lists (revoked there) stops here too; one enrolled here with a class code
            // and not yet passed on stays.
            let pulled = student.deviceKeys
            writes.append(
                SQLStatement(
                    "UPDATE device_keys SET revoked_at = ?, revoked_by = 'the district' WHERE user_name = ? AND revoked_at IS NULL AND origin <> ?"
                        + (pulled.isEmpty ? "" : " AND public_key NOT IN (\(Array(repeating: "?", count: pulled.count).joined(separator: ", ")))"),
                    [at, .text(student.name), .text(DeviceKeyRecord.Origin.classCode.rawValue)] + pulled.map(SQLValue.text)
                )
            )
        }
        for extra in pull.extraTime {
            writes.append(
                TeachingStatements.setAccommodation(
                    assessmentID: extra.assessmentId,
                    user: extra.user,
                    extraMinutes: extra.extraMinutes,
                    dialect: dialect
                )
            )
        }
        for draw in pull.draws {
            writes.append(
                SQLStatement(
                    dialect.upsert(
                        into: "draws",
                        columns: ["assessment_id", "user_name", "seed", "version", "draw", "made_at"],
                        key: ["assessment_id", "user_name"]
                    ),
                    [.text(draw.assessmentId), .text(draw.user), .integer(Int(Int64(draw.seed) ?? 0)), .integer(draw.version), .text(draw.draw), at]
                )
            )
        }
        try await write(writes)
    }

    /// The assessments a classroom of `teacher` carries: those they own or share (every one for an administrator).
    func classAssessmentIDs(teacher: String, admin: Bool) async throws -> [String] {
        admin
            ? try await rows(SQLStatement("SELECT id FROM assessments WHERE deleted = {false} ORDER BY id", [], columns: ["id"])) {
                try $0.string("id")
            }
            : try await rows(
                SQLStatement(
                    """
                    SELECT a.id FROM assessments a JOIN assessment_teachers t ON t.assessment_id = a.id
                    WHERE t.teacher = ? AND a.deleted = {false} ORDER BY a.id
                    """,
                    [.text(teacher)],
                    columns: ["id"]
                )
            ) { try $0.string("id") }
    }

    public func classDocument(id: String, version: Int) async throws -> ClassroomPull.PulledDocument? {
        try await row(
            SQLStatement(
                "SELECT source, served, content_hash FROM assessment_versions WHERE id = ? AND version = ?",
                [.text(id), .integer(version)],
                columns: ["source", "served", "content_hash"]
            )
        ) { row in
            ClassroomPull.PulledDocument(
                id: id,
                version: version,
                source: try row.data("source").base64EncodedString(),
                served: try row.data("served").base64EncodedString(),
                contentHash: try row.string("content_hash")
            )
        }
    }

    public func classExport(teacher: String, admin: Bool, group: String?, now: Date) async throws -> ClassroomPull {
        let ids = try await classAssessmentIDs(teacher: teacher, admin: admin)
        var assessments: [ClassroomPull.PulledAssessment] = []
        var draws: [ClassroomPull.PulledDraw] = []
        for id in ids {
            let version = try await rows(
                SQLStatement(
                    """
                    SELECT a.current_version, a.closed_at, v.source, v.served, v.content_hash FROM assessments a
                    JOIN assessment_versions v ON v.id = a.id AND v.version = a.current_version WHERE a.id = ?
                    """,
                    [.text(id)],
                    columns: ["current_version", "closed_at", "source", "served", "content_hash"]
                )
            ) { row in
                ClassroomPull.PulledAssessment(
                    id: id,
                    version: try row.int("current_version"),
                    source: try row.data("source").base64EncodedString(),
                    served: try row.data("served").base64EncodedString(),
                    contentHash: try row.string("content_hash"),
                    closedAt: try row.optionalDouble("closed_at").map { Timestamp.string(Date(timeIntervalSince1970: $0)) }
                )
            }
            assessments += version
            draws += try await rows(DrawStatements.draws(assessmentID: id)) { row in
                let stored = try DrawStatements.stored(row)
                return ClassroomPull.PulledDraw(
                    assessmentId: id,
                    user: try row.string("user_name"),
                    seed: String(stored.seed),
                    version: stored.version,
                    draw: try stored.drawText()
                )
            }
        }
        let scopes = ids + [AccommodationScope.everyAssessment]
        let extra = try await rows(
            SQLStatement(
                "SELECT assessment_id, user_name, extra_minutes FROM accommodations",
                [],
                columns: ["assessment_id", "user_name", "extra_minutes"]
            )
        ) { row in
            ClassroomPull.ExtraTime(
                assessmentId: try row.string("assessment_id"),
                user: try row.string("user_name"),
                extraMinutes: try row.int("extra_minutes")
            )
        }.filter { scopes.contains($0.assessmentId) }
        let students = try await rows(
            SQLStatement(
                "SELECT name, group_name FROM users WHERE role = 'student' AND admin = 0 AND disabled = {false}"
                    + (group == nil ? "" : " AND group_name = ?") + " ORDER BY name",
                group.map { [SQLValue.text($0)] } ?? [],
                columns: ["name", "group_name"]
            )
        ) { (try $0.string("name"), try $0.optionalString("group_name")) }
        let keys = try await rows(
            SQLStatement(
                "SELECT user_name, public_key FROM device_keys WHERE revoked_at IS NULL ORDER BY registered_at",
                [],
                columns: ["user_name", "public_key"]
            )
        ) { (try $0.string("user_name"), try $0.string("public_key")) }
        let keysByUser = Dictionary(grouping: keys, by: \.0).mapValues { $0.map(\.1) }
        let names = Set(students.map(\.0))
        return ClassroomPull(
            teacher: teacher,
            pulledAt: Timestamp.string(now),
            assessments: assessments,
            students: students.map { ClassroomPull.Student(name: $0.0, group: $0.1, deviceKeys: keysByUser[$0.0] ?? []) },
            extraTime: extra.filter { names.contains($0.user) },
            draws: draws.filter { names.contains($0.user) }
        )
    }

    // MARK: Results, brought down

    public func classResults(teacher: String, admin: Bool) async throws -> ClassroomResults {
        let ids = try await classAssessmentIDs(teacher: teacher, admin: admin)
        var results = ClassroomResults(assessments: [], handedIn: [], grades: [], feedback: [], late: [])
        results.held = []
        // One assessment at a time: a handful for a class, and no statement with an unbounded list in it.
        for id in ids {
            let assessment = SQLValue.text(id)
            results.assessments += try await rows(
                SQLStatement("SELECT released_at FROM assessments WHERE id = ?", [assessment], columns: ["released_at"])
            ) { row in
                ClassroomResults.State(
                    assessmentId: id,
                    releasedAt: try row.optionalDouble("released_at").map { Timestamp.string(Date(timeIntervalSince1970: $0)) }
                )
            }
            let held = try await rows(
                SQLStatement(
                    "SELECT attempt_id, user_name, received_at, via, flags, late_decision FROM submissions WHERE assessment_id = ? ORDER BY attempt_id",
                    [assessment],
                    columns: ["attempt_id", "user_name", "received_at", "via", "flags", "late_decision"]
                )
            ) { row in
                let flags = try SubmissionRecord.flags(stored: try row.string("flags"))
                let decision = try row.optionalString("late_decision").flatMap(LateDecision.init(rawValue:))
                return (
                    attempt: try row.string("attempt_id"),
                    // A hand-in kept apart (a revoked device's, not accepted) is not the student's (issue 68).
                    counted: !(flags.contains(.revokedDevice) && decision != .accepted),
                    held: ClassroomResults.Held(
                        assessmentId: id,
                        attemptId: try row.string("attempt_id"),
                        user: try row.string("user_name"),
                        receivedAt: Timestamp.string(Date(timeIntervalSince1970: try row.double("received_at"))),
                        via: try SubmissionChannel(rawValue: try row.string("via")) ?? { throw StorageError.column("via", "is not a channel") }()
                    )
                )
            }
            results.handedIn += held.map(\.attempt)
            results.held? += held.filter(\.counted).map(\.held)
            results.grades += try await rows(ClassroomStatements.marks(in: "grades", value: "points", assessmentID: id)) { row in
                ClassroomMark(
                    assessmentId: id,
                    attemptId: try row.string("attempt_id"),
                    questionId: try row.string("question_id"),
                    points: try row.double("points")
                )
            }
            results.feedback += try await rows(ClassroomStatements.marks(in: "feedback", value: "text", assessmentID: id)) { row in
                ClassroomMark(
                    assessmentId: id,
                    attemptId: try row.string("attempt_id"),
                    questionId: try row.string("question_id"),
                    text: try row.string("text")
                )
            }
            results.late += try await rows(
                SQLStatement(
                    "SELECT attempt_id, late_decision FROM submissions WHERE assessment_id = ? AND late_decision IS NOT NULL ORDER BY attempt_id",
                    [assessment],
                    columns: ["attempt_id", "late_decision"]
                )
            ) { ClassroomResults.Late(attemptId: try $0.string("attempt_id"), decision: try $0.string("late_decision")) }
        }
        return results
    }

    public func importResults(_ results: ClassroomResults, now: Date) async throws -> ResultsBroughtDown {
        // Numbers and names from the wire are held to what this server's own desk would take before anything is
        // applied: a reply with one that is not is refused whole.
        for mark in results.grades where !(mark.points.map { $0.isFinite && $0 >= 0 } ?? false) {
            throw StorageError.damaged("the district's points for \(mark.attemptId) cannot be read")
        }
        for mark in results.feedback where (mark.text?.count ?? 0) > TeacherDesk.maxFeedback {
            throw StorageError.damaged("the district's feedback for \(mark.attemptId) is too long")
        }
        for late in results.late where LateDecision(rawValue: late.decision) == nil {
            throw StorageError.damaged("the district's decision on the late hand-in \(late.attemptId) cannot be read")
        }
        var heldWrites: [SQLStatement] = []
        if let held = results.held {
            heldWrites.append(SQLStatement("DELETE FROM district_hand_ins", []))
            var seen = Set<String>()
            for hand in held {
                guard seen.insert(hand.attemptId).inserted, (try? Identifiers.check([hand.assessmentId, hand.attemptId, hand.user])) != nil,
                    let received = Timestamp.date(hand.receivedAt)
                else { throw StorageError.damaged("the district's hand-in \(hand.attemptId) cannot be read") }
                heldWrites.append(
                    SQLStatement(
                        "INSERT INTO district_hand_ins (attempt_id, assessment_id, user_name, received_at, via) VALUES (?, ?, ?, ?, ?)",
                        [
                            .text(hand.attemptId), .text(hand.assessmentId), .text(hand.user), .real(received.timeIntervalSince1970),
                            .text(hand.via.rawValue),
                        ]
                    )
                )
            }
        }
        // What this classroom's teacher changed and the district has not yet taken: theirs stands until it has.
        let pending = Set(
            try await rows(
                SQLStatement(
                    "SELECT kind, item_id FROM classroom_outbox WHERE state = ? AND kind IN (?, ?, ?, ?)",
                    [
                        .text(UpstreamState.waiting.rawValue), .text(ClassroomPushRequest.Kind.grade.rawValue),
                        .text(ClassroomPushRequest.Kind.feedback.rawValue), .text(ClassroomPushRequest.Kind.release.rawValue),
                        .text(ClassroomPushRequest.Kind.late.rawValue),
                    ],
                    columns: ["kind", "item_id"]
                )
            ) { "\(try $0.string("kind"))\n\(try $0.string("item_id"))" }
        )
        func waiting(_ kind: ClassroomPushRequest.Kind, _ id: String) -> Bool { pending.contains("\(kind.rawValue)\n\(id)") }
        var brought = ResultsBroughtDown()
        let actor = "the district"
        if !heldWrites.isEmpty { try await write(heldWrites) }

        let released = Dictionary(
            try await rows(SQLStatement("SELECT id, released_at FROM assessments", [], columns: ["id", "released_at"])) {
                (try $0.string("id"), try $0.optionalDouble("released_at") != nil)
            },
            uniquingKeysWith: { first, _ in first }
        )
        for state in results.assessments where !waiting(.release, state.assessmentId) {
            guard let here = released[state.assessmentId], here != (state.releasedAt != nil) else { continue }
            let change: AssessmentChange = here ? .hideResults : .release
            if try await apply(change, assessmentID: state.assessmentId, by: actor, at: now, upstream: false) {
                if here { brought.hidden += 1 } else { brought.released += 1 }
            }
        }

        let key: @Sendable (String, String) -> String = { ClassroomMark.itemID(attemptID: $0, questionID: $1) }
        let grades = Dictionary(
            try await rows(SQLStatement("SELECT attempt_id, question_id, points FROM grades", [], columns: ["attempt_id", "question_id", "points"])) {
                (key(try $0.string("attempt_id"), try $0.string("question_id")), try $0.double("points"))
            },
            uniquingKeysWith: { first, _ in first }
        )
        for mark in results.grades {
            let id = key(mark.attemptId, mark.questionId)
            guard let points = mark.points, !waiting(.grade, id), grades[id] != points else { continue }
            if try await grade(attemptID: mark.attemptId, questionID: mark.questionId, points: points, upstream: false, bounded: true) {
                brought.grades += 1
            } else {
                brought.skipped += 1
            }
        }

        let feedback = Dictionary(
            try await rows(SQLStatement("SELECT attempt_id, question_id, text FROM feedback", [], columns: ["attempt_id", "question_id", "text"])) {
                (key(try $0.string("attempt_id"), try $0.string("question_id")), (attempt: try $0.string("attempt_id"), text: try $0.string("text")))
            },
            uniquingKeysWith: { first, _ in first }
        )
        let districtFeedback = Dictionary(results.feedback.map { (key($0.attemptId, $0.questionId), $0) }, uniquingKeysWith: { first, _ in first })
        for (id, mark) in districtFeedback.sorted(by: { $0.key < $1.key }) where !waiting(.feedback, id) && feedback[id]?.text != mark.text {
            if try await setFeedback(attemptID: mark.attemptId, questionID: mark.questionId, text: mark.text, upstream: false) {
                brought.feedback += 1
            } else {
                brought.skipped += 1
            }
        }
        // Feedback the district took back on a hand-in it holds goes here too.
        let handedIn = Set(results.handedIn)
        for (id, kept) in feedback.sorted(by: { $0.key < $1.key })
        where handedIn.contains(kept.attempt) && districtFeedback[id] == nil && !waiting(.feedback, id) {
            let question = String(id.dropFirst(kept.attempt.count + 1))
            if try await setFeedback(attemptID: kept.attempt, questionID: question, text: nil, upstream: false) { brought.feedback += 1 }
        }

        let decided = Dictionary(
            try await rows(
                SQLStatement(
                    "SELECT attempt_id, late_decision FROM submissions WHERE late_decision IS NOT NULL",
                    [],
                    columns: ["attempt_id", "late_decision"]
                )
            ) { (try $0.string("attempt_id"), try $0.string("late_decision")) },
            uniquingKeysWith: { first, _ in first }
        )
        let districtLate = Dictionary(results.late.map { ($0.attemptId, $0.decision) }, uniquingKeysWith: { first, _ in first })
        for late in results.late where decided[late.attemptId] != late.decision && !waiting(.late, late.attemptId) {
            if try await decideLate(attemptID: late.attemptId, decision: LateDecision(rawValue: late.decision), by: actor, at: now, upstream: false) {
                brought.late += 1
            }
        }
        // A decision the district undid on a hand-in it holds is undone here too.
        for attempt in decided.keys.sorted() where handedIn.contains(attempt) && districtLate[attempt] == nil && !waiting(.late, attempt) {
            if try await decideLate(attemptID: attempt, decision: nil, by: actor, at: now, upstream: false) { brought.late += 1 }
        }
        return brought
    }
}

import Foundation
import PostgresNIO
import VaultRules
import VaultServer

/// The statements every upload runs (the token check, a batch's read and its write), prepared once per connection:
/// PostgreSQL parses and plans them once, not on every request (planning the four-way read cost more than running it).
enum HotStatements {
    /// Who holds an unexpired token.
    struct TokenOwner: PostgresPreparedStatement {
        static let name = "vault_token_owner_v4"
        static let sql = AccountStatements.tokenOwnerSQL(hash: "$1::text", now: "$2::double precision")
        typealias Row = (String, String, String?)

        let hash: String
        let now: Date

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(hash)
            bindings.append(now.timeIntervalSince1970)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// The kinds of row `BatchFacts` returns.
    enum Kind: Int {
        case head = 1
        case stored
        case attempt
        case latest
    }

    /// Stored responses, assessment heads (`FOR SHARE`, so a publish or delete waits for the batch), attempt owners
    /// (with the hand-in time of a handed-in one) and the current answer of each slot, as rows tagged by kind: four reads, one round trip.
    struct BatchFacts: PostgresPreparedStatement {
        static let name = "vault_batch_facts_v4"
        static let sql = """
            WITH heads AS (SELECT id, current_version, deleted, closed_at, released_at FROM assessments WHERE id = ANY($1::text[]) FOR SHARE)
            SELECT \(Kind.head.rawValue)::int, id, NULL::text, NULL::text, current_version, deleted, closed_at, NULL::text, released_at FROM heads
            UNION ALL SELECT \(Kind.stored.rawValue), id, user_name, NULL, NULL, NULL, NULL, NULL, NULL FROM responses WHERE id = ANY($2::text[])
            UNION ALL SELECT \(Kind.attempt.rawValue), a.id, a.user_name, a.assessment_id, NULL, NULL, NULL, s.submitted_at, s.received_at
                FROM attempts a LEFT JOIN submissions s ON s.attempt_id = a.id WHERE a.id = ANY($3::text[])
            UNION ALL SELECT \(Kind.latest.rawValue), r.attempt_id, r.question_id, r.id, r.answered_at_ms, NULL, NULL, NULL, NULL FROM responses r
                JOIN unnest($4::text[], $5::text[]) AS s(attempt_id, question_id)
                ON r.attempt_id = s.attempt_id AND r.question_id = s.question_id
                WHERE NOT r.superseded
            """
        typealias Row = (Int, String, String?, String?, Int64?, Bool?, Double?, String?, Double?)

        let needs: BatchPlan.Needs

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 5)
            bindings.append(needs.assessmentIDs)
            bindings.append(needs.responseIDs)
            bindings.append(needs.attemptIDs)
            bindings.append(needs.slots.map(\.attemptID))
            bindings.append(needs.slots.map(\.questionID))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }

        /// Reads the rows into `facts`.
        static func read(_ rows: some AsyncSequence<Row, any Error>, into facts: inout VaultRules.BatchFacts) async throws {
            for try await (kind, a, b, c, number, flag, closedAt, handedIn, at) in rows {
                switch (Kind(rawValue: kind), b, c, number, flag) {
                case (.head, _, _, let version?, let deleted?):
                    // `at`: when its results were released.
                    facts.assessments[a] = AssessmentHead(currentVersion: Int(version), deleted: deleted, closedAt: closedAt, released: at != nil)
                case (.stored, let owner?, _, _, _): facts.storedResponses[a] = owner
                case (.attempt, let owner?, let assessment?, _, _):
                    // `at`: when its hand-in reached the server.
                    facts.attempts[a] = AttemptOwner(
                        user: owner,
                        assessmentID: assessment,
                        handedInAtMilliseconds: AttemptOwner.handedIn(handedIn),
                        handedInReceivedAt: at
                    )
                case (.latest, let question?, let id?, let answeredAt?, _):
                    facts.latest[AnswerSlot(attemptID: a, questionID: question)] = LatestAnswer(responseID: id, answeredAtMilliseconds: answeredAt)
                default: continue
                }
            }
        }
    }

    /// The batch's new attempts and responses in one statement (its supersede, when there is one, runs before it).
    struct BatchInsert: PostgresPreparedStatement {
        static let name = "vault_batch_insert_v1"
        static let sql = """
            WITH new_attempts AS (
                INSERT INTO attempts (id, user_name, assessment_id) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
            )
            INSERT INTO responses (id, user_name, attempt_id, assessment_id, assessment_version, question_id, answer, answered_at,
                answered_at_ms, time_spent_ms, forced, superseded, received_at)
            SELECT id, user_name, attempt_id, assessment_id, assessment_version, question_id, answer, answered_at, answered_at_ms,
                time_spent_ms, forced, superseded, $16::double precision
            FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text[], $11::text[],
                $12::bigint[], $13::bigint[], $14::boolean[], $15::boolean[])
                AS n(id, user_name, attempt_id, assessment_id, assessment_version, question_id, answer, answered_at, answered_at_ms,
                time_spent_ms, forced, superseded)
            """
        typealias Row = ()

        let writes: BatchWrites
        let now: Date

        func makeBindings() throws -> PostgresBindings {
            let a = writes.attempts
            let r = writes.responses
            var bindings = PostgresBindings(capacity: 16)
            bindings.append(a.map(\.id))
            bindings.append(a.map(\.user))
            bindings.append(a.map(\.assessmentID))
            bindings.append(r.map(\.id))
            bindings.append(r.map(\.user))
            bindings.append(r.map(\.attemptID))
            bindings.append(r.map(\.assessmentID))
            bindings.append(r.map { Int64($0.assessmentVersion) })
            bindings.append(r.map(\.questionID))
            bindings.append(r.map(\.answer))
            bindings.append(r.map(\.answeredAt))
            bindings.append(r.map(\.answeredAtMilliseconds))
            bindings.append(r.map { Int64($0.timeSpentMilliseconds) })
            bindings.append(r.map(\.forced))
            bindings.append(r.map(\.superseded))
            bindings.append(now.timeIntervalSince1970)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {}
    }
}

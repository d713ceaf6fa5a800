import Foundation
import VaultAPI
import VaultRules

/// Attempts' own records (issue 55): one row per attempt and device, its events as JSON.
public enum RecordStatements {
    static let columns = ["attempt_id", "device_key", "user_name", "assessment_id", "events", "verified", "problem", "received_at"]

    static func keep(_ record: StoredAttemptRecord, dialect: SQLDialect) throws -> SQLStatement {
        let events = String(decoding: try CanonicalJSON.encode(record.events), as: UTF8.self)
        return SQLStatement(
            dialect.upsert(
                into: "attempt_records",
                columns: [
                    "attempt_id", "device_key", "user_name", "assessment_id", "head", "event_count", "events", "verified", "problem", "received_at",
                ],
                key: ["attempt_id", "device_key"]
            ),
            [
                .text(record.attemptID), .text(record.deviceKey), .text(record.user), .text(record.assessmentID),
                .text(record.events.last?.hash ?? RecordEvent.firstPrevious), .integer(record.events.count), .text(events),
                .bool(record.verified), record.problem.map(SQLValue.text) ?? .null, .real(record.receivedAt),
            ]
        )
    }

    static func records(assessmentID: String, user: String?) -> SQLStatement {
        var filter = SQLFilter()
        filter.equal("assessment_id", assessmentID)
        filter.equal("user_name", user)
        return filter.statement(
            "SELECT \(columns.joined(separator: ", ")) FROM attempt_records WHERE \(filter.sql) ORDER BY user_name, attempt_id, received_at",
            columns: columns
        )
    }

    static func record(_ row: any StoredRow) throws -> StoredAttemptRecord {
        let events: [RecordEvent]
        do {
            events = try JSONDecoder().decode([RecordEvent].self, from: Data(try row.string("events").utf8))
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.damaged("a stored attempt record cannot be read")
        }
        return StoredAttemptRecord(
            attemptID: try row.string("attempt_id"),
            deviceKey: try row.string("device_key"),
            user: try row.string("user_name"),
            assessmentID: try row.string("assessment_id"),
            events: events,
            verified: try row.bool("verified"),
            problem: try row.optionalString("problem"),
            receivedAt: try row.double("received_at")
        )
    }
}

extension SharedStatements {
    /// Keeps one device's record of an attempt (the latest upload of it replaces the one before).
    public func keepRecord(_ record: StoredAttemptRecord) async throws {
        try await run(try RecordStatements.keep(record, dialect: dialect))
    }

    /// The records of an assessment's attempts, one student's or every one's.
    public func records(assessmentID: String, user: String?) async throws -> [StoredAttemptRecord] {
        try await rows(RecordStatements.records(assessmentID: assessmentID, user: user), RecordStatements.record)
    }
}

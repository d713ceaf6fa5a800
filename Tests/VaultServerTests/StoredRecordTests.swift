import Foundation
import HTTPTypes
import Testing
import VaultAPI
import VaultCore
import VaultRules
import VaultServer
import VaultServerPostgres
import VaultTestSupport

/// The record layer: one column list and one mapper per record, strict on both stores.
struct StoredRecordTests {
    @Test("read by position, a SQLite row is as strict as by name: NULL, a number for text or text for a number throws")
    func positionalReadsAreStrict() throws {
        let row = SQLiteStoredRow(Row(values: [.text("ana"), .null, .integer(3), .text("x"), .blob(Data([1]))]))
        #expect(try row.string(0) == "ana" && row.optionalString(1) == nil && row.int(2) == 3 && row.data(4) == Data([1]))
        #expect(throws: StorageError.self) { try row.string(1) }
        #expect(throws: StorageError.self) { try row.string(2) }
        #expect(throws: StorageError.self) { try row.int(3) }
        #expect(throws: StorageError.self) { try row.data(3) }
        #expect(throws: StorageError.self) { try row.string(9) }
    }

    @Test("a stored document that does not decode is damaged, named, and never read as no such assessment")
    func damagedDocument() async throws {
        let harness = try await ServerHarness(.sqlite)
        try await harness.test { api in
            #expect(try await api.publish(Fixtures.quiz(), teacher: try await api.token("teacher")).status == .created)
            let database = try Database(path: harness.directory.file("data") + "/server.db", encryption: .plaintext)
            try database.execute("UPDATE assessment_versions SET source = x'7b6e6f74' WHERE id = 'quiz-1'")
            do {
                _ = try await harness.storage.rosterFacts(assessmentID: "quiz-1", group: nil)
                Issue.record("a damaged document was read")
            } catch let error as StorageError {
                #expect(error == .damaged("assessment quiz-1 version 1: its stored document cannot be read"))
            }
        }
    }

    @Test("a damaged row (an unknown flag, a NULL where a value must be) is refused by the mapper, never read as empty or zero")
    func damagedRowsThrow() throws {
        let row = Row(values: [
            .text("a1"), .text("student"), .text("quiz"), .integer(1), .text("2026-11-20T10:10:00.000Z"), .integer(0), .text("rcpt-1"),
            .real(1_790_000_000), .integer(2), .null, .null, .null, .null, .null, .text("second_attempt"), .text("hand_in"), .null,
            .null, .null, .null,
            // kept_points (issue 51): each question's automatic points, kept with the score.
            .null,
            // scored_version (issue 53): the later version a regrade scores it by.
            .null,
            // classroom (issue 69): the classroom server it came through.
            .null,
        ])
        let record = try SubmissionRecord(row: SQLiteStoredRow(row, columns: SubmissionRecord.columns))
        #expect(record.flags == [.secondAttempt] && record.responseCount == 2 && record.via == .handIn && record.lateDecision == nil)
        #expect(record.totals == nil, "stored before scores were kept")
        var kept = row.values
        kept[17...19] = [.real(2.5), .real(9), .integer(1)]
        #expect(
            try SubmissionRecord(row: SQLiteStoredRow(Row(values: kept), columns: SubmissionRecord.columns)).totals
                == .init(score: 2.5, maxScore: 9, pending: 1)
        )
        var points = kept
        points[20] = .text(#"{"q1":1.5,"q6":null}"#)
        let withPoints = try SubmissionRecord(row: SQLiteStoredRow(Row(values: points), columns: SubmissionRecord.columns))
        let expected: [String: Double?] = ["q1": 1.5, "q6": nil]
        #expect(withPoints.totals?.automatic == expected)
        points[20] = .text(#"{"q1":"many"}"#)
        #expect(throws: StorageError.self, "kept points that are not points are damage") {
            try SubmissionRecord(row: SQLiteStoredRow(Row(values: points), columns: SubmissionRecord.columns))
        }
        kept[18] = .null
        #expect(throws: StorageError.self) { try SubmissionRecord(row: SQLiteStoredRow(Row(values: kept), columns: SubmissionRecord.columns)) }
        var unknownChannel = row.values
        unknownChannel[15] = .text("carrier_pigeon")
        #expect(throws: StorageError.self) {
            try SubmissionRecord(row: SQLiteStoredRow(Row(values: unknownChannel), columns: SubmissionRecord.columns))
        }
        var unknownDecision = row.values
        unknownDecision[16] = .text("maybe")
        #expect(throws: StorageError.self) {
            try SubmissionRecord(row: SQLiteStoredRow(Row(values: unknownDecision), columns: SubmissionRecord.columns))
        }
        var unknownFlag = row.values
        unknownFlag[14] = .text("made_up")
        #expect(throws: SubmissionFlagError.self) {
            try SubmissionRecord(row: SQLiteStoredRow(Row(values: unknownFlag), columns: SubmissionRecord.columns))
        }
        var nullCount = row.values
        nullCount[8] = .null
        #expect(throws: StorageError.self) { try SubmissionRecord(row: SQLiteStoredRow(Row(values: nullCount), columns: SubmissionRecord.columns)) }
        var textForNumber = row.values
        textForNumber[3] = .text("one")
        #expect(throws: StorageError.self) {
            try SubmissionRecord(row: SQLiteStoredRow(Row(values: textForNumber), columns: SubmissionRecord.columns))
        }
        // A query that selected fewer columns than the record reads.
        #expect(throws: StorageError.self) { try SubmissionRecord(row: SQLiteStoredRow(row, columns: Array(SubmissionRecord.columns.dropLast()))) }
    }
}

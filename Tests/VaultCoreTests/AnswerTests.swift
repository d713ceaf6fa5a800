import Foundation
import Testing
import VaultAPI
@_spi(Testing) import VaultCore
import VaultModel
import VaultTestSupport

@Suite(.ownThreads)
struct AttemptTests {
    let directory = TemporaryDirectory()
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    func vaultWithQuiz(expiresIn days: Double = 7) throws -> Vault {
        let vault = try TestVault.create(in: directory)
        let (document, bytes) = TestDocuments.served("quiz", padding: 10)
        _ = try vault.storeAssessment(
            document,
            bytes: bytes,
            etag: nil,
            now: Self.now.addingTimeInterval((days - 7) * 86_400),
            diskSpace: .fixed(1 << 40)
        )
        return vault
    }

    @Test("an answer is committed before the call returns: another connection sees it")
    func durable() throws {
        let vault = try vaultWithQuiz()
        let attempt = try vault.openAttempt(on: "quiz", now: Self.now)
        try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("First answer"), now: Self.now)
        let reader = try Database(
            path: vault.paths.database,
            encryption: .rawKey(
                SecretBytes(Hex.decode(String(vault.revealKey().literal.dropFirst(2).prefix(64)))!),
                salt: vault.keyFile.databaseSaltBytes
            )
        )
        #expect(try reader.scalarInt("SELECT count(*) FROM responses WHERE state = 'pending'") == 1)
    }

    @Test("changing a pending answer replaces it under a new id; changing an uploaded one queues a newer answer")
    func replace() throws {
        let vault = try vaultWithQuiz()
        let attempt = try vault.openAttempt(on: "quiz", now: Self.now)
        let first = try vault.recordAnswer(
            attemptID: attempt.id,
            questionID: "q1",
            answer: .string("one"),
            timeSpentMilliseconds: 1_000,
            now: Self.now
        )
        let second = try vault.recordAnswer(
            attemptID: attempt.id,
            questionID: "q1",
            answer: .string("two"),
            timeSpentMilliseconds: 500,
            now: Self.now.addingTimeInterval(1)
        )
        #expect(first != second)
        #expect(try vault.database.scalarInt("SELECT count(*) FROM responses") == 1)
        #expect(try vault.database.scalarInt("SELECT time_spent_ms FROM responses") == 1_500)
        #expect(try vault.database.scalarInt("SELECT count(*) FROM sync_queue WHERE ref_id = ?", [second]) == 1)
        #expect(try vault.database.scalarInt("SELECT count(*) FROM sync_queue WHERE ref_id = ?", [first]) == 0)
        try vault.database.execute("UPDATE responses SET state = 'synced' WHERE id = ?", [second])
        try vault.database.execute("DELETE FROM sync_queue", [])
        let third = try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("three"), now: Self.now.addingTimeInterval(2))
        #expect(try vault.database.scalarInt("SELECT count(*) FROM responses") == 2)
        #expect(try vault.attempt(attempt.id).answers["q1"] == .string("three"))
        // Stored as integer milliseconds since migration 18 (one form for every stored time).
        #expect(
            try vault.database.row("SELECT answered_at FROM responses WHERE id = ?", [third])?.date(0) == Timestamp.date("2027-01-15T08:00:02.000Z")
        )
    }

    @Test("submit makes the attempt read-only and queues the submission after its answers")
    func submit() throws {
        let vault = try vaultWithQuiz()
        let attempt = try vault.openAttempt(on: "quiz", now: Self.now)
        try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("x"), now: Self.now)
        try vault.submitAttempt(attempt.id, now: Self.now)
        #expect(throws: VaultError.self) { try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("y")) }
        #expect(throws: VaultError.self) { try vault.submitAttempt(attempt.id) }
        #expect(throws: VaultError.self) { _ = try vault.openAttempt(on: "quiz", now: Self.now) }
        let queue = try vault.database.rows("SELECT kind FROM sync_queue ORDER BY seq").map { try $0.string(0) }
        #expect(queue == ["response", "submission"])
        #expect(try vault.status().pendingSubmissions == 1)
    }

    @Test("an expired copy cannot start an attempt, but an attempt already open can be finished")
    func expiry() throws {
        let vault = try vaultWithQuiz(expiresIn: 1)
        let attempt = try vault.openAttempt(on: "quiz", now: Self.now)
        let later = Self.now.addingTimeInterval(3 * 86_400)
        let resumed = try vault.openAttempt(on: "quiz", now: later)
        #expect(resumed.id == attempt.id)
        try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("late"), now: later)
        try vault.submitAttempt(attempt.id, now: later)
        // As if it had never started: no attempt on the expired copy.
        try vault.database.execute("DELETE FROM sync_queue", [])
        try vault.database.execute("DELETE FROM responses", [])
        try vault.database.execute("DELETE FROM attempts WHERE id = ?", [attempt.id])
        do {
            _ = try vault.openAttempt(on: "quiz", now: later)
            Issue.record("started on an expired copy")
        } catch let error as VaultError {
            #expect(error.message.contains("expired"))
            #expect(error.message.contains("Download it again"))
        }
    }

    @Test("flags, position and active time persist; active time never goes down")
    func progress() throws {
        let vault = try vaultWithQuiz()
        let attempt = try vault.openAttempt(on: "quiz", now: Self.now)
        try vault.saveProgress(attemptID: attempt.id, activeMilliseconds: 30_000, currentQuestion: 0, flagged: ["q1"])
        try vault.saveProgress(attemptID: attempt.id, activeMilliseconds: 10_000)
        let reloaded = try vault.attempt(attempt.id)
        #expect(reloaded.activeMilliseconds == 30_000)
        #expect(reloaded.flagged == ["q1"])
    }

    @Test("a new answer is kept later than every answer to its question: after a clock set back, and never a trap on a damaged latest time")
    func laterThanEveryAnswer() throws {
        let vault = try vaultWithQuiz()
        let attempt = try vault.openAttempt(on: "quiz", now: Self.now)
        let first = try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("one"), now: Self.now)
        try vault.database.execute("UPDATE responses SET state = 'uploaded' WHERE id = ?", [first])
        // The wall clock set back an hour: the new answer still comes after the one before it.
        let second = try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("two"), now: Self.now.addingTimeInterval(-3600))
        let firstAt = try #require(try vault.database.row("SELECT answered_at FROM responses WHERE id = ?", [first])?.int64(0))
        #expect(try vault.database.row("SELECT answered_at FROM responses WHERE id = ?", [second])?.int64(0) == firstAt + 1)
        #expect(try vault.attempt(attempt.id).answers["q1"] == .string("two"))
        try vault.database.execute("UPDATE responses SET answered_at = ?, state = 'uploaded' WHERE id = ?", [Int64.max, second])
        _ = try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("three"), now: Self.now)
        #expect(try vault.database.scalarInt("SELECT count(*) FROM responses WHERE attempt_id = ?", [attempt.id]) == 3)
    }
}

import Foundation
import Synchronization
import Testing
import VaultAPI
@_spi(Testing) import VaultCore
import VaultModel
import VaultTestSupport

/// Clocks a test moves by hand: the wall clock (which a student can set) and the boot clock (which they cannot).
final class TestClocks: Sendable {
    private struct State {
        var wall = Date(timeIntervalSince1970: 1_800_000_000)
        var boot = AttemptClocks.BootReading(bootID: "boot-1", elapsed: .seconds(1_000))
    }
    private let state = Mutex(State())

    var clocks: AttemptClocks {
        AttemptClocks(wall: { self.state.withLock { $0.wall } }, boot: { self.state.withLock { $0.boot } })
    }

    /// Time passing: both clocks move (a suspended laptop too: CLOCK_BOOTTIME counts suspend).
    func pass(_ duration: Duration) {
        state.withLock {
            $0.wall = $0.wall.addingTimeInterval(duration.inSeconds)
            $0.boot.elapsed += duration
        }
    }

    /// The student sets the wall clock; the boot clock does not move.
    func setWall(by seconds: TimeInterval) { state.withLock { $0.wall = $0.wall.addingTimeInterval(seconds) } }

    /// A reboot: a new boot id, its clock from zero.
    func reboot() { state.withLock { $0.boot = AttemptClocks.BootReading(bootID: "boot-\(UUID())", elapsed: .seconds(5)) } }
}

@Suite(.ownThreads)
struct AttemptTimeTests {
    let directory = TemporaryDirectory()

    /// A vault holding a 10-minute timed quiz of two questions, measured on `clocks`.
    func timedVault(_ clocks: TestClocks) throws -> Vault {
        let vault = try TestVault.create(in: directory)
        vault.clocks = clocks.clocks
        let document = try ServedDocument.hashed(
            Assessment(
                id: "timed",
                title: "Timed Quiz",
                timeLimitSeconds: 600,
                questions: [
                    Question(id: "q1", type: .shortText, prompt: "One"), Question(id: "q2", type: .shortText, prompt: "Two"),
                ]
            ),
            version: 1
        )
        _ = try vault.storeAssessment(document, bytes: try CanonicalJSON.encode(document), etag: nil, diskSpace: .fixed(1 << 40))
        return vault
    }

    @Test("the clock starts when a question is first shown or answered, not at download or when the attempt opens")
    func startsAtFirstSight() throws {
        let clocks = TestClocks()
        let vault = try timedVault(clocks)
        var attempt = try vault.openAttempt(on: "timed")
        clocks.pass(.seconds(3_600))
        #expect(vault.timeStatus(of: attempt).used == .zero)
        attempt = try vault.startClock(attemptID: attempt.id)
        clocks.pass(.seconds(60))
        #expect(vault.timeStatus(of: attempt).used == .seconds(60))
        #expect(vault.timeStatus(of: attempt).remaining == .seconds(540))
    }

    @Test(
        "continued on another device: the first device's start is the clock's start, the deadline stays, a clock set back gives nothing back, and past it the attempt is handed in"
    )
    func continuedKeepsTheDeadline() throws {
        let clocks = TestClocks()
        let vault = try timedVault(clocks)
        let began = clocks.clocks.wall().addingTimeInterval(-240)  // 4 minutes ago on the first device
        let held = HeldAttempt(
            attemptId: "attempt-elsewhere",
            assessmentId: "timed",
            assessmentVersion: 1,
            startedAt: Timestamp.string(began),
            extraMinutes: 0,
            state: .inProgress,
            answers: [.init(responseId: "r-1", questionId: "q1", answer: .string("one"), answeredAt: Timestamp.string(began.addingTimeInterval(30)))]
        )
        let continued = try vault.continueAttempt(held)
        guard case .continued(let id, 1, let startedAt, let remaining, false) = continued else {
            Issue.record("\(continued)")
            return
        }
        #expect(id == "attempt-elsewhere" && startedAt == began && remaining == .seconds(360))
        #expect(try vault.continueAttempt(held) == .alreadyHere(attemptID: id), "once")
        let attempt = try vault.openAttempt(on: "timed")
        #expect(attempt.id == id && attempt.answers["q1"] == .string("one"), "the same attempt, with the first device's answer")
        #expect(Vault.continuationSentence(continued, title: "Timed Quiz")?.contains("; 6 minutes left.") == true)
        // Setting this device's wall clock back gives nothing back: the time since the first start was counted.
        clocks.setWall(by: -3_600)
        #expect(vault.timeStatus(of: try vault.attempt(id)).remaining == .seconds(360))
        clocks.setWall(by: 3_600)
        clocks.pass(.seconds(360 + 11))
        #expect(try vault.submitIfTimeIsUp(attemptID: id), "handed in at the first device's deadline (and the grace)")
        #expect(try vault.attempt(id).state == .submitted)
    }

    @Test(
        "continued on a device whose clock is 2 h behind: the server's measure of the time used counts, not this clock's; the gap is recorded as a clock set back"
    )
    func continuedWithAClockBehind() throws {
        let clocks = TestClocks()
        let vault = try timedVault(clocks)
        // The first device started 89 s ago by the server's clock; this device's wall clock reads two hours earlier.
        let serverNow = clocks.clocks.wall()
        let began = serverNow.addingTimeInterval(-89)
        clocks.setWall(by: -7_200)
        let held = HeldAttempt(
            attemptId: "attempt-a",
            assessmentId: "timed",
            assessmentVersion: 1,
            startedAt: Timestamp.string(began),
            extraMinutes: 0,
            elapsedMs: 89_000,
            state: .inProgress,
            answers: []
        )
        guard case .continued(let id, 0, _, let remaining, false) = try vault.continueAttempt(held) else {
            Issue.record("not continued")
            return
        }
        #expect(remaining == .seconds(600 - 89), "the first device's remaining time, not a fresh 10 minutes")
        let status = vault.timeStatus(of: try vault.attempt(id))
        #expect(status.used == .seconds(89))
        #expect(status.wallMovedBack >= .seconds(7_200), "the clock behind the server's is on the record")
        clocks.pass(.seconds(600 - 89 + 11))
        #expect(try vault.submitIfTimeIsUp(attemptID: id), "handed in at the first device's deadline, whatever this clock says")
    }

    @Test("a vault closed across its deadline: the next open hands the attempt in, once, with the answers saved before (issue 53)")
    func handedInWhenTimeRanOutWhileAway() throws {
        let clocks = TestClocks()
        let vault = try timedVault(clocks)
        let attempt = try vault.openAttempt(on: "timed")
        try vault.startClock(attemptID: attempt.id)
        _ = try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("one"))
        let started = try #require(try vault.attempt(attempt.id).time.startedAt)
        clocks.pass(.seconds(300))
        #expect(try vault.handInWhereTimeRanOut().isEmpty, "5 minutes in: still running")
        clocks.pass(.seconds(311))
        let ranOut = try vault.handInWhereTimeRanOut()
        #expect(ranOut.map(\.attemptID) == [attempt.id])
        #expect(ranOut.first?.deadline == started.addingTimeInterval(600))
        #expect(ranOut.first?.sentence.contains("Your time on Timed Quiz ran out at") == true)
        #expect(try vault.attempt(attempt.id).state == .submitted)
        #expect(try vault.attempt(attempt.id).answers["q1"] == .string("one"))
        #expect(try vault.handInWhereTimeRanOut().isEmpty, "said once")
    }

    @Test(
        "extra time given during the attempt: the same version served again with a longer limit is stored over the old one (the open attempt keeps its answers) and the deadline follows (issue 53)"
    )
    func extraTimeDuringTheAttempt() throws {
        let clocks = TestClocks()
        let vault = try timedVault(clocks)
        let attempt = try vault.openAttempt(on: "timed")
        try vault.startClock(attemptID: attempt.id)
        _ = try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("one"))
        clocks.pass(.seconds(9 * 60))
        #expect(vault.timeStatus(of: try vault.attempt(attempt.id)).remaining == .seconds(60))
        // The teacher gives 5 more minutes: the server serves the same version with the longer limit.
        let longer = try ServedDocument.hashed(
            Assessment(
                id: "timed",
                title: "Timed Quiz",
                timeLimitSeconds: 900,
                questions: [
                    Question(id: "q1", type: .shortText, prompt: "One"), Question(id: "q2", type: .shortText, prompt: "Two"),
                ]
            ),
            version: 1
        )
        _ = try vault.storeAssessment(longer, bytes: try CanonicalJSON.encode(longer), etag: nil, diskSpace: .fixed(1 << 40))
        let after = try vault.attempt(attempt.id)
        #expect(after.answers["q1"] == .string("one"), "the open attempt keeps its answers")
        #expect(vault.timeStatus(of: after).remaining == .seconds(360), "6 minutes left: the deadline follows")
        clocks.pass(.seconds(120))
        _ = try vault.recordAnswer(attemptID: attempt.id, questionID: "q2", answer: .string("two"))
    }

    @Test("the time runs with no screen open: leaving and coming back gives nothing back")
    func runsWhileAway() throws {
        let clocks = TestClocks()
        let vault = try timedVault(clocks)
        let attempt = try vault.startClock(attemptID: try vault.openAttempt(on: "timed").id)
        try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("a"))
        clocks.pass(.seconds(300))  // the student quits, looks things up, comes back
        let again = try vault.openAttempt(on: "timed")
        #expect(vault.timeStatus(of: again).used == .seconds(300))
    }

    @Test("setting the wall clock back gives no time back and is recorded as an anomaly")
    func wallClockSetBack() throws {
        let clocks = TestClocks()
        let vault = try timedVault(clocks)
        let attempt = try vault.startClock(attemptID: try vault.openAttempt(on: "timed").id)
        clocks.pass(.seconds(240))
        clocks.setWall(by: -40 * 60)
        try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("a"))
        let stored = try vault.attempt(attempt.id)
        #expect(vault.timeStatus(of: stored).used == .seconds(240))
        #expect(vault.timeStatus(of: stored).wallMovedBack == .seconds(40 * 60))
    }

    @Test("a suspend-like gap counts (the boot clock counts suspend); a reboot keeps the wall time since the start")
    func suspendAndReboot() throws {
        let clocks = TestClocks()
        let vault = try timedVault(clocks)
        let attempt = try vault.startClock(attemptID: try vault.openAttempt(on: "timed").id)
        clocks.pass(.seconds(100))
        try vault.saveProgress(attemptID: attempt.id)
        clocks.pass(.seconds(200))  // lid closed
        #expect(vault.timeStatus(of: try vault.attempt(attempt.id)).used == .seconds(300))
        clocks.reboot()
        clocks.pass(.seconds(50))
        #expect(vault.timeStatus(of: try vault.attempt(attempt.id)).used == .seconds(350))
    }

    @Test("past the limit and its grace an answer is refused, the attempt is submitted with the answers saved before")
    func limitEnforcedInTheCore() throws {
        let clocks = TestClocks()
        let vault = try timedVault(clocks)
        let attempt = try vault.startClock(attemptID: try vault.openAttempt(on: "timed").id)
        try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("in time"))
        clocks.pass(.seconds(605))  // within the 10 s grace: still taken
        try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("just in time"))
        clocks.pass(.seconds(10))
        let error = #expect(throws: VaultError.self) {
            try vault.recordAnswer(attemptID: attempt.id, questionID: "q2", answer: .string("too late"))
        }
        #expect(error?.code == .notAllowed)
        #expect(error?.message.contains("ran out") == true)
        let after = try vault.attempt(attempt.id)
        #expect(after.state == .submitted)
        #expect(after.answers == ["q1": .string("just in time")])
        #expect(try vault.queueLength() == 2)  // the answer, then the submission
    }

    @Test("an untimed attempt has no clock")
    func untimed() throws {
        let vault = try TestVault.create(in: directory)
        let (document, bytes) = TestDocuments.served("quiz")
        _ = try vault.storeAssessment(document, bytes: bytes, etag: nil, diskSpace: .fixed(1 << 40))
        let attempt = try vault.startClock(attemptID: try vault.openAttempt(on: "quiz").id)
        #expect(vault.timeStatus(of: attempt).remaining == nil && !vault.timeStatus(of: attempt).isOver)
        #expect(AttemptTimeStatus.clockText(.seconds(3_725)) == "1:02:05")
        #expect(AttemptTimeStatus.clockText(.seconds(59)) == "00:59")
    }
}

import Foundation
import Testing
import VaultAPI
import VaultModel

/// A timed attempt's clock as a value: what a student's wall clock can and cannot do to it.
@Suite
struct AttemptTimeModelTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static func boot(_ seconds: Int, _ id: String = "boot-1") -> AttemptClocks.BootReading {
        AttemptClocks.BootReading(bootID: id, elapsed: .seconds(seconds))
    }

    @Test("the clock starts only when asked; the time used runs by the later of the wall and the boot clock")
    func startsAndRuns() {
        let idle = AttemptTime().checkpointed(wall: Self.start, boot: Self.boot(100), start: false)
        #expect(!idle.isStarted && idle == AttemptTime())
        let started = AttemptTime().checkpointed(wall: Self.start, boot: Self.boot(100), start: true)
        #expect(started.startedAt == Self.start)
        #expect(started.used(wall: Self.start + 90, boot: Self.boot(190)) == .seconds(90))
        // The wall clock moved forward more than the boot clock: the wall counts (time never runs slower).
        #expect(started.used(wall: Self.start + 300, boot: Self.boot(190)) == .seconds(300))
    }

    @Test("setting the wall clock back gives no time back: the boot clock keeps counting, and the move is recorded")
    func wallClockSetBack() {
        var time = AttemptTime().checkpointed(wall: Self.start, boot: Self.boot(100), start: true)
        time = time.checkpointed(wall: Self.start + 600, boot: Self.boot(700), start: false)
        // Two hours back on the wall, one more minute on the boot clock.
        let back = time.checkpointed(wall: Self.start + 600 - 7_200 + 60, boot: Self.boot(760), start: false)
        #expect(back.used(wall: Self.start - 6_540, boot: Self.boot(760)) == .seconds(660))
        #expect(back.wallMovedBackMilliseconds == 7_200_000)
    }

    @Test("a restart (a new boot) keeps what was counted before it")
    func restart() {
        var time = AttemptTime().checkpointed(wall: Self.start, boot: Self.boot(100), start: true)
        time = time.checkpointed(wall: Self.start + 120, boot: Self.boot(220), start: false)
        // After a reboot the boot clock starts again near 0 and the wall clock was set back: 120 s stay counted.
        #expect(time.used(wall: Self.start - 3_600, boot: Self.boot(5, "boot-2")) == .seconds(120))
    }

    @Test("the limit: remaining time never below zero, over only past the grace")
    func limit() {
        let status = AttemptTimeStatus(limit: .seconds(600), used: .seconds(605), startedAt: Self.start, wallMovedBack: .zero)
        #expect(status.remaining == .zero && status.hasRunOut && !status.isOver)
        let over = AttemptTimeStatus(
            limit: .seconds(600),
            used: .seconds(600) + AttemptTime.grace + .milliseconds(1),
            startedAt: nil,
            wallMovedBack: .zero
        )
        #expect(over.isOver)
        #expect(AttemptTimeStatus(limit: nil, used: .seconds(99_999), startedAt: nil, wallMovedBack: .zero).remaining == nil)
    }
}

/// A served document's hashes: what a vault checks before it keeps a download.
@Suite
struct ServedDocumentTests {
    static let document = Assessment(
        id: "model-quiz",
        title: "Model",
        teacherContact: "t@school.example",
        questions: [Question(id: "q1", type: .trueFalse, prompt: "True?"), Question(id: "q2", type: .essay, prompt: "Why?", maxLength: 100)]
    )

    @Test("a hashed document verifies; a changed prompt or a changed content hash does not, naming what")
    func hashes() throws {
        let served = try ServedDocument.hashed(Self.document, version: 3)
        #expect(served.version == 3)
        try ServedDocument.verify(served)
        var prompt = served
        prompt.questions[1].prompt = "Why not?"
        #expect(throws: ServedDocument.Mismatch.self) { try ServedDocument.verify(prompt) }
        var unhashed = served
        unhashed.contentHash = nil
        #expect(throws: ServedDocument.Mismatch.contentHashMissing) { try ServedDocument.verify(unhashed) }
    }

    @Test("hex: round trip, and anything not hex is refused")
    func hex() {
        let bytes: [UInt8] = [0, 1, 0xAB, 0xFF]
        #expect(Hex.encode(bytes) == "0001abff" && Hex.decode("0001abff") == bytes)
        #expect(Hex.decode("0g") == nil && Hex.decode("abc") == nil)
    }
}

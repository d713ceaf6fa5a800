import Foundation
import Testing
import VaultSync

struct RetryScheduleTests {
    @Test("1 s, then doubling up to 30 min; jitter within 20 %; Retry-After always wins")
    func schedule() {
        var random = SystemRandomNumberGenerator()
        let plain = RetrySchedule(jitter: 0)
        #expect(
            (1...14).map { plain.delay(afterFailures: $0, random: &random) } == [
                .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32), .seconds(64), .seconds(128), .seconds(256),
                .seconds(512), .seconds(1_024), .seconds(1_800), .seconds(1_800), .seconds(1_800),
            ]
        )
        // The sum of the waits before the default 12th failure gives up: about as long as the old schedule's.
        #expect((1...11).map { plain.delay(afterFailures: $0, random: &random) }.reduce(.zero, +) == .seconds(2_047))
        let jittered = RetrySchedule()
        for _ in 0..<200 {
            let wait = jittered.delay(afterFailures: 3, random: &random)
            #expect(wait >= .milliseconds(3_200) && wait <= .milliseconds(4_800))
            let first = jittered.delay(afterFailures: 1, random: &random)
            #expect(first >= .milliseconds(800) && first <= .milliseconds(1_200), "the first retry comes within a second or two")
        }
        #expect(plain.delay(afterFailures: 2, retryAfter: .seconds(60), random: &random) == .seconds(60))
        #expect(plain.delay(afterFailures: 9, retryAfter: .seconds(3), random: &random) == .seconds(3), "Retry-After wins when shorter too")
    }
}

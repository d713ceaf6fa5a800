import Foundation
import Testing
import VaultSync

struct RetryScheduleTests {
    @Test("immediate, 5 s, 30 s, 5 min, 30 min, then 30 min; jitter within 20 %; Retry-After wins when longer")
    func schedule() {
        var random = SystemRandomNumberGenerator()
        let plain = RetrySchedule(jitter: 0)
        #expect(
            (1...7).map { plain.delay(afterFailures: $0, random: &random) } == [
                .zero, .seconds(5), .seconds(30), .seconds(300), .seconds(1_800), .seconds(1_800), .seconds(1_800),
            ]
        )
        let jittered = RetrySchedule()
        for _ in 0..<200 {
            let wait = jittered.delay(afterFailures: 3, random: &random)
            #expect(wait >= .seconds(24) && wait <= .seconds(36))
        }
        #expect(jittered.delay(afterFailures: 1, random: &random) == .zero)
        #expect(plain.delay(afterFailures: 2, retryAfter: .seconds(60), random: &random) == .seconds(60))
        #expect(plain.delay(afterFailures: 4, retryAfter: .seconds(60), random: &random) == .seconds(300))
    }
}

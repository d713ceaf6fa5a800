import Foundation
import VaultAPI
import VaultModel

/// The server is the authority on a timed attempt's time. The first device's start, as the server received it (never
/// later than the server's clock when it arrived), fixes the deadline for every device; each answer is judged by
/// when it was given when that is believable (not before the start, not after it reached the server, each by more
/// than `clockTolerance`), else by when it reached the server. Whatever a client reports of its time used, an answer
/// past the deadline and its grace makes the hand-in "over time", and a time that cannot be true "clock disagrees".
public enum TimeAuthority {
    /// How far a device's clock may disagree with the server's before its times are not believed.
    public static let clockTolerance: TimeInterval = 120

    /// When an answer reached the server and when its device says it was given.
    public struct AnswerTime: Sendable, Equatable {
        public var answeredAtMilliseconds: Int64
        /// Seconds since 1970, by the server's clock.
        public var receivedAt: Double
        public init(answeredAtMilliseconds: Int64, receivedAt: Double) {
            self.answeredAtMilliseconds = answeredAtMilliseconds
            self.receivedAt = receivedAt
        }
    }

    /// What the server makes of a timed attempt's times.
    public struct Judgement: Sendable, Equatable {
        /// An answer counts past the deadline and its grace.
        public var overTime = false
        /// A time the attempt reports cannot be true: before its start, or after it reached the server.
        public var clockDisagrees = false
    }

    /// A start as the server records it: the device's, but never later than the server's clock when it arrived.
    public static func recordedStart(reported: Double?, now: Date) -> Double? {
        reported.map { min($0, now.timeIntervalSince1970) }
    }

    /// The judgement of `answers` (and a hand-in's `submittedAt`, received `now`) against the deadline: `startedAt`
    /// (seconds since 1970, as recorded) plus the limit and the student's extra minutes, plus the grace.
    public static func judge(
        startedAt: Double?,
        limitSeconds: Int?,
        extraMinutes: Int,
        answers: [AnswerTime],
        submittedAt: String?,
        now: Date
    ) -> Judgement {
        var judgement = Judgement()
        guard let startedAt, let limitSeconds else { return judgement }
        let start = startedAt * 1000
        let deadline = start + Double(limitSeconds + max(0, extraMinutes) * 60) * 1000 + AttemptTime.grace.inSeconds * 1000
        let tolerance = clockTolerance * 1000
        func judge(given: Double, received: Double) {
            let believable = given >= start - tolerance && given <= received + tolerance
            if !believable { judgement.clockDisagrees = true }
            if (believable ? given : received) > deadline { judgement.overTime = true }
        }
        for answer in answers {
            judge(given: Double(answer.answeredAtMilliseconds), received: answer.receivedAt * 1000)
        }
        if let submitted = submittedAt.flatMap(Timestamp.milliseconds) {
            // A hand-in after the deadline with every answer in time is not over time (the vault hands in at the
            // limit, and a student offline sends it later); its time is only checked for being possible.
            let given = Double(submitted)
            if given < start - tolerance || given > now.timeIntervalSince1970 * 1000 + tolerance { judgement.clockDisagrees = true }
        }
        return judgement
    }
}

import Foundation
import VaultAPI

/// How much of a timed attempt's limit is used, measured so that neither closing the screen, nor suspending the
/// machine, nor setting the wall clock back gives time back.
///
/// Time used is the larger of the wall time since the questions were first seen and the boot-clock time counted
/// since then (checkpointed with every save). A wall clock seen behind where the boot clock says it should be is
/// kept as an anomaly for the teacher.
public struct AttemptTime: Sendable, Equatable {
    /// When a question was first shown or answered; nil while the timer has not started.
    public var startedAt: Date?
    /// Boot-clock time counted up to the last checkpoint.
    public var countedMilliseconds: Int = 0
    /// The boot the checkpoint was taken in, and the boot clock then.
    public var bootID: String?
    public var bootCheckpointMilliseconds: Int?
    /// The wall time at the last checkpoint, and how far the wall clock was seen going back, in total.
    public var lastWall: Date?
    public var wallMovedBackMilliseconds: Int = 0

    public init() {}

    /// Seconds a wall clock may lag the boot clock (time synchronisation) before it counts as set back.
    public static let wallDriftTolerance: TimeInterval = 2

    /// The grace after the limit before answers are refused: the time a save and a redraw may take.
    public static let grace: Duration = .seconds(10)

    public var isStarted: Bool { startedAt != nil }

    /// Time used at the readings `wall` and `boot`.
    public func used(wall: Date, boot: AttemptClocks.BootReading) -> Duration {
        guard let startedAt else { return .zero }
        let byWall = Duration.milliseconds(max(0, Int(saturating: (wall.timeIntervalSince(startedAt) * 1000).rounded(.down))))
        return max(byWall, counted(at: boot))
    }

    /// Boot-clock time counted so far: the checkpoint, plus what passed since it in the same boot.
    func counted(at boot: AttemptClocks.BootReading) -> Duration {
        var total = Duration.milliseconds(countedMilliseconds)
        if let checkpoint = bootCheckpointMilliseconds, bootID == boot.bootID {
            total += max(.zero, boot.elapsed - .milliseconds(checkpoint))
        }
        return total
    }

    /// Starts the timer (if not started) and moves the checkpoint to now, noting a wall clock that went back.
    public func checkpointed(wall: Date, boot: AttemptClocks.BootReading, start: Bool) -> AttemptTime {
        var next = self
        guard startedAt != nil || start else { return self }
        if next.startedAt == nil {
            next.startedAt = wall
        } else {
            next.countedMilliseconds = counted(at: boot).wholeMilliseconds
        }
        // Where the wall clock should be now: the last checkpoint's wall plus the boot-clock time since (in the same
        // boot). Behind that by more than a little drift, it was set back.
        if let lastWall {
            var expected = lastWall
            if let checkpoint = bootCheckpointMilliseconds, bootID == boot.bootID {
                expected += max(.zero, boot.elapsed - .milliseconds(checkpoint)).inSeconds
            }
            let behind = expected.timeIntervalSince(wall)
            if behind > Self.wallDriftTolerance {
                next.wallMovedBackMilliseconds =
                    next.wallMovedBackMilliseconds.addingReportingOverflow(Int(saturating: (behind * 1000).rounded())).partialValue
            }
        }
        next.lastWall = wall
        next.bootID = boot.bootID
        next.bootCheckpointMilliseconds = boot.elapsed.wholeMilliseconds
        return next
    }
}

/// Where a timed attempt stands, for the screen and the commands.
public struct AttemptTimeStatus: Sendable, Equatable {
    public var limit: Duration?
    public var used: Duration
    public var startedAt: Date?
    public var wallMovedBack: Duration

    public init(limit: Duration?, used: Duration, startedAt: Date?, wallMovedBack: Duration) {
        self.limit = limit
        self.used = used
        self.startedAt = startedAt
        self.wallMovedBack = wallMovedBack
    }

    /// Time left, never negative; nil when untimed.
    public var remaining: Duration? { limit.map { max(.zero, $0 - used) } }
    /// Past the limit and its grace: no answer is taken any more, the attempt is submitted.
    public var isOver: Bool { limit.map { used > $0 + AttemptTime.grace } ?? false }
    /// At or past the limit (the screen stops at zero; the grace is for saves already under way).
    public var hasRunOut: Bool { limit.map { used >= $0 } ?? false }

    /// `mm:ss` (or `h:mm:ss`) for a countdown.
    public static func clockText(_ duration: Duration) -> String {
        let total = max(0, Int(duration.components.seconds))
        let hours = total / 3600
        let minutes = (total % 3600) / 60
        let seconds = total % 60
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, seconds) : String(format: "%02d:%02d", minutes, seconds)
    }
}

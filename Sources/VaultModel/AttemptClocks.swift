import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The two clocks a timed attempt is measured with, injected so tests can drive them.
///
/// - `wall`: the date; a student can set it, so it is only ever trusted to add time, never to give it back.
/// - `boot`: time since boot including suspend (Linux `CLOCK_BOOTTIME`), which no user can set; it restarts at a
///   reboot, so it comes with the id of the boot it counts from.
public struct AttemptClocks: Sendable {
    public struct BootReading: Sendable, Equatable {
        public var bootID: String
        public var elapsed: Duration
        public init(bootID: String, elapsed: Duration) {
            self.bootID = bootID
            self.elapsed = elapsed
        }
    }

    public var wall: @Sendable () -> Date
    public var boot: @Sendable () -> BootReading

    public init(wall: @escaping @Sendable () -> Date, boot: @escaping @Sendable () -> BootReading) {
        self.wall = wall
        self.boot = boot
    }

    public static let system = AttemptClocks(wall: { Date() }, boot: { BootReading(bootID: systemBootID, elapsed: bootTime()) })

    private static let systemBootID: String =
        ((try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? "unknown")
        .trimmingCharacters(in: .whitespacesAndNewlines)

    private static func bootTime() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }
}

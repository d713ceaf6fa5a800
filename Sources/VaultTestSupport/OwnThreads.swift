import Foundation
import Testing

/// Tests that block their thread (they run the real binaries and wait for them, derive keys, sleep between a crash and
/// the next try) run on threads of their own, a few at a time, instead of on Swift's cooperative pool.
///
/// Why: on Linux the pool has one thread per core. swift-testing calls a synchronous test on it, so two CLI tests on a
/// two-core machine held the whole pool for as long as they ran, and every async test (a live server, a PostgreSQL
/// store, a deadline it measures) stood still meanwhile: a 200 ms sleep came back after 3 s, a server's exit was timed
/// 2.6 s late. With `@Suite(.ownThreads)` the test's jobs run on a thread each (a task executor preference) after it
/// takes one of `slots` places, so blocking tests stay as few at once as before and the pool stays free.
public struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        await OwnThreadsTrait.slots.acquire()
        do {
            try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
        } catch {
            await OwnThreadsTrait.slots.release()
            throw error
        }
        await OwnThreadsTrait.slots.release()
    }

    /// How many blocking tests run at once: one more than the cores, about what the pool allowed before
    /// (`VAULT_TEST_BLOCKING` overrides).
    static let slots = Slots(
        ProcessInfo.processInfo.environment["VAULT_TEST_BLOCKING"].flatMap(Int.init) ?? ProcessInfo.processInfo.activeProcessorCount + 1
    )
}

extension Trait where Self == OwnThreadsTrait {
    /// Runs each test of the suite on threads of its own, off the cooperative pool (see `OwnThreadsTrait`).
    public static var ownThreads: Self { OwnThreadsTrait() }
}

/// Runs every job on a new thread: a blocking job holds only its own.
final class ThreadPerJobExecutor: TaskExecutor {
    static let shared = ThreadPerJobExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread.detachNewThread { job.runSynchronously(on: executor) }
    }
}

/// A counting semaphore that waits without holding a thread.
actor Slots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = max(1, count) }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}

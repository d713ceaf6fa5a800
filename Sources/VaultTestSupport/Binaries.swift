import Foundation
import Synchronization

/// Runs the real built executables (`vault`, `vault-server`) the way a user would.
public enum Binaries {
    /// The directory holding the built products: $VAULT_BIN_DIR, else next to the test bundle.
    public static var directory: String {
        if let explicit = ProcessInfo.processInfo.environment["VAULT_BIN_DIR"] { return explicit }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for _ in 0..<6 {
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("vault").path) { return url.path }
            url.deleteLastPathComponent()
        }
        // swift test on Linux runs `<scratch>/debug/vaultPackageTests.xctest`.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug").path
    }

    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String

        public var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
        }
    }

    /// Runs a program to completion with `stdin` as its input, a clean environment plus `environment`.
    @discardableResult
    public static func run(
        _ program: String,
        _ arguments: [String],
        stdin: String = "",
        environment: [String: String] = [:],
        timeout: Duration = .seconds(120)
    ) throws -> Result {
        let process = try start(program, arguments, environment: environment)
        let input = process.standardInput as! Pipe
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try? input.fileHandleForWriting.close()
        return try finish(process, timeout: timeout)
    }

    public static func start(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program.hasPrefix("/") ? program : directory + "/" + program)
        process.arguments = arguments
        // Human output is fitted to the terminal, 80 columns when there is none: a wide COLUMNS lets the suites read
        // whole sentences, and `OutputWidthTests` runs every command at 80 and 40 columns (no word cut, no line over).
        var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "NO_COLOR": "1", "COLUMNS": "1000"]
        // Sanitizer settings reach the binaries too (`scripts/test --sanitize`).
        for name in ["TMPDIR", "HOME", "ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"] {
            base[name] = ProcessInfo.processInfo.environment[name]
        }
        process.environment = base.merging(environment) { $1 }
        process.standardInput = Pipe()
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        return process
    }

    public static func finish(_ process: Process, timeout: Duration = .seconds(120)) throws -> Result {
        let output = process.standardOutput as! Pipe
        let errors = process.standardError as! Pipe
        // Read both pipes concurrently so a chatty child never blocks on a full pipe. The readers are threads of
        // their own: blocking dispatch's global pool (which Swift concurrency shares) can starve it when tests
        // run processes in parallel.
        let collected = CollectedOutput()
        let group = DispatchGroup()
        group.enter()
        Thread.detachNewThread {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            collected.streams.withLock { $0.stdout = data }
            group.leave()
        }
        group.enter()
        Thread.detachNewThread {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            collected.streams.withLock { $0.stderr = data }
            group.leave()
        }
        let seconds = Double(timeout.components.seconds)
        if group.wait(timeout: .now() + seconds) == .timedOut {
            process.terminate()
            kill(process.processIdentifier, SIGKILL)
            group.wait()
        }
        process.waitUntilExit()
        let (stdoutData, stderrData) = collected.streams.withLock { ($0.stdout, $0.stderr) }
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self)
        )
    }

    /// Runs a system tool found on PATH (sqlite3, sqlcipher, ...).
    public static func system(_ name: String, _ arguments: [String], stdin: String = "") throws -> Result {
        if name.hasPrefix("/") { return try run(name, arguments, stdin: stdin) }
        for directory in ["/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/sbin"]
        where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return try run("\(directory)/\(name)", arguments, stdin: stdin)
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
    }
}

/// What a child printed, filled by the reader threads.
final class CollectedOutput: Sendable {
    let streams = Mutex((stdout: Data(), stderr: Data()))
}

extension Binaries {
    /// `body` (which runs processes and waits for them) on a thread of its own, off Swift's cooperative pool.
    public static func offPool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Swift.Result { try body() }) }
        }
    }

    /// The package's root directory (for scripts and samples).
    public static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// A sample assessment shipped with the server.
    public static func sampleURL(_ id: String) -> URL {
        URL(fileURLWithPath: repositoryRoot + "/Sources/VaultServer/Samples/\(id).json")
    }
}

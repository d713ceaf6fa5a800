import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program on a real pseudo-terminal (80x24), so it sees a TTY on stdin and stdout, as a student would.
public final class PseudoTerminal: @unchecked Sendable {
    public let process: Process
    private let master: Int32
    private var buffer = Data()

    public init(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw POSIXError(.EIO) }
        // Children that other tests spawn at the same moment must not inherit either end.
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
        self.master = master
        process = Process()
        process.executableURL = URL(fileURLWithPath: program.hasPrefix("/") ? program : Binaries.directory + "/" + program)
        process.arguments = arguments
        var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "TERM": "xterm", "NO_COLOR": "1"]
        base["TMPDIR"] = ProcessInfo.processInfo.environment["TMPDIR"]
        process.environment = base.merging(environment) { $1 }
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        close(slave)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        close(master)
    }

    public func send(_ text: String) {
        _ = text.withCString { write(master, $0, strlen($0)) }
    }

    /// Reads until `marker` appears in what was printed since the last successful wait; returns that text.
    @discardableResult
    public func wait(for marker: String, timeout: Duration = .seconds(15)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let range = buffer.range(of: Data(marker.utf8)) {
                let text = String(decoding: buffer[..<range.upperBound], as: UTF8.self)
                buffer.removeSubrange(..<range.upperBound)
                return text
            }
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 100) == 1 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = read(master, &chunk, chunk.count)
                if count > 0 { buffer.append(contentsOf: chunk[0..<count]) } else if count <= 0, !process.isRunning { break }
            }
        }
        throw PseudoTerminalTimeout(marker: marker, seen: String(decoding: buffer, as: UTF8.self))
    }

    /// Waits for the program to end and returns its status.
    public func waitForExit(timeout: Duration = .seconds(15)) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            var chunk = [UInt8](repeating: 0, count: 4096)
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 50) == 1 {
                let count = read(master, &chunk, chunk.count)
                if count > 0 { buffer.append(contentsOf: chunk[0..<count]) }
            }
        }
        if process.isRunning { return nil }
        return process.terminationStatus
    }

    public var remainingOutput: String { String(decoding: buffer, as: UTF8.self) }
}

public struct PseudoTerminalTimeout: Error, CustomStringConvertible {
    public let marker: String
    public let seen: String
    public var description: String { "timed out waiting for '\(marker)'; the screen showed: \(seen.suffix(600))" }
}

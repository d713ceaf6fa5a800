import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The real `vault-server` binary on 127.0.0.1 with an ephemeral port (`--port 0 --port-file`), seeded with
/// the demo accounts and samples, password hashing at low iterations.
public final class ServerProcess: @unchecked Sendable {
    public let directory = TemporaryDirectory("vault-server-proc")
    public private(set) var process: Process?
    public private(set) var port = 0
    public var dataDirectory: String { directory.file("data") }
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Logs every request line to stderr (returned by `stop()`); only for short tests: nothing drains it meanwhile.
    public let verbose: Bool

    /// A PostgreSQL database (`postgres://…`) instead of the data directory.
    public let database: String?

    /// More options for `serve` (`--log-format json`, ...).
    public let arguments: [String]

    /// Seeded with the demo accounts and samples (`serve --demo`); a classroom server starts empty.
    public let demo: Bool

    public init(verbose: Bool = false, database: String? = nil, arguments: [String] = [], demo: Bool = true) throws {
        self.demo = demo
        self.verbose = verbose
        self.database = database
        self.arguments = arguments
        try start()
    }

    /// Starts (or restarts, on the same data and port when possible) the server.
    public func start() throws {
        let portFile = directory.file("port")
        unlink(portFile)
        let portArgument = port == 0 ? "0" : String(port)
        let process = try Binaries.start(
            "vault-server",
            [
                "serve", "--port", portArgument, "--port-file", portFile, "--password-iterations", "1000", "--seal-iterations", "1000",
            ] + (demo ? ["--demo"] : []) + (database.map { ["--database", $0] } ?? ["--data", dataDirectory]) + (verbose ? ["--verbose"] : [])
                + arguments
        )
        self.process = process
        // Up to 30 s: a loaded machine (the full suite beside it, PostgreSQL's migrations) can take more than 10.
        for _ in 0..<600 {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8),
                let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                port = value
                return
            }
            usleep(50_000)
        }
        throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: portFile])
    }

    /// Stops the server (SIGTERM, then SIGKILL) and waits for it; what it wrote to stderr.
    @discardableResult
    public func stop() -> String {
        guard let process, process.isRunning else { return "" }
        kill(process.processIdentifier, SIGTERM)
        let result = try? Binaries.finish(process, timeout: .seconds(10))
        self.process = nil
        return result?.stderr ?? ""
    }

    /// Runs a `vault-server` admin subcommand against this server's data.
    @discardableResult
    public func admin(_ arguments: [String], stdin: String = "") throws -> Binaries.Result {
        try Binaries.run("vault-server", arguments + (database.map { ["--database", $0] } ?? ["--data", dataDirectory]), stdin: stdin)
    }

    deinit { stop() }
}

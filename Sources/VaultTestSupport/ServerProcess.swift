import Foundation
import VaultCore

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
    /// The key file a classroom's `classroom init` writes and every later command opens its store with (issue 69),
    /// beside the data directory, never in it (a school keeps it on removable media).
    public var storeKeyFile: String { directory.file("store.key") }
    public var environment: [String: String] { ["VAULT_SERVER_STORE_KEY_FILE": storeKeyFile] }
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
                + arguments,
            environment: environment
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
        try Binaries.run(
            "vault-server",
            arguments + (database.map { ["--database", $0] } ?? ["--data", dataDirectory]),
            stdin: stdin,
            environment: environment
        )
    }

    /// The embedded store opened as the server opens it: with its key, when it is a classroom's encrypted store
    /// (its `store-key.json` unlocked by the key file), else in plaintext.
    public func openStore() throws -> Database {
        let lock = dataDirectory + "/store-key.json"
        guard FileManager.default.fileExists(atPath: lock) else {
            return try Database(path: dataDirectory + "/server.db", encryption: .plaintext, configuration: DatabaseConfiguration())
        }
        let keyFile = try KeyFile.decode(try Data(contentsOf: URL(fileURLWithPath: lock)))
        let secret = try String(contentsOfFile: storeKeyFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let key = try keyFile.unlock(password: SecretBytes(Array(secret.utf8))).key
        return try Database(
            path: dataDirectory + "/server.db",
            encryption: .rawKey(key, salt: keyFile.databaseSaltBytes),
            configuration: DatabaseConfiguration()
        )
    }

    deinit { stop() }
}

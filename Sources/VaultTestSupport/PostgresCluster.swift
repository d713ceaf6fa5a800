import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster for the tests: `initdb` into a temporary directory (as the `postgres` user when
/// the tests run as root: PostgreSQL refuses to run as root), trust authentication on 127.0.0.1, a free port.
/// One cluster per test process; each harness gets a database of its own. A watcher process stops the cluster
/// when the test process ends, however it ends (a crash or a failed test included).
public final class PostgresCluster: @unchecked Sendable {
    public let port: Int
    public let directory: String
    public let binaries: String
    public static let user = "vault"
    private let counter = NSLock()
    private var databases = 0

    /// Where PostgreSQL's programs are, found by looking at the file system only (cheap, safe at test discovery);
    /// nil when PostgreSQL is not installed.
    public static let installedBinaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        return versions.map { "\(root)/\($0)/bin" }.first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }()

    /// Why the PostgreSQL cases cannot run, or nil when they can (checked without starting anything).
    public static var unavailableReason: String? {
        installedBinaries == nil ? "PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin)" : nil
    }

    /// The cluster of this test process, started on first use (off the cooperative pool: starting it blocks).
    public static func shared() async throws -> PostgresCluster {
        try await Starter.instance.cluster()
    }

    private actor Starter {
        static let instance = Starter()
        private var started: Task<PostgresCluster, any Error>?

        func cluster() async throws -> PostgresCluster {
            if let started { return try await started.value }
            let task = Task<PostgresCluster, any Error> {
                guard let binaries = PostgresCluster.installedBinaries else {
                    throw PostgresUnavailable(reason: PostgresCluster.unavailableReason ?? "PostgreSQL is not installed")
                }
                return try await Binaries.offPool { try PostgresCluster(binaries: binaries, durableCommits: false) }
            }
            started = task
            return try await task.value
        }
    }

    /// True when a run must have PostgreSQL (scripts/test sets it): its absence is then a failure, not a skip.
    public static var required: Bool { ProcessInfo.processInfo.environment["VAULT_REQUIRE_POSTGRES"] == "1" }

    /// Whether this run has PostgreSQL cases: PostgreSQL is installed, or the run requires it (then its absence fails).
    public static var runsHere: Bool { unavailableReason == nil || required }

    /// Whether a commit waits for its WAL to reach the disk (`synchronous_commit`). The shared cluster is never
    /// stopped or crashed, so waiting buys its tests nothing, while under the whole suite on two cores (vault
    /// tests fsyncing hundreds of times a second beside it) a commit waited past the store's 15-second limit for one
    /// operation. The dedicated clusters, stopped as a crash would stop them in the fault drills, keep waiting.
    let durableCommits: Bool

    /// A cluster with TLS (`ssl=on`, a certificate made by openssl for `localhost` only, connections logged):
    /// the certificate's file, which a client names as its `sslrootcert`.
    public let certificate: String?

    init(binaries: String, durableCommits: Bool, tls: Bool = false) throws {
        self.binaries = binaries
        self.durableCommits = durableCommits
        directory = NSTemporaryDirectory() + "vault-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        port = Self.freePort()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let asRoot = getuid() == 0
        if asRoot {
            _ = try Binaries.system("chown", ["postgres:postgres", directory])
            chmod(directory, 0o700)
        }
        let data = directory + "/data"
        try Self.run(asRoot, binaries + "/initdb", ["-D", data, "-U", Self.user, "-A", "trust", "--no-sync", "-E", "UTF8"])
        if tls {
            let made = try Binaries.system(
                "openssl",
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory + "/server.key", "-out", directory + "/server.crt",
                    "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                ]
            )
            guard made.status == 0 else { throw PostgresUnavailable(reason: "openssl made no certificate: \(made.stderr)") }
            chmod(directory + "/server.key", 0o600)
            if asRoot { _ = try Binaries.system("chown", ["postgres:postgres", directory + "/server.key", directory + "/server.crt"]) }
            certificate = directory + "/server.crt"
        } else {
            certificate = nil
        }
        try start()
        // The watcher: stops the cluster once this process is gone, and removes its directory.
        let stop =
            asRoot ? "runuser -u postgres -- \(binaries)/pg_ctl -D \(data) -m immediate stop" : "\(binaries)/pg_ctl -D \(data) -m immediate stop"
        // Started by a bash that closes our descriptors and exits at once: the watcher must hold nothing of ours
        // (Foundation's Process would otherwise wait for it, blocking the thread that reaps every child).
        let loop = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop) >/dev/null 2>&1; rm -rf \(directory)"
        let started = try Binaries.system("bash", ["-c", Self.closingDescriptors("(\(loop)) </dev/null >/dev/null 2>&1 &")])
        guard started.status == 0 else { throw PostgresUnavailable(reason: "the cluster's watcher did not start") }
    }

    /// Starts the cluster's server (again, after `stop()`: a fault drill).
    public func start() throws {
        // fsync stays on (a dedicated cluster's data must survive a stop as a crash would). The server inherits pg_ctl's output,
        // so pg_ctl's must not be a pipe we read to its end (it would stay open as long as the server runs).
        try Self.runDetached(
            getuid() == 0,
            binaries + "/pg_ctl",
            [
                "-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60", "-o",
                "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c max_connections=300 -c synchronous_commit=\(durableCommits ? "on" : "off")"
                    + (certificate.map { " -c ssl=on -c ssl_cert_file=\($0) -c ssl_key_file=\(directory)/server.key -c log_connections=on" } ?? ""),
                "start",
            ],
            log: directory + "/pg_ctl.log"
        )
    }

    /// Stops the cluster's server at once (`-m immediate`: as a crash would), keeping its data.
    public func stop() throws {
        try Self.run(getuid() == 0, binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
    }

    /// A cluster of its own, for a test that stops and starts it (the shared one serves every other test).
    /// `tls`: with `ssl=on` and a certificate of its own (`certificate`), each connection logged with its TLS.
    public static func dedicated(tls: Bool = false) async throws -> PostgresCluster {
        guard let binaries = installedBinaries else { throw PostgresUnavailable(reason: unavailableReason ?? "PostgreSQL is not installed") }
        return try await Binaries.offPool { try PostgresCluster(binaries: binaries, durableCommits: true, tls: tls) }
    }

    /// What the server logged (connections, with their TLS, on a `tls` cluster).
    public var serverLog: String { (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? "" }

    static func run(_ asRoot: Bool, _ program: String, _ arguments: [String]) throws {
        let result = asRoot ? try Binaries.system("runuser", ["-u", "postgres", "--", program] + arguments) : try Binaries.system(program, arguments)
        guard result.status == 0 else { throw PostgresUnavailable(reason: "\(program) failed: \(result.stderr)\(result.stdout)") }
    }

    /// Runs a program whose children outlive it (pg_ctl leaves the server running), output to a log file; waits
    /// for it to exit. Foundation's Process learns that a child ended when every holder of an inherited socket has
    /// closed it (then waits for that pid), so a daemon must not inherit that socket (or any other descriptor of
    /// ours): bash closes them all before the exec.
    static func runDetached(_ asRoot: Bool, _ program: String, _ arguments: [String], log: String) throws {
        let words = (asRoot ? ["runuser", "-u", "postgres", "--", program] : [program]) + arguments
        let result = try Binaries.system("bash", ["-c", closingDescriptors("exec \(shellQuoted(words)) </dev/null >>\(shellQuoted([log])) 2>&1")])
        guard result.status == 0 else {
            throw PostgresUnavailable(reason: "\(program) failed: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
    }

    /// A bash script that first closes every descriptor above 2, then runs `script`.
    static func closingDescriptors(_ script: String) -> String {
        #"for f in /proc/$$/fd/*; do n=${f##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-" 2>/dev/null; fi; done; "# + script
    }

    static func shellQuoted(_ words: [String]) -> String {
        words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    }

    public static func freePort() -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// How long a test's store may take to connect and migrate: the suite runs a hundred tests at once on two cores,
    /// where a test's tasks can wait their turn for many seconds (the product's 15 s is tested on its own, in
    /// `PostgresLocationTests`).
    public static let testConnectTimeout: Duration = .seconds(180)

    /// A new database, empty or a copy of `template`; returns its URL (no password: trust authentication on
    /// 127.0.0.1). A template still being left by its last session is waited for (a few tries).
    public func createDatabase(prefix: String = "t", template: String? = nil) async throws -> String {
        let name = counter.withLock {
            databases += 1
            return "\(prefix)\(getpid())_\(databases)"
        }
        let createdb = binaries + "/createdb"
        let arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user] + (template.map { ["-T", $0] } ?? []) + [name]
        var problem = ""
        for _ in 0..<20 {
            let result = try await Binaries.offPool { try Binaries.system(createdb, arguments) }
            if result.status == 0 { return url(database: name) }
            problem = result.stderr
            guard problem.contains("being accessed by other users") else { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw PostgresUnavailable(reason: "createdb failed: \(problem)")
    }

    public func url(database: String) -> String { "postgres://\(Self.user)@127.0.0.1:\(port)/\(database)" }

    /// Runs SQL with psql against `database`; returns its output (unaligned, tuples only).
    public func psql(_ database: String, _ sql: String) throws -> String {
        let result = try Binaries.system(
            binaries + "/psql",
            ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-d", database, "-At", "-v", "ON_ERROR_STOP=1", "-c", sql]
        )
        guard result.status == 0 else { throw PostgresUnavailable(reason: "psql failed: \(result.stderr)") }
        return result.stdout
    }
}

public struct PostgresUnavailable: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}

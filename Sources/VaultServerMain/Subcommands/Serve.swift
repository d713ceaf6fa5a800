import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import Synchronization
import UnixSignals
import VaultAPI
import VaultCore
import VaultDiscovery
import VaultServer

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP API.")
    @OptionGroup var options: DataOptions
    @Option(help: "Address to listen on (or VAULT_SERVER_HOST; default 127.0.0.1).") var host: String?
    @Option(help: "Port; 0 picks a free one (or VAULT_SERVER_PORT; default 8080).") var port: Int?
    @Option(help: "Write the port here once listening.") var portFile: String?
    @Flag(help: "Seed the demo student, teacher and sample assessments.") var demo = false
    @Flag(help: "Log every request (or VAULT_SERVER_LOG_LEVEL=info; default notice).") var verbose = false
    @Option(help: "How much to log: trace, debug, info, notice, warning, error or critical (or VAULT_SERVER_LOG_LEVEL).")
    var logLevel: String?
    @Option(help: "text (the default) or json: one JSON object a line with its request id (or VAULT_SERVER_LOG_FORMAT).")
    var logFormat: String?
    @Flag(help: "Announce this server on the LAN (DNS-SD `_vault._tcp` through Avahi; or VAULT_SERVER_ANNOUNCE=1): `vault servers` finds it.")
    var announce = false
    @Option(help: "The name it is announced by (default: a classroom's teacher, else the machine's name).") var announceName: String?
    @Option(help: "A classroom server pushes to its district by itself this often, in seconds, while it can reach it (0: only `classroom push`).")
    var pushEvery = 300

    func validate() throws {
        _ = try settings()
    }

    /// Flags first, then the environment (for the packaged service: /etc/default/vault-server), then the defaults.
    private func settings() throws -> (host: String, port: Int, logLevel: Logger.Level, json: Bool) {
        let environment = ServerEnvironment.current
        let host = self.host ?? environment["VAULT_SERVER_HOST"] ?? "127.0.0.1"
        var port = self.port ?? 8080
        if self.port == nil, let text = environment["VAULT_SERVER_PORT"] {
            guard let value = Int(text), (0...65535).contains(value) else {
                throw ValidationError("VAULT_SERVER_PORT is \"\(text)\"; it must be a port number from 0 to 65535.")
            }
            port = value
        }
        var logLevel = Logger.Level.notice
        if verbose {
            logLevel = .info
        } else if let text = self.logLevel ?? environment["VAULT_SERVER_LOG_LEVEL"] {
            guard let value = Logger.Level(rawValue: text.lowercased()) else {
                let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("The log level is \"\(text)\"; it must be one of \(names).")
            }
            logLevel = value
        }
        let format = (self.logFormat ?? environment["VAULT_SERVER_LOG_FORMAT"] ?? "text").lowercased()
        guard format == "text" || format == "json" else {
            throw ValidationError("The log format is \"\(format)\"; it must be text or json.")
        }
        return (host, port, logLevel, format == "json")
    }

    func run() async throws {
        SecureFiles.restrictUmask()
        let (host, port, logLevel, json) = try settings()
        var logger = json ? Logger(label: "vault-server") { JSONLogHandler(label: $0) } : Logger(label: "vault-server")
        logger.logLevel = logLevel
        // Held while serving, so that `classroom init` cannot lock the store under a running server.
        let serving = try options.postgresLocation() == nil ? try ServingLock.take(directory: options.dataDirectory, exclusive: false) : nil
        defer { withExtendedLifetime(serving) {} }
        let storage = try await options.storage(logger: logger)
        if demo { try await DemoSeeder.seed(storage, passwordIterations: options.passwordIterations, now: { Date() }) }
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.passwordIterations = options.passwordIterations
        configuration.sealIterations = options.sealIterations
        // A classroom keeps what its students send for the district (issue 58).
        configuration.classroom = try await storage.classroomLink() != nil
        // Metrics for the school's admin and a district's monitoring (`GET /metrics`, Prometheus's text format).
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        ServerMetrics.started(version: ProductVersion.current, at: Date())
        configuration.metrics = registry
        let portFile = self.portFile
        let announcer = logger
        // On the LAN (issue 58): the name, the district and the key's fingerprint, announced once the port is known.
        let announcement =
            try await announce || ServerEnvironment.current["VAULT_SERVER_ANNOUNCE"] == "1" ? LANAnnouncement.facts(storage, name: announceName) : nil
        let announced = Mutex<Announcer?>(nil)
        defer { announced.withLock { $0?.stop() } }
        // A classroom passes what its students send on to the district by itself while the district can be reached.
        let pushing =
            configuration.classroom && pushEvery > 0 ? ClassroomUpstream.pushEvery(.seconds(pushEvery), storage: storage, logger: logger) : nil
        defer { pushing?.cancel() }
        let app = try buildApplication(storage: storage, configuration: configuration, logger: logger) { port in
            if let portFile { try? SecureFiles.atomicWrite(Data("\(port)\n".utf8), to: portFile) }
            if let announcement { announced.withLock { $0 = LANAnnouncement.start(announcement, port: port, logger: announcer) } }
            // In JSON every line is an object; in text, a line a person reads.
            if json {
                announcer.notice("vault-server listening", metadata: ["url": "http://\(host):\(port)"])
            } else {
                FileHandle.standardError.write(Data("vault-server listening on http://\(host):\(port)\n".utf8))
            }
        }
        // SIGTERM or SIGINT: stop accepting and let requests in flight finish, but for 6 s at most; then cancel
        // what is left (a request waiting on a database that does not answer, a client that went away), and past
        // 2 s more, end the process. Under systemd a restart never waits for its 90 s timeout and a SIGKILL.
        var group = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = Self.gracefulShutdownLimit
        group.maximumCancellationDuration = Self.cancellationLimit
        // The promise above kept even when something does not end on cancellation: a watchdog armed by the first
        // SIGTERM or SIGINT ends the process at the end of the two windows (a shutdown under load once took past 10 s).
        let watchdog = Self.shutdownWatchdog(logger: logger)
        defer { for source in watchdog { source.cancel() } }
        try await ServiceGroup(configuration: group).run()
    }

    /// Signal sources beside the service group's own (dispatch gives each source the signal), each arming one timer.
    static func shutdownWatchdog(logger: Logger) -> [any DispatchSourceSignal] {
        let limit = gracefulShutdownLimit + cancellationLimit
        let armed = Mutex(false)
        return [Int32(SIGTERM), Int32(SIGINT)].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                guard
                    armed.withLock({ wasArmed in
                        defer { wasArmed = true }
                        return !wasArmed
                    })
                else { return }
                // The kernel's own timer, not a dispatch timer: under the full suite's load a timer on a busy queue
                // fired seconds late. SIGALRM's handler only calls _exit (async-signal-safe): no handler at exit, no
                // log line, can hold the end up.
                signal(SIGALRM) { _ in _exit(0) }
                alarm(UInt32(limit.components.seconds))
                logger.notice("shutting down; the process ends within \(limit.components.seconds) s whatever is still running")
            }
            source.resume()
            return source
        }
    }

    static let gracefulShutdownLimit: Duration = .seconds(6)
    static let cancellationLimit: Duration = .seconds(2)
}

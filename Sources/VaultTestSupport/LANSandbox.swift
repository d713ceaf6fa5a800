import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A test network of two namespaces joined by a veth pair, each with its own system D-Bus and a real avahi-daemon
/// (issue 58): what the LAN of a classroom looks like to DNS-SD, with no traffic leaving the machine. Root only.
public final class LANSandbox: @unchecked Sendable {
    /// One side: its namespace, its address, its bus.
    public struct Side: Sendable {
        public let namespace: String
        public let address: String
        public let directory: String
        /// The environment a process on this side needs to reach this side's avahi-daemon.
        public var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(directory)/bus"] }

        /// `ip netns exec NAMESPACE env … program arguments…`: the command line for a process on this side.
        public func command(_ program: String, _ arguments: [String]) -> (String, [String]) {
            ("/usr/sbin/ip", ["netns", "exec", namespace, "/usr/bin/env", "DBUS_SYSTEM_BUS_ADDRESS=unix:path=\(directory)/bus", program] + arguments)
        }
    }

    public let root = TemporaryDirectory("lan")
    public let server: Side
    public let student: Side
    private let tag: String

    /// Whether this machine can make one: root, `ip`, dbus-daemon and avahi-daemon installed.
    public static var unavailableReason: String? {
        if getuid() != 0 { return "network namespaces need root" }
        for tool in ["/usr/sbin/ip", "/usr/sbin/sysctl", "/usr/bin/setsid", "/usr/bin/dbus-daemon", "/usr/sbin/avahi-daemon"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is not installed"
        }
        return nil
    }

    public static var runsHere: Bool { unavailableReason == nil }

    public init() throws {
        tag = String(getpid() % 100_000, radix: 36) + String(Int.random(in: 0..<1296), radix: 36)
        server = Side(namespace: "vs-\(tag)", address: "10.58.0.1", directory: root.file("server"))
        student = Side(namespace: "vc-\(tag)", address: "10.58.0.2", directory: root.file("student"))
        do {
            try build()
        } catch {
            tearDown()
            throw error
        }
    }

    private func sh(_ script: String) throws {
        let result = try Binaries.run("/bin/sh", ["-c", script])
        guard result.status == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(script): \(result.stderr)"])
        }
    }

    private func build() throws {
        let link = "v58\(tag)"
        try sh(
            """
            set -e
            ip netns add \(server.namespace)
            ip netns add \(student.namespace)
            ip link add \(link)s type veth peer name \(link)c
            ip link set \(link)s netns \(server.namespace)
            ip link set \(link)c netns \(student.namespace)
            ip -n \(server.namespace) addr add \(server.address)/24 dev \(link)s
            ip -n \(student.namespace) addr add \(student.address)/24 dev \(link)c
            ip -n \(server.namespace) link set \(link)s up
            ip -n \(student.namespace) link set \(link)c up
            ip -n \(server.namespace) link set lo up
            ip -n \(student.namespace) link set lo up
            """
        )
        for (side, interface) in [(server, "\(link)s"), (student, "\(link)c")] {
            try FileManager.default.createDirectory(atPath: side.directory + "/services", withIntermediateDirectories: true)
            try Data(
                """
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>
                  <type>system</type>
                  <listen>unix:path=\(side.directory)/bus</listen>
                  <auth>EXTERNAL</auth>
                  <policy context="default">
                    <allow user="*"/>
                    <allow own="*"/>
                    <allow send_destination="*"/>
                    <allow receive_sender="*"/>
                  </policy>
                </busconfig>
                """.utf8
            ).write(to: URL(fileURLWithPath: side.directory + "/bus.conf"))
            try Data(
                """
                [server]
                host-name=vault-\(side.namespace)
                use-ipv4=yes
                use-ipv6=no
                allow-interfaces=\(interface)
                enable-dbus=yes
                [publish]
                publish-workstation=no
                """.utf8
            ).write(to: URL(fileURLWithPath: side.directory + "/avahi.conf"))
            // The side's own system bus, then its avahi-daemon in a mount namespace of its own (ip netns exec makes
            // one): its own /run/avahi-daemon (pid file and socket) and services directory, so two run side by side.
            // Each detached in a session of its own, its output dropped; `tearDown` stops every process of the two
            // namespaces. (An avahi-daemon kept as a child in the test's process group stopped the test's later
            // child processes from being reaped.)
            try sh("ip netns exec \(side.namespace) /bin/bash -c '\(Self.detached("dbus-daemon --nofork --config-file=\(side.directory)/bus.conf"))'")
            try wait { FileManager.default.fileExists(atPath: side.directory + "/bus") }
            try sh(
                """
                ip netns exec \(side.namespace) /bin/bash -c 'mkdir -p /run/avahi-daemon && mount -t tmpfs tmpfs /run/avahi-daemon && \\
                  mount --bind \(side.directory)/services /etc/avahi/services && export DBUS_SYSTEM_BUS_ADDRESS=unix:path=\(side.directory)/bus && \\
                  \(Self.detached("avahi-daemon -f \(side.directory)/avahi.conf --no-drop-root --no-chroot --no-rlimits"))'
                """
            )
            // Running once its socket is there, seen through its own mount namespace.
            try wait {
                try self.pids(side).contains { pid in
                    FileManager.default.fileExists(atPath: "/proc/\(pid)/root/run/avahi-daemon/socket")
                        && ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "").hasPrefix("avahi-daemon")
                }
            }
        }
    }

    /// A bash line starting `command` as a daemon: every descriptor the test's process handed down closed (the test
    /// would otherwise wait for the daemon to end), a session of its own, its output dropped.
    static func detached(_ command: String) -> String {
        #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null; done; "#
            + "exec setsid -f \(command) </dev/null >/dev/null 2>&1"
    }

    /// Every process in a side's namespace.
    private func pids(_ side: Side) throws -> [Int32] {
        try Binaries.run("/usr/sbin/ip", ["netns", "pids", side.namespace]).stdout.split(separator: "\n").compactMap { Int32($0) }
    }

    /// Waits up to 10 s for `condition`.
    private func wait(_ condition: () throws -> Bool) throws {
        for _ in 0..<200 {
            if try condition() { return }
            usleep(50_000)
        }
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "the test network's daemons did not start"])
    }

    /// Stops every process of the two namespaces (the daemons, and what a test left running there), then the
    /// namespaces and their link.
    public func tearDown() {
        for side in [server, student] {
            for pid in (try? pids(side)) ?? [] { kill(pid, SIGTERM) }
        }
        usleep(200_000)
        for side in [server, student] {
            for pid in (try? pids(side)) ?? [] { kill(pid, SIGKILL) }
        }
        _ = try? Binaries.run("/bin/sh", ["-c", "ip netns del \(server.namespace); ip netns del \(student.namespace)"])
    }

    deinit { tearDown() }
}

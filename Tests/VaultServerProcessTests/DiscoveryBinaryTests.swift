import Foundation
import Testing
import VaultAPI
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A classroom server found on the LAN (issue 58), through the real binaries on a test network of two namespaces with
/// a real avahi-daemon on each side (`LANSandbox`).
@Suite(.serialized, .enabled(if: LANSandbox.runsHere, "\(LANSandbox.unavailableReason ?? "")"))
struct DiscoveryBinaryTests {
    struct Listed: Decodable {
        struct Server: Decodable {
            let name: String
            let url: String
            let fingerprint: String
            let district: String
            let apiVersion: String
            enum CodingKeys: String, CodingKey {
                case name, url, fingerprint, district
                case apiVersion = "api_version"
            }
        }
        let servers: [Server]
    }

    /// `vault servers --json` on the student's side, and how long it took.
    static func servers(_ lan: LANSandbox) throws -> (Listed, Duration) {
        let (program, arguments) = lan.student.command(Binaries.directory + "/vault", ["servers", "--json"])
        let start = ContinuousClock.now
        let result = try Binaries.run(program, arguments)
        let took = start.duration(to: .now)
        #expect(result.status == 0, "\(result.stderr)")
        return (try JSONDecoder().decode(Listed.self, from: Data(result.stdout.utf8)), took)
    }

    /// `vault-server serve --announce` on the server's side; its process and port.
    static func serve(_ lan: LANSandbox, data: String, port: Int = 0) throws -> (Process, Int) {
        let portFile = data + ".port"
        unlink(portFile)
        let (program, arguments) = lan.server.command(
            Binaries.directory + "/vault-server",
            [
                "serve", "--demo", "--data", data, "--host", "0.0.0.0", "--port", String(port), "--port-file", portFile, "--announce",
                "--announce-name", "Room 7", "--password-iterations", "1000",
            ]
        )
        let process = try Binaries.start(program, arguments)
        for _ in 0..<300 {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return (process, port)
            }
            usleep(50_000)
        }
        throw CocoaError(.fileReadNoSuchFile)
    }

    @Test(
        "vault servers finds the announced classroom server with its fingerprint within 3 s, after a restart and a change of address too; login --discover signs in to it once the fingerprint matches; it is gone within 10 s after the server stops"
    )
    func findAndLose() throws {
        let lan = try LANSandbox()
        defer { lan.tearDown() }
        let data = lan.root.file("classroom")
        var (server, port) = try Self.serve(lan, data: data)
        defer { kill(server.processIdentifier, SIGKILL) }
        let key = try JSONDecoder().decode(
            ServerKeyResponse.self,
            from: Data(try Binaries.run("vault-server", ["key", "show", "--json", "--data", data]).stdout.utf8)
        )

        // Found within 3 s, with the server's own fingerprint and its address on the LAN.
        func expectFound(port: Int, address: String) throws {
            var listed = try Self.servers(lan)
            // The daemon on the student's side may still be settling right after a change: one more look.
            if listed.0.servers.first?.url != "http://\(address):\(port)" { listed = try Self.servers(lan) }
            let found = try #require(listed.0.servers.first { $0.name == "Room 7" }, "\(listed.0.servers.map(\.url))")
            #expect(
                found.url == "http://\(address):\(port)" && found.fingerprint == key.fingerprint && found.apiVersion == "1",
                "\(listed.0.servers.map { "\($0.name) \($0.url) \($0.fingerprint)" }) expected \(address):\(port)"
            )
            #expect(listed.1 < .seconds(3), "\(listed.1)")
        }
        try expectFound(port: port, address: lan.server.address)

        // A student's vault signs in to it found on the LAN, held to the fingerprint the teacher gave.
        let vault = CLIVault()
        #expect(try vault.initialize().status == 0)
        let (program, arguments) = lan.student.command(
            Binaries.directory + "/vault",
            [
                "login", "--discover", "--server-key", key.fingerprint, "--user", "demo", "--vault", vault.path, "--password-stdin",
                "--server-password-stdin",
            ]
        )
        let login = try Binaries.run(program, arguments, stdin: "pw-1\ndemo-password\n")
        #expect(login.status == 0 && login.stdout.contains("10.58.0.1:\(port)"), "\(login.stdout) \(login.stderr)")
        // A fingerprint no server announces: nothing is sent.
        let (wrongProgram, wrongArguments) = lan.student.command(
            Binaries.directory + "/vault",
            [
                "login", "--discover", "--server-key", "0000-0000", "--user", "demo", "--vault", vault.path, "--password-stdin",
                "--server-password-stdin",
            ]
        )
        let wrong = try Binaries.run(wrongProgram, wrongArguments, stdin: "pw-1\ndemo-password\n")
        #expect(wrong.status != 0 && wrong.stderr.contains("No server on this network announces the key"), "\(wrong.stderr)")

        // A restart (a new port): the new announcement.
        kill(server.processIdentifier, SIGTERM)
        server.waitUntilExit()
        (server, port) = try Self.serve(lan, data: data)
        try expectFound(port: port, address: lan.server.address)

        // A change of address: the daemon follows the machine's addresses.
        let interface =
            try Binaries.run("/usr/sbin/ip", ["-n", lan.server.namespace, "-o", "link", "show", "type", "veth"]).stdout
            .split(separator: ":").dropFirst().first.map { String($0.trimmingCharacters(in: .whitespaces).split(separator: "@")[0]) } ?? ""
        // The new address stays when the old one goes (a secondary address is promoted, not dropped with it).
        let promote = lan.server.command("/usr/sbin/sysctl", ["-w", "net.ipv4.conf.\(interface).promote_secondaries=1"])
        #expect(try Binaries.run(promote.0, promote.1).status == 0)
        #expect(try Binaries.run("/usr/sbin/ip", ["-n", lan.server.namespace, "addr", "add", "10.58.0.11/24", "dev", interface]).status == 0)
        #expect(
            try Binaries.run("/usr/sbin/ip", ["-n", lan.server.namespace, "addr", "del", "\(lan.server.address)/24", "dev", interface]).status == 0
        )
        usleep(1_500_000)
        try expectFound(port: port, address: "10.58.0.11")

        // Stopped: gone within 10 s.
        kill(server.processIdentifier, SIGTERM)
        server.waitUntilExit()
        let stopped = ContinuousClock.now
        var left: [String] = []
        repeat {
            left = try Self.servers(lan).0.servers.map { "\($0.name) \($0.url)" }
            if !left.isEmpty { usleep(500_000) }
        } while !left.isEmpty && stopped.duration(to: .now) < .seconds(10)
        #expect(left.isEmpty, "still listed 10 s after the server stopped: \(left)")
    }
}

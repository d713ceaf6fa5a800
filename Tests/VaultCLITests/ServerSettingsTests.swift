import Foundation
import Testing
import VaultTestSupport

/// `vault-server` settings from the environment, as the packaged service gives them (`/etc/default/vault-server`
/// through its unit): the data directory, host, port and log level; flags still win; a bad value is refused in words.
/// The settings file read by commands run as the service's own user is exercised by `scripts/test-package`.
@Suite(.ownThreads)
struct ServerSettingsTests {
    @Test("VAULT_SERVER_DATA is where commands keep their data; --data still wins")
    func dataDirectory() throws {
        let root = TemporaryDirectory("server-settings")
        let data = root.file("from-environment")
        let added = try Binaries.run(
            "vault-server",
            ["user", "add", "ana", "--password-iterations", "1000"],
            stdin: "ana-password\n",
            environment: ["VAULT_SERVER_DATA": data]
        )
        #expect(added.status == 0, "\(added.stderr)")
        #expect(FileManager.default.fileExists(atPath: data + "/server.db"))

        let flag = root.file("from-flag")
        let again = try Binaries.run(
            "vault-server",
            ["user", "add", "ana", "--data", flag, "--password-iterations", "1000"],
            stdin: "ana-password\n",
            environment: ["VAULT_SERVER_DATA": data]
        )
        #expect(again.status == 0, "the flag's directory is a new store, so ana is new there: \(again.stderr)")
        #expect(FileManager.default.fileExists(atPath: flag + "/server.db"))
        let duplicate = try Binaries.run(
            "vault-server",
            ["user", "add", "ana", "--password-iterations", "1000"],
            stdin: "ana-password\n",
            environment: ["VAULT_SERVER_DATA": data]
        )
        #expect(duplicate.status != 0, "ana already exists in the environment's store")
    }

    @Test("serve takes host, port and log level from the environment and refuses a bad one in a sentence")
    func serveSettings() throws {
        let root = TemporaryDirectory("server-settings-serve")
        let badPort = try Binaries.run(
            "vault-server",
            ["serve", "--data", root.file("data")],
            environment: ["VAULT_SERVER_PORT": "eighty"]
        )
        #expect(badPort.status == 64 && badPort.stderr.contains("VAULT_SERVER_PORT is \"eighty\""))
        let badLevel = try Binaries.run(
            "vault-server",
            ["serve", "--data", root.file("data")],
            environment: ["VAULT_SERVER_LOG_LEVEL": "loud"]
        )
        #expect(badLevel.status == 64 && badLevel.stderr.contains("it must be one of trace, debug, info"))
        #expect(!FileManager.default.fileExists(atPath: root.file("data")), "a refused setting changes nothing")

        // A real server from the environment alone: its port from VAULT_SERVER_PORT, its host from VAULT_SERVER_HOST.
        let probe = try Binaries.system("python3", ["-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"])
        let port = try #require(Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let process = try Binaries.start(
            "vault-server",
            ["serve"],
            environment: [
                "VAULT_SERVER_DATA": root.file("data"), "VAULT_SERVER_HOST": "127.0.0.1", "VAULT_SERVER_PORT": String(port),
                "VAULT_SERVER_LOG_LEVEL": "info",
            ]
        )
        defer { if process.isRunning { process.terminate() } }
        var answered = false
        for _ in 0..<100 where !answered {
            let health = try Binaries.system("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/v1/assessments"])
            answered = health.stdout == "401"
            if !answered { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(answered, "the server answers on the port VAULT_SERVER_PORT named")
        process.terminate()
        let result = try Binaries.finish(process, timeout: .seconds(15))
        #expect(result.stderr.contains("listening on http://127.0.0.1:\(port)"))
        #expect(result.stderr.contains("/v1/assessments"), "VAULT_SERVER_LOG_LEVEL=info logs each request: \(result.stderr)")
    }
}

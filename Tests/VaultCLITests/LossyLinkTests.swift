import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The student's commands over a bad link (issue 56), through the real binaries and a proxy on 127.0.0.1 that loses
/// traffic (scripts/flaky-proxy.py): signing in survives a third of the requests lost; a server that accepts and never
/// answers is given up on with a sentence, never a wait of minutes.
@Suite(.ownThreads)
struct LossyLinkTests {
    /// The proxy in front of `server`, losing `dropRate` of its connections; its port and its control file's path.
    static func proxy(_ server: ServerProcess, dropRate: String, seed: String, in directory: String) throws -> (Process, Int, String) {
        let portFile = directory + "/proxy-port"
        let proxy = try Binaries.start(
            "/usr/bin/python3",
            [Binaries.repositoryRoot + "/scripts/flaky-proxy.py", String(server.port), portFile, dropRate, seed]
        )
        var port = 0
        for _ in 0..<100 where port == 0 {
            usleep(50_000)
            port = Int((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "") ?? 0
        }
        return (proxy, port, portFile)
    }

    @Test(
        "signing in through a link that loses a third of its requests succeeds 5 times of 5; against a server that never answers, login, download and sync each end within 30 s with exit 69 or 75 and a sentence"
    )
    func lossyLoginAndSilentServer() throws {
        let (vault, server) = try CLIFixtures.downloaded([])
        let (proxy, port, portFile) = try Self.proxy(server, dropRate: "0.33", seed: "11", in: vault.root.path)
        defer { kill(proxy.processIdentifier, SIGKILL) }
        #expect(port > 0)
        let login = [
            "login", "--server", "http://127.0.0.1:\(port)", "--user", "demo", "--vault", vault.path, "--password-stdin", "--server-password-stdin",
        ]
        for trial in 1...5 {
            let result = try vault.run(login, stdin: "pw-1\ndemo-password\n")
            #expect(result.status == 0, "sign-in \(trial) of 5: \(result.stderr)")
        }
        let drops = ((try? String(contentsOfFile: portFile + ".drops", encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(!drops.isEmpty, "the proxy lost nothing")

        // Now the proxy accepts and never answers.
        FileManager.default.createFile(atPath: portFile + ".silent", contents: Data())
        for command in [login, ["download", "algebra-1"], ["sync"]] {
            let started = ContinuousClock.now
            let result = command == login ? try vault.run(command, stdin: "pw-1\ndemo-password\n") : try vault.unlocked(command)
            let took = started.duration(to: .now)
            #expect([69, 75].contains(result.status), "\(command[0]): exit \(result.status) \(result.stderr)")
            #expect(took < .seconds(30), "\(command[0]) took \(took)")
            #expect(
                result.stderr.contains(".") && !result.stderr.contains("HTTP") && !result.stderr.contains("Error("),
                "\(command[0]): \(result.stderr)"
            )
        }
        withExtendedLifetime(server) {}
    }
}

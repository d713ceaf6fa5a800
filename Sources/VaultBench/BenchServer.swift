import Foundation
import VaultAPI
import VaultCore
import VaultSync

#if canImport(Glibc)
import Glibc
#endif

/// The real `vault-server` (release build next to this binary) on 127.0.0.1 with an ephemeral port.
final class BenchServer {
    let process: Process
    let url: String
    let data: String

    init(directory: String) throws {
        data = directory + "/server"
        let portFile = directory + "/port"
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vault-server").path
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "0", "--port-file", portFile, "--data", data, "--demo", "--password-iterations", "1000"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        var port = 0
        for _ in 0..<200 where port == 0 {
            usleep(50_000)
            port = Int((try? String(contentsOfFile: portFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        }
        guard port > 0 else { throw BenchError("vault-server did not start") }
        url = "http://127.0.0.1:\(port)"
    }

    func publish(_ assessment: Assessment, directory: String) throws {
        let file = directory + "/\(assessment.id).json"
        try CanonicalJSON.encode(assessment).write(to: URL(fileURLWithPath: file))
        let publisher = Process()
        publisher.executableURL = process.executableURL
        publisher.arguments = ["publish", file, "--data", data]
        publisher.standardOutput = FileHandle.nullDevice
        try publisher.run()
        publisher.waitUntilExit()
    }

    func stop() {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}

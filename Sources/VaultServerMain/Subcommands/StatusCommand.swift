import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import VaultAPI
import VaultServer
import VaultTerminal

/// `vault-server status`: how the running server is doing, read from it on this machine (issue 59).
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "How the running server is doing: uptime, the store, the last hour minute by minute, the slowest routes.",
        discussion: """
            Read from the server at --url on this machine (GET /v1/admin/status, which answers only this machine or an \
            administrator's token, like /metrics). The desk shows the same to administrators on its Server page.
            """
    )
    @Option(help: "The running server (default http://127.0.0.1:$VAULT_SERVER_PORT, else port 8080).") var url: String?
    @Flag(help: "Print the status as JSON.") var json = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let base = url ?? "http://127.0.0.1:\(environment["VAULT_SERVER_PORT"] ?? "8080")"
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(2), read: .seconds(10))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let body: Data
        do {
            let response = try await client.execute(HTTPClientRequest(url: base + APIPath.serverStatus), deadline: .now() + .seconds(5))
            guard response.status.code == 200 else {
                try? await client.shutdown()
                throw Self.fail("The server at \(base) would not show its status (\(response.status.code)): run this on the server's own machine.")
            }
            body = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
            try await client.shutdown()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            try? await client.shutdown()
            throw Self.fail("No server answers at \(base); is `vault-server serve` running there?")
        }
        let status = try JSONDecoder().decode(ServerStatus.self, from: body)
        if json {
            print(String(decoding: body, as: UTF8.self))
            return
        }
        for line in StatusText.lines(status) { TerminalText.line(line) }
    }

    /// A sentence on stderr and exit 69 (the service is not there): no usage text, the command was right.
    static func fail(_ sentence: String) -> ExitCode {
        TerminalText.errorLine("Error: " + sentence)
        return ExitCode(69)
    }
}

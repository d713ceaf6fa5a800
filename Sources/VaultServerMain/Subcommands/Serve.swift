import ArgumentParser
import Foundation
import Hummingbird
import Logging
import VaultAPI
import VaultCore
import VaultServer

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP API.")
    @OptionGroup var options: DataOptions
    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port; 0 picks a free one.") var port = 8080
    @Option(help: "Write the port here once listening.") var portFile: String?
    @Flag(help: "Seed the demo student, teacher and sample assessments.") var demo = false
    @Flag(help: "Log every request.") var verbose = false

    func run() async throws {
        SecureFiles.restrictUmask()
        var logger = Logger(label: "vault-server")
        logger.logLevel = verbose ? .info : .notice
        let storage = try await options.storage(logger: logger)
        if demo { try await DemoSeeder.seed(storage, passwordIterations: options.passwordIterations) }
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.passwordIterations = options.passwordIterations
        configuration.sealIterations = options.sealIterations
        let portFile = self.portFile
        let app = try buildApplication(storage: storage, configuration: configuration, logger: logger) { port in
            if let portFile { try? SecureFiles.atomicWrite(Data("\(port)\n".utf8), to: portFile) }
            FileHandle.standardError.write(Data("vault-server listening on http://\(host):\(port)\n".utf8))
        }
        try await app.runService()
    }
}

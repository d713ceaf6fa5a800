import ArgumentParser
import Foundation
import VaultAPI
import VaultServer

struct StartCode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start-code",
        abstract: "Print a sealed exam's start code for the proctor to read out (each new version has its own)."
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id.") var id: String

    func run() async throws {
        let storage = try await options.storage()
        guard let served = try await storage.served(id: id) else { throw ValidationError("There is no assessment \(id).") }
        guard let document = try SealedExams.sealedDocument(served.bytes) else {
            throw ValidationError("\(id) is not sealed; it needs no start code.")
        }
        let exams = SealedExams(storage: storage, receipts: ReceiptIssuer(storage: storage), iterations: options.sealIterations)
        let material = try await exams.material(id: id, version: document.version ?? 1)
        print("Start code for \(id) version \(document.version ?? 1): \(material.startCode)")
    }
}

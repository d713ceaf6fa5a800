import ArgumentParser
import Foundation
import Hummingbird
import Logging
import VaultAPI
import VaultCore
import VaultServer

@main
struct VaultServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault-server",
        abstract: "The reference assessment server for `vault`.",
        version: "0.1.0",
        subcommands: [Serve.self, UserCommand.self, Publish.self, Delete.self, Responses.self])
}

/// Options shared by every subcommand.
struct DataOptions: ParsableArguments {
    @Option(help: "The data directory holding server.db.") var data = "./vault-server-data"
    /// PBKDF2 rounds for new password hashes; tests lower it explicitly, never by default.
    @Option(help: .hidden) var passwordIterations = ServerConfiguration().passwordIterations

    /// Opens the store. Every subcommand comes through here, so every file it creates is private (umask 077),
    /// whatever the caller's umask.
    func storage() throws -> SQLiteServerStorage {
        SecureFiles.restrictUmask()
        do {
            return try SQLiteServerStorage(directory: data)
        } catch {
            throw ValidationError("The data directory \(data) cannot be used: \(error)")
        }
    }
}

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
        let storage = try options.storage()
        if demo { try await DemoSeeder.seed(storage, passwordIterations: options.passwordIterations) }
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.passwordIterations = options.passwordIterations
        let portFile = self.portFile
        let app = try buildApplication(storage: storage, configuration: configuration, logger: logger) { port in
            if let portFile { try? SecureFiles.atomicWrite(Data("\(port)\n".utf8), to: portFile) }
            FileHandle.standardError.write(Data("vault-server listening on http://\(host):\(port)\n".utf8))
        }
        try await app.runService()
    }
}

struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "user", abstract: "Manage accounts.", subcommands: [Add.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an account; the password is read from the first line of stdin.")
        @OptionGroup var options: DataOptions
        @Argument var name: String
        @Option var role: Role = .student

        func run() async throws {
            guard let password = readPasswordLine(), !password.isEmpty else {
                throw ValidationError("Give the password on the first line of standard input.")
            }
            let storage = try options.storage()
            do {
                try await storage.createUser(PasswordHasher.makeRecord(name: name, role: role, password: password, iterations: options.passwordIterations))
            } catch let error as StorageError {
                throw ValidationError(error.message)
            }
            print("Added \(role.rawValue) \(name).")
        }
    }
}

extension Role: ExpressibleByArgument {}

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create or update an assessment from a JSON file; prints its version.")
    @OptionGroup var options: DataOptions
    @Argument var file: String

    func run() async throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch { throw ValidationError("Cannot read \(file).") }
        let assessment: Assessment
        do { assessment = try JSONDecoder().decode(Assessment.self, from: data) } catch {
            throw ValidationError("\(file) is not a valid assessment document.")
        }
        do { try AssessmentValidator.validate(assessment) } catch let problem as AssessmentValidator.Problem {
            throw ValidationError(problem.message)
        }
        let result = try await options.storage().publish(assessment, now: Date())
        print(result.changed ? "Published \(result.id) version \(result.version)." : "\(result.id) is unchanged at version \(result.version).")
    }
}

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete an assessment: students get 404 from now on.")
    @OptionGroup var options: DataOptions
    @Argument var id: String

    func run() async throws {
        guard try await options.storage().delete(id: id, now: Date()) else { throw ValidationError("There is no assessment \(id).") }
        print("Deleted \(id).")
    }
}

struct Responses: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "What was received for an assessment, deleted ones included.")
    @OptionGroup var options: DataOptions
    @Argument var id: String
    @Flag var json = false

    func run() async throws {
        guard let received = try await options.storage().received(assessmentID: id) else { throw ValidationError("There is no assessment \(id).") }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(received), as: UTF8.self))
            return
        }
        print("\(received.responses.count) responses, \(received.submissions.count) submissions for \(id).")
        for submission in received.submissions {
            print("  \(submission.user ?? "?"): attempt \(submission.attemptId), version \(submission.assessmentVersion), receipt \(submission.receiptId)\(submission.forced ? " (forced)" : "")")
        }
        let flagged = received.responses.filter { $0.answeredInFuture == true }
        for response in flagged {
            print("  note: \(response.user ?? "?")'s answer to \(response.questionId) says it was given at \(response.answeredAt), after it arrived (\(response.receivedAt ?? "?")): the device clock was ahead.")
        }
    }
}

/// The first line of stdin, in a wiped buffer.
func readPasswordLine() -> SecretBytes? {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while read(STDIN_FILENO, &byte, 1) == 1, byte != 0x0A { bytes.append(byte) }
    defer { for index in bytes.indices { bytes[index] = 0 } }
    return bytes.isEmpty ? nil : SecretBytes(bytes).trimmingTrailingNewlines()
}

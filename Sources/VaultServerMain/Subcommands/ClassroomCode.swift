import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultServer
import VaultTerminal

extension ClassroomCommand {
    /// `vault-server classroom code --user NAME`: a one-time class code for a student who never had a network.
    struct Code: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A one-time class code for a student who never had a network: their vault's first sign-in here, with no password.",
            discussion: """
                The student types it when `vault login --class-code` asks (never on a command line). The vault's key is \
                then the student's here, and the next push vouches for it to the district.
                """
        )
        @OptionGroup var options: DataOptions
        @Option(help: "The student (as pulled from the district).") var user: String
        @Option(help: "Days the code waits to be used (1 to 30).") var days = 7

        func validate() throws {
            guard (1...30).contains(days) else { throw ValidationError("--days is 1 to 30.") }
        }

        func run() async throws {
            let storage = try await options.storage()
            guard try await storage.classroomLink() != nil else {
                throw ValidationError("This server is not a classroom: `vault-server classroom init --upstream URL --teacher NAME` makes it one.")
            }
            guard let student = try await storage.user(named: user), student.role == .student else {
                throw ValidationError("There is no student \(user) in this class: `vault-server classroom pull` fetches the class.")
            }
            let code = ClassCode.make(random: try CryptoRandom.bytes(12))
            let now = Date()
            let until = now.addingTimeInterval(TimeInterval(days) * 86_400)
            try await storage.createEnrolment(
                secretHash: StudentPackages.hash(Data(ClassCode.normalized(code).utf8)),
                scope: EnrolmentScope(user: student.name, assessmentID: ClassCode.scope, expiresAt: until),
                now: now
            )
            TerminalText.line("Class code for \(student.name): \(code)")
            TerminalText.line(
                "It works once, until \(Timestamp.readable(until)). The student runs `vault login --server URL --user \(student.name) --class-code` and types it."
            )
        }
    }

    /// `vault-server classroom desk-code`: a one-time code that signs the classroom's teacher in to the desk here (they
    /// have no password on a classroom server).
    struct DeskCodeCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "desk-code",
            abstract: "A one-time code that signs the teacher in to this classroom's desk, where the password goes; it works once, within an hour."
        )
        @OptionGroup var options: DataOptions

        func run() async throws {
            let storage = try await options.storage()
            guard let link = try await storage.classroomLink() else { throw ClassroomCommand.notAClassroom }
            guard let code = try await DeskCode.make(for: link.teacher, storage: storage, now: Date()) else {
                throw ValidationError("Too many sign-in codes are open right now; try again in a few minutes.")
            }
            TerminalText.line("Desk code for \(link.teacher): \(code)")
            TerminalText.line(
                "It works once, within an hour: open /desk on this server, sign in as \(link.teacher), and type it where the password goes."
            )
        }
    }
}

import ArgumentParser
import Foundation
import VaultAPI
import VaultServer
import VaultTerminal

extension ClassroomCommand {
    /// At the district (issue 69): the classroom servers its teachers linked, each by its own key. A revoked one pulls
    /// and pushes nothing from its next request on; what it pushed before stays.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "At the district: list the classroom servers teachers linked, live and revoked.")
        @OptionGroup var options: DataOptions
        @Flag(
            help: "Print {\"classrooms\":[{\"id\",\"teacher\",\"registered_at\",\"last_used_at\",\"revoked_at\",\"revoked_by\"}]}."
        )
        var json = false

        func run() async throws {
            let classrooms = try await options.storage().classroomKeys()
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(Listing(classrooms: classrooms.map(Listing.Classroom.init))), as: UTF8.self))
                return
            }
            guard !classrooms.isEmpty else {
                TerminalText.line("No classroom server is linked to this district: `vault-server classroom init` on a teacher's laptop links one.")
                return
            }
            var table = TextTable(["Classroom", "Teacher", "Linked", "Last sign-in", "State"], flexible: 1)
            for key in classrooms {
                table.add([
                    key.fingerprint, key.user, Timestamp.readable(key.registeredAt), key.lastUsedAt.map(Timestamp.readable) ?? "never",
                    key.state,
                ])
            }
            for line in table.render() { TerminalText.line(line) }
        }

        struct Listing: Encodable {
            struct Classroom: Encodable {
                let id: String
                let teacher: String
                let registeredAt: String
                let lastUsedAt: String?
                let revokedAt: String?
                let revokedBy: String?
                init(_ record: DeviceKeyRecord) {
                    id = record.fingerprint
                    teacher = record.user
                    registeredAt = Timestamp.string(record.registeredAt)
                    lastUsedAt = record.lastUsedAt.map(Timestamp.string)
                    revokedAt = record.revokedAt.map(Timestamp.string)
                    revokedBy = record.revokedBy
                }
                enum CodingKeys: String, CodingKey {
                    case id, teacher
                    case registeredAt = "registered_at"
                    case lastUsedAt = "last_used_at"
                    case revokedAt = "revoked_at"
                    case revokedBy = "revoked_by"
                }
            }
            let classrooms: [Classroom]
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "At the district: end a classroom server (a stolen laptop): its pulls and pushes are refused from its next request."
        )
        @OptionGroup var options: DataOptions
        @Argument(help: "The classroom's id, as `classroom list` shows it.") var id: String

        func run() async throws {
            let storage = try await options.storage()
            guard let classroom = try await storage.classroomKeys().first(where: { $0.fingerprint == id }) else {
                throw ValidationError("There is no classroom \(id) at this district; `vault-server classroom list` lists them.")
            }
            guard classroom.revokedAt == nil,
                try await storage.revokeDeviceKeys(user: classroom.user, key: classroom.fingerprint, by: "the server's command line", now: Date()) > 0
            else {
                TerminalText.line("Classroom \(id) of \(classroom.user) was already revoked; nothing changed.")
                return
            }
            TerminalText.line(
                "Revoked classroom \(id) of \(classroom.user): it pulls and pushes nothing from now on; what it pushed before is kept. The teacher links a new one with `vault-server classroom init`."
            )
        }
    }
}

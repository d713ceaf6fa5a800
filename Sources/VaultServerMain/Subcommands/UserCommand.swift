import ArgumentParser
import Foundation
import Hummingbird
import Logging
import VaultAPI
import VaultCore
import VaultRules
import VaultServer
import VaultTerminal

struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage accounts.",
        subcommands: [Add.self, Passwd.self, Disable.self, Enable.self, Keys.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an account; the password is read from the first line of stdin.")
        @OptionGroup var options: DataOptions
        @Argument var name: String
        @Option var role: Role = .student
        @Option(help: "A class or group the roster can show on its own (7b).") var group: String?

        func run() async throws {
            guard Identifiers.isClean(name), group.map({ Identifiers.isClean($0) && $0.count <= 64 }) ?? true else {
                throw ValidationError("A name or group may not contain control characters, and a group is at most 64 characters.")
            }
            if let problem = AccountNames.problem(name) { throw ValidationError("Not added: \(problem)") }
            guard let password = readPasswordLine(), !password.isEmpty else {
                throw ValidationError("Give the password on the first line of standard input.")
            }
            let storage = try await options.storage()
            if AccountNames.key(name) != name, try await storage.user(named: AccountNames.key(name)) != nil {
                throw ValidationError("Not added: an account \(AccountNames.key(name)) exists, and \(name) would look like it.")
            }
            do {
                var record = try PasswordHasher.makeRecord(name: name, role: role, password: password, iterations: options.passwordIterations)
                record.group = group.flatMap { $0.isEmpty ? nil : $0 }
                try await storage.createUser(record, now: Date())
            } catch let error as StorageError {
                throw ValidationError(error.description)
            }
            TerminalText.line("Added \(role.rawValue) \(name)\(group.map { " to group \($0)" } ?? "").")
        }
    }
}

extension UserCommand {
    /// A forgotten password on exam day: a new one from the first line of stdin (never an argument), every session
    /// of the account signed out.
    struct Passwd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set an account's password; the new password is read from the first line of stdin. Its sessions are signed out."
        )
        @OptionGroup var options: DataOptions
        @Argument var name: String
        @Flag(help: "Also revoke every device key of the account: no vault signs in or hands in by key until it signs in with the new password.")
        var revokeKeys = false

        func run() async throws {
            guard let password = readPasswordLine(), !password.isEmpty else {
                throw ValidationError("Give the new password on the first line of standard input.")
            }
            let storage = try await options.storage()
            guard let user = try await storage.user(named: name) else {
                throw ValidationError("There is no account \(name). `vault-server user add \(name)` makes one.")
            }
            var record = try PasswordHasher.makeRecord(name: user.name, role: user.role, password: password, iterations: options.passwordIterations)
            record.group = user.group
            try await storage.updatePassword(record)
            let classrooms = try await storage.deviceKeyRecords(user: user.name).count { $0.origin == .classroomServer && $0.revokedAt == nil }
            try await storage.revokeTokens(user: user.name, now: Date())
            TerminalText.line("Set a new password for \(user.name); their sessions are signed out.")
            if classrooms > 0 {
                TerminalText.line(
                    "Revoked \(classrooms) classroom \(classrooms == 1 ? "server" : "servers") of \(user.name): run `vault-server classroom init` on the laptop again."
                )
            }
            if revokeKeys {
                let revoked = try await storage.revokeDeviceKeys(user: user.name, key: nil, by: "a new password", now: Date())
                TerminalText.line(
                    "Revoked \(revoked) device \(revoked == 1 ? "key" : "keys") of \(user.name): each of their vaults signs in with the new password once."
                )
            } else if try await !storage.deviceKeys(user: user.name).isEmpty {
                TerminalText.line(
                    "Their device keys still sign in: `vault-server user keys \(user.name)` lists them, `user keys revoke \(user.name) --all` ends them (or use --revoke-keys)."
                )
            }
        }
    }
}

extension Role: ExpressibleByArgument {}

/// The first line of stdin, in a wiped buffer.
func readPasswordLine() -> SecretBytes? {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while read(STDIN_FILENO, &byte, 1) == 1, byte != 0x0A { bytes.append(byte) }
    defer { for index in bytes.indices { bytes[index] = 0 } }
    return bytes.isEmpty ? nil : SecretBytes(bytes).trimmingTrailingNewlines()
}

extension UserCommand {
    /// Exam day: an account that must not sign in (a lost laptop, a student sitting another day) is turned off, every
    /// session signed out; `enable` turns it on again with the same password.
    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn an account off: its password is refused and its sessions are signed out.")
        @OptionGroup var options: DataOptions
        @Argument var name: String

        func run() async throws {
            let storage = try await options.storage()
            let classrooms = try await storage.deviceKeyRecords(user: name).count { $0.origin == .classroomServer && $0.revokedAt == nil }
            guard try await storage.setDisabled(user: name, disabled: true, now: Date()) else {
                throw ValidationError("There is no account \(name).")
            }
            TerminalText.line("Turned off \(name); their sessions are signed out. `vault-server user enable \(name)` turns it on again.")
            if classrooms > 0 {
                TerminalText.line(
                    "Revoked \(classrooms) classroom \(classrooms == 1 ? "server" : "servers") of \(name): they stay revoked when the account is turned on."
                )
            }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn an account on again (its password is the one it had).")
        @OptionGroup var options: DataOptions
        @Argument var name: String

        func run() async throws {
            guard try await options.storage().setDisabled(user: name, disabled: false, now: Date()) else {
                throw ValidationError("There is no account \(name).")
            }
            TerminalText.line("Turned on \(name): they can sign in again.")
        }
    }
}

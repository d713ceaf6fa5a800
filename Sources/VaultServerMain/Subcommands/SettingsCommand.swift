import ArgumentParser
import Foundation
import VaultServer
import VaultTerminal

/// `vault-server settings`: the school's settings a running server reads (issue 59).
struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Show or change the school's settings a running server reads.",
        discussion: """
            client-stats (off|on): vaults send their own counts with a sync (offline work, syncs, conflicts, the cache; \
            no id, name or answer), summed into /metrics as vault_client_*_total. Off unless turned on.
            """,
        subcommands: [Show.self, Set.self]
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Every setting and its value.")
        @OptionGroup var options: DataOptions
        @Flag(help: "Print {\"settings\":{NAME:VALUE}} as JSON.") var json = false

        func run() async throws {
            let storage = try await options.storage()
            var values: [String: String] = [:]
            for setting in ServerSetting.allCases { values[setting.rawValue] = try await storage.setting(setting) }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(["settings": values]), as: UTF8.self))
                return
            }
            for setting in ServerSetting.allCases {
                TerminalText.line("\(setting.rawValue): \(values[setting.rawValue] ?? "") (\(setting.values.joined(separator: " or ")))")
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Change a setting; a running server reads it at once.")
        @OptionGroup var options: DataOptions
        @Argument(help: "The setting: client-stats.") var name: String
        @Argument(help: "Its value: on or off.") var value: String

        func run() async throws {
            guard let setting = ServerSetting(rawValue: name) else {
                throw ValidationError(
                    "There is no setting called \(TerminalText.visible(name)). Known settings: \(ServerSetting.allCases.map(\.rawValue).joined(separator: ", "))."
                )
            }
            guard setting.values.contains(value) else {
                throw ValidationError("\(setting.rawValue) is \(setting.values.joined(separator: " or ")), not \(TerminalText.visible(value)).")
            }
            try await options.storage().setSetting(setting, to: value)
            TerminalText.line("\(setting.rawValue) is \(value).")
        }
    }
}

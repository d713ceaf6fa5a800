import ArgumentParser
import VaultCore
import VaultLanguage

struct Config: ParsableCommand {
    /// `lang`: the student's language, kept beside the vault (it is needed before the vault is unlocked).
    static let language = "lang"

    static let configuration = CommandConfiguration(
        abstract: "Read and change settings stored inside the vault (and `lang`, the language, beside it).",
        subcommands: [Get.self, Set.self, Unset.self, List.self]
    )

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one setting.")
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources
        @Argument var key: String

        func run() throws {
            let context = CommandContext(globals)
            if key == Config.language {
                let value = VaultLanguageChoice.saved(in: context.paths) ?? ""
                context.console.line(value.isEmpty ? tr("(none: the system's language)") : value)
                context.console.emit([key: value])
                return
            }
            _ = try VaultSettings.key(named: key)
            let vault = try context.openVault(credentials)
            let value = try vault.settings().value(key)
            context.console.line("\(value)")
            context.console.emit([key: value])
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change one setting.")
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources
        @Argument var key: String
        @Argument var value: String

        func run() throws {
            let context = CommandContext(globals)
            if key == Config.language {
                // Only the vault's owner changes it: the password opens the vault first.
                _ = try context.openVault(credentials)
                try VaultLanguageChoice.save(value, in: context.paths)
                context.console.line("\(key) = \(value)")
                context.console.emit([key: value])
                return
            }
            _ = try VaultSettings.key(named: key)
            let vault = try context.openVault(credentials)
            try vault.setSetting(key, to: value)
            let stored = try vault.settings().value(key)
            context.console.line("\(key) = \(stored)")
            context.console.emit([key: stored])
        }
    }

    struct Unset: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Restore a setting's default.")
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources
        @Argument var key: String

        func run() throws {
            let context = CommandContext(globals)
            if key == Config.language {
                _ = try context.openVault(credentials)
                try VaultLanguageChoice.save(nil, in: context.paths)
                context.console.line(tr("{key} unset: the system's language is used.", ["key": key]))
                context.console.emit([key: ""])
                return
            }
            _ = try VaultSettings.key(named: key)
            let vault = try context.openVault(credentials)
            try vault.setSetting(key, to: nil)
            let stored = try vault.settings().value(key)
            context.console.line(tr("{key} = {value} (default)", ["key": key, "value": stored]))
            context.console.emit([key: stored])
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print every setting with its value.")
        @OptionGroup var globals: GlobalOptions
        @OptionGroup var credentials: CredentialSources

        func run() throws {
            let context = CommandContext(globals)
            let vault = try context.openVault(credentials)
            var document: [String: Int] = [:]
            for (key, value, isDefault) in try vault.settings().all {
                document[key.name] = value
                context.console.line(
                    (isDefault ? tr("{key} = {value} (default)", ["key": key.name, "value": value]) : "\(key.name) = \(value)") + "  # " + key.help
                )
            }
            context.console.emit(["settings": document])
        }
    }
}

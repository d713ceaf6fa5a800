import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage

struct Unlock: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Keep the vault unlocked for a while, so commands need no password (the key stays in the kernel keyring).",
        discussion: """
            The unwrapped data key is kept in the kernel's key retention service (the login session keyring, or the \\
            user keyring where there is none), readable by this user only, until it expires or `vault lock`. It never \\
            touches a file or an environment variable. Commands that change keys still ask for the password.
            """
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Option(name: .customLong("for"), help: "How long: 30s, 15m, 2h (at most 12h).") var duration = "15m"

    func validate() throws {
        guard let seconds = Self.seconds(duration), (1...12 * 3600).contains(seconds) else {
            throw ValidationError(tr("--for takes a duration such as 30s, 15m or 2h, up to 12h."))
        }
    }

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials, allowSession: false)
        let info = try vault.unlockSession(for: .seconds(Self.seconds(duration) ?? 900))

        context.console.line(
            info.keyring == .loginSession
                ? tr(
                    "The vault stays unlocked until {time} (key kept in your login session). `vault lock` locks it now.",
                    ["time": ReadableDate.clock(info.expiresAt)]
                )
                : tr(
                    "The vault stays unlocked until {time} (key kept in your user keyring). `vault lock` locks it now.",
                    ["time": ReadableDate.clock(info.expiresAt)]
                )
        )
        context.console.emit(["unlocked_until": Timestamp.string(info.expiresAt), "keyring": info.keyring.rawValue])
    }

    static func seconds(_ text: String) -> Int? {
        guard let unit = text.last, let number = Int(text.dropLast()), number > 0 else { return Int(text) }
        switch unit {
        case "s": return number
        case "m": return number * 60
        case "h": return number * 3600
        default: return nil
        }
    }
}

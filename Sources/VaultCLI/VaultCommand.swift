import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultTerminal

@main
struct VaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault",
        abstract: "An encrypted offline vault for taking assessments.",
        discussion:
            "Exit codes: 0 done, 3 needs attention, 64 usage, 65 bad data, 66 no such vault or item, 69 offline, 73 cannot create, 74 I/O, 75 try again later, 77 password or permission.",
        version: ProductVersion.current,
        subcommands: [
            Init.self, Unlock.self, Lock.self, Login.self, Logout.self, Servers.self, Catalog.self, Download.self, List.self, Show.self, Take.self,
            Answer.self,
            Submit.self, Sync.self, Receipts.self, HandIn.self, Results.self, Log.self, Picture.self, ImportPackage.self, Unseal.self, Stats.self,
            DeadLetters.self, Evict.self, ClearCache.self,
            Status.self, Storage.self, Config.self, Passwd.self, Key.self, Verify.self, AdminCommand.self,
        ]
    )

    static func main() async {
        SecureFiles.restrictUmask()
        // Past a file-size limit, writes fail with EFBIG (reported as a full disk) instead of killing the process.
        signal(SIGXFSZ, SIG_IGN)
        let arguments = ArgumentNormalizer.normalize(Array(CommandLine.arguments.dropFirst()))
        let json = arguments.contains("--json")
        // The language first, so every sentence after this is in it; `--json` documents stay English (scripts read
        // them), as do exit codes.
        let lang = ArgumentNormalizer.value(of: "--lang", in: arguments)
        if let lang, Language.requested(explicit: lang, environment: [:]) == nil, !["C", "POSIX", "en"].contains(lang) {
            FileHandle.standardError.write(
                Data("Error: --lang takes a language code such as es, fr, pt_BR, sw, ar or fa (not \(TerminalText.visible(lang))).\n".utf8)
            )
            Foundation.exit(VaultExit.usage)
        }
        // After --lang and VAULT_LANG, the language saved in the vault (`vault config set lang fa`), then the system's.
        let environment = ProcessInfo.processInfo.environment
        let saved =
            lang == nil && (environment["VAULT_LANG"] ?? "").isEmpty
            ? VaultLanguageChoice.saved(
                in: VaultPaths.resolve(explicit: ArgumentNormalizer.value(of: "--vault", in: arguments), environment: environment)
            ) : nil
        Language.activate(json ? nil : Language.requested(explicit: lang ?? saved, environment: environment))
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exit as CommandExit {
            Foundation.exit(exit.code)
        } catch {
            if let mapped = VaultExit.vaultError(for: error) {
                Console.reportFailure(mapped, json: json)
                Foundation.exit(VaultExit.code(for: mapped))
            }
            let code = exitCode(for: error).rawValue
            // Argument errors use ArgumentParser's own message and usage; 64 instead of its 64/1 mix.
            if code == 0 {
                // --help and --version: the help in the student's language.
                print(HelpText.localized(fullMessage(for: error)))
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((Console.fittedForError(TerminalText.visible(fullMessage(for: error))) + "\n").utf8))
            Foundation.exit(VaultExit.usage)
        }
    }
}

/// Ends a command with a specific exit code after its output was printed (e.g. 3 or 65 from verify).
struct CommandExit: Error {
    let code: Int32
}

import ArgumentParser
import VaultLanguage

/// Options every command accepts, before or after the command name (see `ArgumentNormalizer`).
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .customLong("vault"),
        help: ArgumentHelp(tr("The vault directory (default: $VAULT_HOME, $XDG_DATA_HOME/vault, ~/.local/share/vault)."))
    )
    var vaultDirectory: String?

    @Flag(help: ArgumentHelp(tr("Print one JSON document on stdout.")))
    var json = false

    @Flag(help: ArgumentHelp(tr("Never use colour (NO_COLOR is respected too).")))
    var noColor = false

    @Flag(help: ArgumentHelp(tr("Print only errors.")))
    var quiet = false

    @Flag(help: ArgumentHelp(tr("Log details to stderr (never passwords or keys).")))
    var verbose = false

    @Option(help: ArgumentHelp(tr("The language to speak: es, fr, pt_BR, sw, ar or fa (also $VAULT_LANG; else LANGUAGE, LC_ALL, LANG).")))
    var lang: String?
}

/// Moves global options written before the command name to the end, so `vault --json status` and
/// `vault status --json` parse alike.
enum ArgumentNormalizer {
    static let flags: Set<String> = ["--json", "--no-color", "--quiet", "--verbose"]
    static let valued: Set<String> = ["--vault", "--lang"]

    /// The value of a valued global option (`--lang fa` or `--lang=fa`), read before the command is parsed.
    static func value(of option: String, in arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { return nil }
            if argument == option, index + 1 < arguments.count { return arguments[index + 1] }
            if argument.hasPrefix(option + "=") { return String(argument.dropFirst(option.count + 1)) }
        }
        return nil
    }

    static func normalize(_ arguments: [String]) -> [String] {
        var rest: [String] = []
        var globals: [String] = []
        var index = 0
        var terminator: [String] = []
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                terminator = Array(arguments[index...])
                break
            }
            if flags.contains(argument) {
                globals.append(argument)
            } else if valued.contains(argument), index + 1 < arguments.count {
                globals.append(argument)
                globals.append(arguments[index + 1])
                index += 1
            } else if valued.contains(where: { argument.hasPrefix($0 + "=") }) {
                globals.append(argument)
            } else {
                rest.append(argument)
            }
            index += 1
        }
        return rest + globals + terminator
    }
}

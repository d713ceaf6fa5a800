import Foundation
import VaultLanguage

/// `--help` in the student's language: our own texts are catalog messages already; the headings and the two lines
/// swift-argument-parser writes itself are replaced here, line by line, after it has laid the help out.
enum HelpText {
    static func localized(_ help: String) -> String {
        let fixed: [(String, String)] = [
            ("OVERVIEW:", tr("OVERVIEW:")),
            ("USAGE:", tr("USAGE:")),
            ("ARGUMENTS:", tr("ARGUMENTS:")),
            ("OPTIONS:", tr("OPTIONS:")),
            ("SUBCOMMANDS:", tr("SUBCOMMANDS:")),
            ("Show the version.", tr("Show the version.")),
            ("Show help information.", tr("Show help information.")),
            ("(values: ", tr("(values: ")),
            ("See 'vault help <subcommand>' for detailed help.", tr("See 'vault help <subcommand>' for detailed help.")),
        ]
        return help.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var line = String(line)
            for (english, spoken) in fixed where english != spoken && line.contains(english) {
                line = line.replacingOccurrences(of: english, with: spoken)
            }
            return line
        }.joined(separator: "\n")
    }
}

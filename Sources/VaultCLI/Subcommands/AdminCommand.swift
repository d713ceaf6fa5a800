import ArgumentParser
import Foundation
import VaultCore
import VaultTake
import VaultTerminal

struct AdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Tasks for lab administrators.",
        subcommands: [Usage.self]
    )

    struct Usage: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disk use of every vault under a directory, from file metadata only (no password, nothing decrypted)."
        )
        @OptionGroup var globals: GlobalOptions
        @Option(help: "Where to look for vaults (default: /home).") var root = "/home"

        func run() throws {
            let context = CommandContext(globals)
            let report = try VaultUsageScanner.report(root: root)
            var table = TextTable(["VAULT", "OWNER", "SIZE", "FILES", "LAST CHANGE"], flexible: 0)
            for vault in report.vaults {
                table.add([vault.path, vault.owner, Console.bytes(vault.bytes), "\(vault.files)", ReadableDate.relative(vault.modifiedAt)])
            }
            if !report.vaults.isEmpty {
                for line in table.render() { context.console.line(line) }
                context.console.line(
                    "Total: \(Plural.count(report.vaults.count, "vault")), \(Console.bytes(report.totalBytes)), \(Plural.count(report.totalFiles, "file"))."
                )
            } else {
                context.console.line("No vaults found under \(root).")
            }
            for skipped in report.unreadable {
                context.console.line("Not read: \(skipped.path) (\(skipped.reason)).")
            }
            context.console.emit(report)
        }
    }
}

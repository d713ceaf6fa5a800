import ArgumentParser
import Foundation
import VaultCore
import VaultLanguage
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
            var table = TextTable([tr("VAULT"), tr("OWNER"), tr("SIZE"), tr("FILES"), tr("LAST CHANGE")], flexible: 0)
            for vault in report.vaults {
                table.add([
                    vault.path, vault.owner, Console.bytes(vault.bytes), Language.number(vault.files), ReadableDate.relative(vault.modifiedAt),
                ])
            }
            if !report.vaults.isEmpty {
                context.console.table(table)
                context.console.line(
                    tr(
                        "Total: {vaults}, {size}, {files}.",
                        [
                            "vaults": trn("{n} vault", "{n} vaults", report.vaults.count), "size": Console.bytes(report.totalBytes),
                            "files": trn("{n} file", "{n} files", report.totalFiles),
                        ]
                    )
                )
            } else {
                context.console.line(tr("No vaults found under {directory}.", ["directory": root]))
            }
            for skipped in report.unreadable {
                context.console.line(tr("Not read: {path} ({reason}).", ["path": skipped.path, "reason": skipped.reason]))
            }
            context.console.emit(report)
        }
    }
}

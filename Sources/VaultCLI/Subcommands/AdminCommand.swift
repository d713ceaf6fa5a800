import ArgumentParser
import Foundation
import VaultCore

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
            let vaults = try VaultUsageScanner.scan(root: root)
            for vault in vaults {
                context.console.line("\(vault.path)  \(Console.bytes(vault.bytes))  \(vault.files) files  changed \(vault.modifiedAt)")
            }
            if vaults.isEmpty { context.console.line("No vaults found under \(root).") }
            context.console.emit(["vaults": vaults])
        }
    }
}

import ArgumentParser
import Foundation
import VaultDiscovery
import VaultLanguage
import VaultModel
import VaultTerminal

/// `vault servers`: the servers announced on this network (a classroom's), with their key fingerprints (issue 58).
struct Servers: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Servers announced on this network (a classroom server on the teacher's laptop), with their key fingerprints."
    )
    @OptionGroup var globals: GlobalOptions
    @Option(help: "How long to look, in seconds (1 to 10).") var wait = 3

    func run() throws {
        guard (1...10).contains(wait) else { throw ValidationError(tr("--wait is 1 to 10 seconds.")) }
        let context = CommandContext(globals)
        let found = try Self.look(seconds: wait)
        if found.isEmpty {
            context.console.line(
                tr("No server announces itself on this network. Type the address your teacher gives you: `vault login --server URL`.")
            )
        } else {
            var table = TextTable([tr("NAME"), tr("ADDRESS"), tr("KEY FINGERPRINT"), tr("DISTRICT")], flexible: 0, droppable: [3])
            for server in found { table.add([server.name, server.url, server.fingerprint, server.district]) }
            context.console.table(table, width: .max)
            context.console.line(tr("Compare the fingerprint with the one your teacher shows before you sign in (`vault login --discover`)."))
        }
        context.console.emit(["servers": found])
    }

    /// What the LAN announces; a sentence when the mDNS daemon is not there.
    static func look(seconds: Int) throws -> [FoundServer] {
        do {
            return try Discovery.browse(timeout: .seconds(seconds))
        } catch {
            throw VaultError(
                .offline,
                tr(
                    "Servers on this network cannot be looked for: the mDNS service (avahi-daemon) is not running here. Type the address your teacher gives you instead."
                )
            )
        }
    }
}

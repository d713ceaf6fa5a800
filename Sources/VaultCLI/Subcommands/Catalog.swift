import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultSync
import VaultTerminal

struct Catalog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "What the server offers, marking what is downloaded or outdated.")
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources

    struct Row: Encodable {
        let id: String
        let title: String
        let version: Int
        let sizeBytes: Int
        let downloadedVersion: Int?
        let sealed: Bool
        let opensAt: String?
        enum CodingKeys: String, CodingKey {
            case id, title, version
            case sizeBytes = "size_bytes"
            case downloadedVersion = "downloaded_version"
            case sealed
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(title, forKey: .title)
            try container.encode(version, forKey: .version)
            try container.encode(sizeBytes, forKey: .sizeBytes)
            try container.encode(downloadedVersion, forKey: .downloadedVersion)
            try container.encode(sealed, forKey: .sealed)
        }
    }

    func run() async throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let entries = try await NetworkSession.with(vault: vault) { try await $0.client.catalog() }
        let cached = try vault.cachedAssessments()
        let rows = entries.map { entry in
            Row(
                id: entry.id,
                title: entry.title,
                version: entry.version,
                sizeBytes: entry.sizeBytes,
                downloadedVersion: cached.filter { $0.id == entry.id }.map(\.version).max(),
                sealed: entry.sealed == true,
                opensAt: entry.opensAt
            )
        }
        var table = TextTable([tr("ID"), tr("TITLE"), tr("VER"), tr("SIZE"), tr("ON THIS DEVICE")], flexible: 1, droppable: [2, 3])
        for row in rows {
            let mark =
                switch row.downloadedVersion {
                case nil: "-"
                case row.version: tr("downloaded")
                default: tr("outdated (you have version {version})", ["version": row.downloadedVersion ?? 0])
                }
            let title = row.sealed ? tr("{title} (sealed)", ["title": row.title]) : row.title
            table.add([row.id, title, Language.number(row.version), Console.bytes(row.sizeBytes), mark])
        }
        if !rows.isEmpty { context.console.table(table) }
        // When a sealed exam opens, on a line of its own (in the table it would be cut on a terminal).
        for row in rows where row.sealed {
            context.console.line(StartCodeSource.sealedLine(id: row.id, opensAt: row.opensAt))
        }
        if rows.isEmpty { context.console.line(tr("The server offers no assessments right now.")) }
        context.console.emit(["assessments": rows])
    }
}

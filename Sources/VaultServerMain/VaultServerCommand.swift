import ArgumentParser
import Foundation
import Hummingbird
import Logging
import VaultAPI
import VaultCore
import VaultServer

@main
struct VaultServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault-server",
        abstract: "The reference assessment server for `vault`.",
        version: ProductVersion.current,
        subcommands: [
            Serve.self, UserCommand.self, Publish.self, Delete.self, Responses.self, KeyCommand.self, ReceiptsCommand.self, Import.self, Grade.self,
            Release.self, StartCode.self, Accommodation.self, RosterCommand.self, Export.self, Close.self, Reopen.self, Share.self,
            Regrade.self, LogCommand.self, PackageCommand.self, SettingsCommand.self, StatusCommand.self, ClassroomCommand.self, StoreUnlock.self,
            StoreLockCommand.self,
        ]
    )
}

import Foundation

/// Where a vault's files live inside its directory.
public struct VaultPaths: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = (directory as NSString).standardizingPath
    }

    public var keyFile: String { directory + "/vault.key" }
    public var database: String { directory + "/vault.db" }
    public var lock: String { directory + "/vault.lock" }
    /// Written during `key rotate` and promoted or discarded by the next open.
    public var rotatingDatabase: String { directory + "/vault.db.rotating" }
    public var rotatingKeyFile: String { directory + "/vault.key.rotating" }

    /// Picks the directory as the CLI contract says: --vault, $VAULT_HOME, $XDG_DATA_HOME/vault, ~/.local/share/vault.
    public static func resolve(explicit: String?, environment: [String: String]) -> VaultPaths {
        if let explicit, !explicit.isEmpty { return VaultPaths(directory: explicit) }
        if let home = environment["VAULT_HOME"], !home.isEmpty { return VaultPaths(directory: home) }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty { return VaultPaths(directory: data + "/vault") }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return VaultPaths(directory: home + "/.local/share/vault")
    }
}

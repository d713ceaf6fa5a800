import Foundation

/// Where a vault's files live inside its directory.
///
/// `directory` is the path as the user gave it, never resolved (a symlink in it is refused, not followed), and
/// is what messages show. File operations go through `root`: the same path until the directory is opened, then
/// `/proc/self/fd/N` of the descriptor `VaultDirectory` holds, so no later operation can be redirected by a
/// symlink or a rename of the directory.
public struct VaultPaths: Sendable {
    public let directory: String
    public let root: String

    public init(directory: String) {
        var trimmed = directory
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.directory = trimmed
        self.root = trimmed
    }

    private init(directory: String, root: String) {
        self.directory = directory
        self.root = root
    }

    /// The same vault, with file operations going through `root`.
    func anchored(at root: String) -> VaultPaths { VaultPaths(directory: directory, root: root) }

    /// The paths as the user knows them, for messages.
    public var named: VaultPaths { VaultPaths(directory: directory) }

    public var keyFile: String { root + "/vault.key" }
    public var database: String { root + "/vault.db" }
    public var lock: String { root + "/vault.lock" }
    /// Written during `key rotate` and promoted or discarded by the next open.
    public var rotatingDatabase: String { root + "/vault.db.rotating" }
    public var rotatingKeyFile: String { root + "/vault.key.rotating" }
    /// The database while `init` builds it; renamed to `vault.db` once the key file is in place.
    public var stagingDatabase: String { root + "/vault.db.init" }

    /// Picks the directory as the CLI contract says: --vault, $VAULT_HOME, $XDG_DATA_HOME/vault, ~/.local/share/vault.
    public static func resolve(explicit: String?, environment: [String: String]) -> VaultPaths {
        if let explicit, !explicit.isEmpty { return VaultPaths(directory: explicit) }
        if let home = environment["VAULT_HOME"], !home.isEmpty { return VaultPaths(directory: home) }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty { return VaultPaths(directory: data + "/vault") }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return VaultPaths(directory: home + "/.local/share/vault")
    }
}

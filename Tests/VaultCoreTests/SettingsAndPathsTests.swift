import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultModel
import VaultTestSupport

@Suite(.ownThreads)
struct SettingsAndPathsTests {
    let directory = TemporaryDirectory()

    @Test("settings refuse values outside their range and unknown keys; unset restores the default")
    func settings() throws {
        let vault = try TestVault.create(in: directory)
        #expect(throws: VaultError.self) { try vault.setSetting("sync.batch_size", to: "501") }
        #expect(throws: VaultError.self) { try vault.setSetting("sync.batch_size", to: "ten") }
        #expect(throws: VaultError.self) { try vault.setSetting("no.such", to: "1") }
        try vault.setSetting("cache.max_bytes", to: "2_000_000")
        #expect(try vault.settings().maxCacheBytes == 2_000_000)
        try vault.setSetting("cache.max_bytes", to: nil)
        #expect(try vault.settings().maxCacheBytes == 500_000_000)
    }

    @Test("the vault directory: --vault, then VAULT_HOME, then XDG_DATA_HOME/vault, then ~/.local/share/vault")
    func paths() {
        #expect(VaultPaths.resolve(explicit: "/a", environment: ["VAULT_HOME": "/b"]).directory == "/a")
        #expect(VaultPaths.resolve(explicit: nil, environment: ["VAULT_HOME": "/b", "XDG_DATA_HOME": "/c"]).directory == "/b")
        #expect(VaultPaths.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "/c"]).directory == "/c/vault")
        #expect(VaultPaths.resolve(explicit: nil, environment: ["HOME": "/home/s"]).directory == "/home/s/.local/share/vault")
    }

    @Test("timestamps: RFC 3339 with and without milliseconds")
    func timestamps() {
        #expect(Timestamp.date("2026-11-22T10:00:00.123Z")?.timeIntervalSince1970 == 1_795_341_600.123)
        #expect(Timestamp.date("2026-11-22T10:00:00Z") != nil)
        #expect(Timestamp.date("yesterday") == nil)
        #expect(Timestamp.string(epoch: 0) == "1970-01-01T00:00:00.000Z")
    }
}

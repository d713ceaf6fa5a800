import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

@Suite(.ownThreads)
struct KeyManagementTests {
    let directory = TemporaryDirectory()
    var paths: VaultPaths { VaultPaths(directory: directory.file("vault")) }

    func opens(_ password: String) -> Bool {
        (try? TestVault.open(in: directory, password: password)) != nil
    }

    @Test("passwd re-wraps the key: the new password opens, the old does not, the data is untouched")
    func changePassword() throws {
        do {
            let vault = try TestVault.create(in: directory, password: "old")
            try vault.setSetting("cache.ttl_days", to: "3")
            let before = try Data(contentsOf: URL(fileURLWithPath: paths.database))
            try vault.changePassword(to: TestVault.secret("new"), iterations: TestVault.iterations)
            #expect(try Data(contentsOf: URL(fileURLWithPath: paths.database)) == before)
        }
        #expect(!opens("old"))
        #expect(opens("new"))
        #expect(try TestVault.open(in: directory, password: "new").settings().ttlDays == 3)
    }

    @Test("slots: add a recovery password, both open; remove one; the last slot is kept")
    func slots() throws {
        do {
            let vault = try TestVault.create(in: directory, password: "main")
            let id = try vault.addSlot(label: "recovery", password: TestVault.secret("recovery"), iterations: TestVault.iterations)
            #expect(id == 2)
            #expect(vault.keyFile.slots.map(\.label) == ["password", "recovery"])
        }
        #expect(opens("main"))
        #expect(opens("recovery"))
        do {
            let vault = try TestVault.open(in: directory, password: "recovery")
            #expect(vault.unlockedSlot == 2)
            try vault.removeSlot(1)
            #expect(throws: VaultError.self) { try vault.removeSlot(2) }
            #expect(throws: VaultError.self) { try vault.removeSlot(7) }
        }
        #expect(!opens("main"))
        #expect(opens("recovery"))
    }

    @Test("key rotate: a new data key and salt, all rows kept, the old key no longer opens the file")
    func rotate() throws {
        let oldLiteral: String
        do {
            let vault = try TestVault.create(in: directory)
            try vault.setSetting("sync.batch_size", to: "42")
            oldLiteral = vault.revealKey().literal
            let dropped = try vault.rotateKey(password: TestVault.secret(TestVault.password))
            #expect(dropped.isEmpty)
            #expect(vault.revealKey().literal != oldLiteral)
            #expect(try vault.settings().batchSize == 42)
        }
        let vault = try TestVault.open(in: directory)
        #expect(try vault.settings().batchSize == 42)
        #expect(vault.verify().ok)
        let newLiteral = vault.revealKey().literal
        #expect(newLiteral != oldLiteral)
        #expect(!SecureFiles.exists(paths.rotatingDatabase))
        #expect(!SecureFiles.exists(paths.rotatingKeyFile))
        // The header is the new salt (the last 32 hex digits of the literal).
        let header = try #require(FileManager.default.contents(atPath: paths.database)).prefix(16)
        #expect(newLiteral.dropLast().hasSuffix(Hex.encode(header)))
    }

    @Test("a rotation interrupted before its commit point is discarded; after it, finished")
    func interruptedRotation() throws {
        // Build the on-disk state each crash point leaves, from a real rotation of a copy.
        do {
            let vault = try TestVault.create(in: directory)
            try vault.setSetting("cache.ttl_days", to: "5")
        }
        let originalDB = try Data(contentsOf: URL(fileURLWithPath: paths.database))
        let originalKey = try Data(contentsOf: URL(fileURLWithPath: paths.keyFile))
        do { try TestVault.open(in: directory).rotateKey(password: TestVault.secret(TestVault.password)) }
        let rotatedDB = try Data(contentsOf: URL(fileURLWithPath: paths.database))
        let rotatedKey = try Data(contentsOf: URL(fileURLWithPath: paths.keyFile))

        func layout(db: Data, key: Data, rotatingDB: Data?, rotatingKey: Data?) throws {
            try db.write(to: URL(fileURLWithPath: paths.database))
            try key.write(to: URL(fileURLWithPath: paths.keyFile))
            unlink(paths.rotatingDatabase)
            unlink(paths.rotatingKeyFile)
            if let rotatingDB { try rotatingDB.write(to: URL(fileURLWithPath: paths.rotatingDatabase)) }
            if let rotatingKey { try rotatingKey.write(to: URL(fileURLWithPath: paths.rotatingKeyFile)) }
        }
        let states: [(String, Data, Data, Data?, Data?, Data)] = [
            ("export written", originalDB, originalKey, rotatedDB, nil, originalDB),
            ("new key file written", originalDB, originalKey, rotatedDB, rotatedKey, originalDB),
            ("database renamed (commit)", rotatedDB, originalKey, nil, rotatedKey, rotatedDB),
            ("both renamed", rotatedDB, rotatedKey, nil, nil, rotatedDB),
        ]
        for (name, db, key, rotatingDB, rotatingKey, expectedDB) in states {
            try layout(db: db, key: key, rotatingDB: rotatingDB, rotatingKey: rotatingKey)
            let vault = try TestVault.open(in: directory)
            #expect(try vault.settings().ttlDays == 5, "\(name)")
            #expect(vault.verify().ok, "\(name)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: paths.database)) == expectedDB, "\(name)")
            #expect(!SecureFiles.exists(paths.rotatingDatabase) && !SecureFiles.exists(paths.rotatingKeyFile), "\(name)")
        }
    }

    @Test("passwd interrupted before its rename leaves the old password working and no stray file after the next open")
    func interruptedPasswd() throws {
        do { _ = try TestVault.create(in: directory, password: "old") }
        var file = try KeyFile.decode(try Data(contentsOf: URL(fileURLWithPath: paths.keyFile)))
        let vault = try TestVault.open(in: directory, password: "old")
        // What atomicWrite leaves if killed after writing its temporary file: a complete new key file beside the old.
        try file.replaceSlot(1, dataKey: SecretBytes.random(count: 32), password: TestVault.secret("new"), iterations: 1_000, createdAt: Date())
        let stray = paths.keyFile + ".tmp-99999"
        try file.encoded().write(to: URL(fileURLWithPath: stray))
        withExtendedLifetime(vault) {}
        _ = consume vault
        #expect(opens("old"))
        #expect(!opens("new"))
        #expect(!SecureFiles.exists(stray))
    }
}

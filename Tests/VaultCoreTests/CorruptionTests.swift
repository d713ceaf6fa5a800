import Foundation
import Testing
@_spi(Testing) import VaultCore
import VaultModel
import VaultTestSupport

/// Flip a byte in every page and every key-file field, truncate at page boundaries: the right error class each
/// time (never "wrong password" for damage), never a crash.
@Suite(.ownThreads)
struct CorruptionTests {
    let directory = TemporaryDirectory()

    func makeVault() throws -> (db: Data, key: Data) {
        let vault = try TestVault.create(in: directory)
        // Enough rows to span many pages, including overflow pages.
        try vault.database.inTransaction {
            for index in 0..<60 {
                try vault.database.execute(
                    "INSERT INTO settings (key, value) VALUES (?, ?)",
                    ["filler.\(index)", String(repeating: "x", count: 900)]
                )
            }
        }
        return (
            try Data(contentsOf: URL(fileURLWithPath: directory.file("vault/vault.db"))),
            try Data(contentsOf: URL(fileURLWithPath: directory.file("vault/vault.key")))
        )
    }

    /// Opens and verifies; returns the error class seen, or nil when the damage went unnoticed.
    func outcome() -> VaultError.Code? {
        do {
            let vault = try TestVault.open(in: directory)
            let report = vault.verify()
            return report.ok ? nil : .databaseDamaged
        } catch let error as VaultError {
            return error.code
        } catch {
            return .io
        }
    }

    /// SQLCipher 3.4.1 reserves IV (16) + HMAC-SHA1 (20) = 36 bytes per page, rounded up to 48: the last 12 bytes
    /// of each page are padding that carries no data and that no HMAC covers.
    static let unauthenticatedPadding = 12

    @Test("a flipped byte in any database page is damage, never a wrong password")
    func everyPage() throws {
        let (original, _) = try makeVault()
        let pageSize = 4096
        let pages = original.count / pageSize
        #expect(pages >= 10)
        let dbPath = URL(fileURLWithPath: directory.file("vault/vault.db"))
        let lastCovered = pageSize - Self.unauthenticatedPadding - 1
        for page in 0..<pages {
            for offset in [20, pageSize / 2, lastCovered - 20, lastCovered] {
                var damaged = original
                damaged[page * pageSize + offset] ^= 0x5A
                try damaged.write(to: dbPath)
                let seen = outcome()
                #expect(seen == .databaseDamaged, "page \(page) offset \(offset): \(String(describing: seen))")
            }
        }
        // The padding is not data: flipping it changes nothing that can be read.
        var padded = original
        padded[5 * pageSize + pageSize - 1] ^= 0x5A
        try padded.write(to: dbPath)
        do {
            let vault = try TestVault.open(in: directory)
            #expect(try vault.database.scalarInt("SELECT count(*) FROM settings WHERE value = ?", [String(repeating: "x", count: 900)]) == 60)
        }
        // Salt bytes at the start of page 1: a damaged header, not another vault.
        var salt = original
        salt[3] ^= 0x01
        try salt.write(to: dbPath)
        #expect(outcome() == .databaseDamaged)
        try original.write(to: dbPath)
        #expect(outcome() == nil)
    }

    @Test("truncation at every page boundary is damage")
    func truncation() throws {
        let (original, _) = try makeVault()
        let dbPath = URL(fileURLWithPath: directory.file("vault/vault.db"))
        for pages in stride(from: 0, to: original.count / 4096, by: 1) {
            try original.prefix(pages * 4096).write(to: dbPath)
            let seen = outcome()
            #expect(seen == .databaseDamaged, "truncated to \(pages) pages: \(String(describing: seen))")
        }
    }

    @Test("a flipped byte anywhere in the key file is a damaged key file, never a wrong password")
    func everyKeyFileByte() throws {
        let (_, key) = try makeVault()
        let keyPath = URL(fileURLWithPath: directory.file("vault/vault.key"))
        var seenCodes: Set<String> = []
        for index in 0..<key.count {
            var damaged = key
            damaged[index] ^= 0x01
            try damaged.write(to: keyPath)
            let seen = outcome()
            seenCodes.insert("\(String(describing: seen))")
            // A flip inside JSON whitespace can leave an equivalent document: that must still open cleanly.
            if seen != nil {
                #expect(seen == .keyFileDamaged, "byte \(index) ('\(Character(UnicodeScalar(key[index])))'): \(String(describing: seen))")
            }
        }
        #expect(seenCodes.contains("Optional(keyFileDamaged)"))
        try key.write(to: keyPath)
        #expect(outcome() == nil)
    }
}

import Foundation
import Testing
import VaultCore
import VaultTestSupport

@Suite(.ownThreads)
struct DatabaseTests {
    let directory = TemporaryDirectory()

    @Test("an empty, short or all-zero key is refused before SQLCipher could create a plaintext file")
    func emptyKeyRefused() throws {
        for key in [SecretBytes(count: 0), SecretBytes(count: 16), SecretBytes(count: 32)] {
            let path = directory.file("empty-\(key.count).db")
            #expect(throws: DatabaseError.self) {
                _ = try Database(path: path, encryption: .rawKey(key, salt: Array(repeating: 1, count: 16)))
            }
            let header = FileManager.default.contents(atPath: path) ?? Data()
            #expect(!header.starts(with: Data("SQLite format 3".utf8)))
        }
        #expect(throws: DatabaseError.self) {
            _ = try Database(path: directory.file("nosalt.db"), encryption: .rawKey(try SecretBytes.random(count: 32), salt: []))
        }
    }

    @Test("a keyed file starts with its salt, not the SQLite header; the plaintext baseline does")
    func headers() throws {
        let salt = try CryptoRandom.bytes(16)
        let encrypted = directory.file("enc.db")
        let plain = directory.file("plain.db")
        do {
            let database = try Database(path: encrypted, encryption: .rawKey(try SecretBytes.random(count: 32), salt: salt))
            try database.execute("CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('canary-text-123')")
            let baseline = try Database(path: plain, encryption: .plaintext)
            try baseline.execute("CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('canary-text-123')")
        }
        let encryptedBytes = try #require(FileManager.default.contents(atPath: encrypted))
        #expect(Array(encryptedBytes.prefix(16)) == salt)
        #expect(encryptedBytes.range(of: Data("canary-text-123".utf8)) == nil)
        let plainBytes = try #require(FileManager.default.contents(atPath: plain))
        #expect(plainBytes.starts(with: Data("SQLite format 3".utf8)))
        #expect(plainBytes.range(of: Data("canary-text-123".utf8)) != nil)
    }

    @Test("a wrong key gives NOTADB and the file is untouched")
    func wrongKey() throws {
        let path = directory.file("k.db")
        let salt = try CryptoRandom.bytes(16)
        do {
            let database = try Database(path: path, encryption: .rawKey(try SecretBytes.random(count: 32), salt: salt))
            try database.execute("CREATE TABLE t (x)")
        }
        let before = FileManager.default.contents(atPath: path)
        do {
            _ = try Database(path: path, encryption: .rawKey(try SecretBytes.random(count: 32), salt: salt))
            Issue.record("opened with a wrong key")
        } catch let error as DatabaseError {
            #expect(error.resultCode.primaryResultCode == .SQLITE_NOTADB)
        }
        #expect(FileManager.default.contents(atPath: path) == before)
    }

    @Test("values round-trip through bound parameters; errors carry the SQL but never bound values")
    func bindingAndErrors() throws {
        let database = try Database(
            path: directory.file("b.db"),
            encryption: .rawKey(try SecretBytes.random(count: 32), salt: try CryptoRandom.bytes(16))
        )
        try database.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT UNIQUE, b BLOB, n TEXT)")
        let blob = Data([0, 1, 2, 255])
        try database.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [42, 2.5, "فارسی 🙂", blob, Optional<String>.none])
        let row = try #require(try database.row("SELECT i, r, s, b, n FROM t"))
        #expect(try row.int(0) == 42)
        #expect(try row.double(1) == 2.5)
        #expect(try row.string(2) == "فارسی 🙂")
        #expect(try row.data(3) == blob)
        #expect(try row.optionalString(4) == nil)
        do {
            try database.execute("INSERT INTO t (s) VALUES (?)", ["secret-bound-value"])
            try database.execute("INSERT INTO t (s) VALUES (?)", ["secret-bound-value"])
            Issue.record("unique constraint not enforced")
        } catch let error as DatabaseError {
            #expect(error.resultCode.primaryResultCode == .SQLITE_CONSTRAINT)
            #expect(error.sql == "INSERT INTO t (s) VALUES (?)")
            #expect(!"\(error)".contains("secret-bound-value"))
        }
    }

    @Test("a failed transaction rolls back everything in it")
    func rollback() throws {
        let database = try Database(
            path: directory.file("t.db"),
            encryption: .rawKey(try SecretBytes.random(count: 32), salt: try CryptoRandom.bytes(16))
        )
        try database.execute("CREATE TABLE t (x INTEGER NOT NULL)")
        #expect(throws: DatabaseError.self) {
            try database.inTransaction {
                try database.execute("INSERT INTO t VALUES (1)", [])
                try database.execute("INSERT INTO t VALUES (NULL)", [])
            }
        }
        #expect(try database.scalarInt("SELECT count(*) FROM t") == 0)
    }

    @Test("a nested transaction is a savepoint: its failure undoes only its part; the outer commit keeps the rest")
    func nested() throws {
        let database = try Database(
            path: directory.file("n.db"),
            encryption: .rawKey(try SecretBytes.random(count: 32), salt: try CryptoRandom.bytes(16))
        )
        try database.execute("CREATE TABLE t (x INTEGER NOT NULL)")
        try database.inTransaction {
            try database.execute("INSERT INTO t VALUES (1)", [])
            #expect(throws: DatabaseError.self) {
                try database.inTransaction {
                    try database.execute("INSERT INTO t VALUES (2)", [])
                    try database.execute("INSERT INTO t VALUES (NULL)", [])
                }
            }
            try database.inTransaction { try database.execute("INSERT INTO t VALUES (3)", []) }
        }
        #expect(try database.rows("SELECT x FROM t ORDER BY x").map { try $0.int(0) } == [1, 3])
    }

    @Test("pragmas: temp store in memory, secure delete, foreign keys, FULL sync, rollback journal")
    func pragmas() throws {
        let database = try Database(
            path: directory.file("p.db"),
            encryption: .rawKey(try SecretBytes.random(count: 32), salt: try CryptoRandom.bytes(16))
        )
        #expect(try database.scalarInt("PRAGMA temp_store") == 2)
        #expect(try database.scalarInt("PRAGMA secure_delete") == 1)
        #expect(try database.scalarInt("PRAGMA foreign_keys") == 1)
        #expect(try database.scalarInt("PRAGMA synchronous") == 2)
        #expect(try database.row("PRAGMA journal_mode")?.string(0) == "delete")
        #expect(try database.row("PRAGMA cipher_page_size")?.string(0) == "4096")  // SQLCipher answers text: reads are strict now
    }
}

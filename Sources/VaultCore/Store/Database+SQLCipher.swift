import CSQLCipher
import Foundation

/// SQLCipher specifics: keying with a raw key, and exporting into a newly keyed file (key rotation).
extension Database {
    /// Keys the connection with `x'<64 hex key><32 hex salt>'` through `sqlite3_key`, never through SQL text.
    ///
    /// Guards the SQLCipher 3.4.1 trap where an empty key silently creates a plaintext database.
    func applyKey(_ key: SecretBytes, salt: [UInt8]) throws {
        guard key.count == 32, salt.count == 16, !key.isAllZero else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "refusing to key a database without a 32-byte key and 16-byte salt")
        }
        let literal = Self.rawKeyLiteral(key: key, salt: salt)
        let code = literal.withUnsafeBytes { buffer in
            sqlite3_key(handle, buffer.baseAddress, Int32(buffer.count))
        }
        guard code == SQLITE_OK else { throw error(code: code, sql: nil) }
    }

    /// The `x'...'` literal SQLCipher reads as a raw key with its salt, in a buffer wiped on release.
    public static func rawKeyLiteral(key: SecretBytes, salt: [UInt8]) -> SecretBytes {
        let hexDigits = Array("0123456789abcdef".utf8)
        return SecretBytes(count: 3 + 2 * (key.count + salt.count)) { out in
            var index = 0
            func put(_ byte: UInt8) {
                out[index] = byte
                index += 1
            }
            put(UInt8(ascii: "x"))
            put(UInt8(ascii: "'"))
            key.withUnsafeBytes { keyBytes in
                for byte in keyBytes {
                    put(hexDigits[Int(byte >> 4)])
                    put(hexDigits[Int(byte & 0x0F)])
                }
            }
            for byte in salt {
                put(hexDigits[Int(byte >> 4)])
                put(hexDigits[Int(byte & 0x0F)])
            }
            put(UInt8(ascii: "'"))
        }
    }

    /// Copies every table into a new database file keyed with `key` (the key-rotation path).
    ///
    /// The new key is attached through `sqlite3_key_v2` on the attached schema, so it never appears in SQL text.
    public func export(to path: String, key: SecretBytes, salt: [UInt8], cipherPageSize: Int) throws {
        guard key.count == 32, salt.count == 16, !key.isAllZero else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "refusing to export without a key")
        }
        let escapedPath = path.replacingOccurrences(of: "'", with: "''")
        // ATTACH with an empty KEY clause would create a plaintext file; key it through the C API right after.
        try execute("ATTACH DATABASE '\(escapedPath)' AS rotated KEY ''")
        defer { try? execute("DETACH DATABASE rotated") }
        let literal = Self.rawKeyLiteral(key: key, salt: salt)
        let code = literal.withUnsafeBytes { buffer in
            sqlite3_key_v2(handle, "rotated", buffer.baseAddress, Int32(buffer.count))
        }
        guard code == SQLITE_OK else { throw error(code: code, sql: nil) }
        try execute("PRAGMA rotated.cipher_page_size = \(cipherPageSize)")
        try execute("SELECT sqlcipher_export('rotated')")
        let version = try scalarInt("PRAGMA user_version")
        try execute("PRAGMA rotated.user_version = \(version)")
    }
}

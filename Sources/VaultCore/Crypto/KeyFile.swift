import Foundation
import VaultModel

/// `vault.key`: the vault id, the database salt, and the slots that each wrap the data key.
///
/// A SHA-256 checksum over the canonical encoding tells a damaged file from a wrong password. It is not a MAC:
/// tampering that recomputes it is caught by the GCM tag of each slot instead.
public struct KeyFile: Codable, Sendable, Equatable {
    public static let currentFormat = 1

    /// Bounds checked on every read and every write, before any key derivation. They bound the whole unlock, not
    /// one slot: a tampered file of many expensive slots must not hold the vault lock for hours.
    public enum Limits {
        public static let maxSlots = 16
        /// Rounds summed over all slots (about 25 s of PBKDF2-HMAC-SHA512 on the reference machine at worst).
        public static let maxTotalIterations = 20_000_000
        public static let maxSlotID = 9_999
        /// UTF-8 bytes of a slot label.
        public static let maxLabelBytes = 64
        /// The file itself; a valid one with every slot in use is under 8 KiB.
        public static let maxFileBytes = 64 * 1024
    }

    public var format: Int
    public var vaultID: String
    /// 16 bytes, hex: the SQLCipher salt, also the first 16 bytes of vault.db.
    public var databaseSalt: String
    public var cipherPageSize: Int
    public var slots: [KeySlot]
    public var checksum: String

    enum CodingKeys: String, CodingKey {
        case format, slots, checksum
        case vaultID = "vault_id"
        case databaseSalt = "database_salt"
        case cipherPageSize = "cipher_page_size"
    }

    public init(vaultID: String, databaseSalt: [UInt8], cipherPageSize: Int, slots: [KeySlot] = []) {
        self.format = Self.currentFormat
        self.vaultID = vaultID
        self.databaseSalt = Hex.encode(databaseSalt)
        self.cipherPageSize = cipherPageSize
        self.slots = slots
        self.checksum = ""
    }

    public var databaseSaltBytes: [UInt8] { Hex.decode(databaseSalt) ?? [] }

    // MARK: Encoding

    private static func canonicalEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return encoder
    }

    private func computedChecksum() throws -> String {
        var copy = self
        copy.checksum = ""
        return SHA256.hex(try Self.canonicalEncoder().encode(copy))
    }

    /// The file's bytes with a fresh checksum. Refuses to write what `decode` would refuse to read.
    public func encoded() throws -> Data {
        try checkLimits()
        var copy = self
        copy.checksum = try computedChecksum()
        return try Self.canonicalEncoder().encode(copy)
    }

    /// The bytes with a valid checksum but no limit checks: only for tests that build hostile key files, to prove
    /// the reader refuses what this writer would never write.
    @_spi(Testing) public func encodedWithoutLimits() throws -> Data {
        var copy = self
        copy.checksum = try computedChecksum()
        return try Self.canonicalEncoder().encode(copy)
    }

    /// Parses and checks structure and checksum; runs no KDF.
    public static func decode(_ data: Data) throws -> KeyFile {
        let file: KeyFile
        do {
            file = try JSONDecoder().decode(KeyFile.self, from: data)
        } catch {
            throw KeyFileError.malformed("not a valid key file")
        }
        guard file.format == currentFormat else { throw KeyFileError.unsupportedFormat(file.format) }
        guard try file.computedChecksum() == file.checksum else { throw KeyFileError.checksumMismatch }
        guard file.databaseSaltBytes.count == 16 else { throw KeyFileError.malformed("database salt is not 16 bytes") }
        guard [1024, 2048, 4096, 8192, 16384, 32768, 65536].contains(file.cipherPageSize) else {
            throw KeyFileError.malformed("page size \(file.cipherPageSize) is not valid")
        }
        try file.checkLimits()
        return file
    }

    /// Slot count, ids, labels and the total KDF cost: checked before any derivation.
    func checkLimits() throws {
        guard !slots.isEmpty, Set(slots.map(\.id)).count == slots.count else {
            throw KeyFileError.malformed("no usable key slots")
        }
        guard slots.count <= Limits.maxSlots else { throw KeyFileError.tooManySlots(slots.count) }
        for slot in slots {
            guard (1...Limits.maxSlotID).contains(slot.id) else { throw KeyFileError.malformed("slot id out of range") }
            try Self.checkLabel(slot.label)
            try slot.kdf.validate()
        }
        let total = slots.reduce(0) { $0 + $1.kdf.iterations }
        guard total <= Limits.maxTotalIterations else { throw KeyFileError.totalCostTooHigh(iterations: total) }
    }

    /// A label is short, printable text.
    public static func checkLabel(_ label: String) throws {
        guard !label.isEmpty, label.utf8.count <= Limits.maxLabelBytes,
            !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw KeyFileError.badLabel }
    }

    // MARK: Slots

    /// Tries each slot; returns the data key and the slot that opened it.
    public func unlock(password: SecretBytes) throws -> (key: SecretBytes, slotID: Int) {
        for slot in slots {
            if let key = try? slot.unwrap(password: password, format: format, vaultID: vaultID), key.count == 32 {
                return (key, slot.id)
            }
        }
        throw KeyFileError.wrongPassword
    }

    public mutating func addSlot(label: String, dataKey: SecretBytes, password: SecretBytes, iterations: Int, createdAt: Date) throws -> Int {
        guard slots.count < Limits.maxSlots else { throw KeyFileError.tooManySlots(slots.count + 1) }
        try Self.checkLabel(label)
        // The next id, or the lowest free one once ids reach the bound: never past maxSlotID, never an overflow.
        let next = (slots.map(\.id).max() ?? 0) + 1
        guard let id = next <= Limits.maxSlotID ? next : (1...Limits.maxSlotID).first(where: { candidate in !slots.contains { $0.id == candidate } })
        else { throw KeyFileError.tooManySlots(slots.count + 1) }
        let total = slots.reduce(iterations) { $0 + $1.kdf.iterations }
        guard total <= Limits.maxTotalIterations else { throw KeyFileError.totalCostTooHigh(iterations: total) }
        slots.append(
            try KeySlot.make(
                id: id,
                label: label,
                dataKey: dataKey,
                password: password,
                iterations: iterations,
                format: format,
                vaultID: vaultID,
                createdAt: createdAt
            )
        )
        return id
    }

    public mutating func replaceSlot(_ id: Int, dataKey: SecretBytes, password: SecretBytes, iterations: Int, createdAt: Date) throws {
        guard let index = slots.firstIndex(where: { $0.id == id }) else { throw KeyFileError.malformed("no slot \(id)") }
        slots[index] = try KeySlot.make(
            id: id,
            label: slots[index].label,
            dataKey: dataKey,
            password: password,
            iterations: iterations,
            format: format,
            vaultID: vaultID,
            createdAt: createdAt
        )
    }
}

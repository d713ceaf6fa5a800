import Foundation
import VaultLanguage
import VaultModel

/// The `config` keys, their defaults and the values each accepts.
public struct VaultSettings: Sendable {
    public struct Key: Sendable {
        public let name: String
        public let defaultValue: Int
        public let range: ClosedRange<Int>
        public let help: String
    }

    public static let keys: [Key] = [
        Key(
            name: "cache.max_bytes",
            defaultValue: 500 * 1_000_000,
            range: 1_000_000...100_000_000_000,
            help: tr("most bytes of cached assessments (compressed)")
        ),
        Key(name: "cache.max_assessments", defaultValue: 50, range: 1...10_000, help: tr("most cached assessments")),
        Key(name: "cache.ttl_days", defaultValue: 7, range: 1...365, help: tr("days a download stays valid")),
        Key(
            name: "cache.max_document_bytes",
            defaultValue: 10 * 1024 * 1024,
            range: 1024...(10 * 1024 * 1024),
            help: tr("largest accepted assessment, uncompressed")
        ),
        Key(name: "sync.batch_size", defaultValue: 10, range: 1...500, help: tr("answers per upload batch")),
        Key(
            name: "sync.max_batch_bytes",
            defaultValue: 256 * 1024,
            range: 1024...(8 * 1024 * 1024),
            help: tr("most bytes per upload batch")
        ),
        Key(
            name: "sync.max_tries",
            defaultValue: 12,
            range: 1...100,
            help: tr("tries before an upload becomes a dead letter (12: about 34 minutes)")
        ),
        Key(name: "download.prefetch", defaultValue: 0, range: 0...50, help: tr("next assessments fetched ahead by sync")),
        Key(name: "take.accessible", defaultValue: 0, range: 0...1, help: tr("1: the take screen speaks in sentences (screen readers)")),
        Key(
            name: "display.pictures",
            defaultValue: 0,
            range: 0...4,
            help: tr("pictures: 0 as the terminal allows, 1 off, 2 symbols, 3 sixel, 4 kitty")
        ),
    ]

    public static func key(named name: String) throws -> Key {
        guard let key = keys.first(where: { $0.name == name }) else {
            let known = keys.map(\.name).joined(separator: ", ")
            throw VaultError(.usage, tr("There is no setting called {name}. Known settings: {known}.", ["name": name, "known": known]))
        }
        return key
    }

    private let stored: [String: String]

    init(stored: [String: String]) { self.stored = stored }

    public func value(_ name: String) -> Int {
        guard let key = Self.keys.first(where: { $0.name == name }) else { return 0 }
        return stored[name].flatMap(Int.init) ?? key.defaultValue
    }

    public var all: [(key: Key, value: Int, isDefault: Bool)] {
        Self.keys.map { key in
            let value = stored[key.name].flatMap(Int.init)
            return (key, value ?? key.defaultValue, value == nil)
        }
    }

    public var maxCacheBytes: Int { value("cache.max_bytes") }
    public var maxAssessments: Int { value("cache.max_assessments") }
    public var ttlDays: Int { value("cache.ttl_days") }
    public var batchSize: Int { value("sync.batch_size") }
    public var maxBatchBytes: Int { value("sync.max_batch_bytes") }
}

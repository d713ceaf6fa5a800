import Foundation
import VaultCore

extension Console {
    /// The end of a listing read from one table: each row that did not read back named on stderr (never left out in
    /// silence), `--json` as `{KEY: [...], "damaged": [...]}` (`damaged` absent when none), and exit 65 when any row
    /// was damaged, after the others were shown.
    func emit<Value: Encodable>(_ kept: Kept<Value>, as key: String) throws {
        for damaged in kept.damaged { warn(damaged.sentence) }
        emit(KeptOutput(key: key, values: kept.values, damaged: kept.damaged))
        if let first = kept.damaged.first { throw CommandExit(code: VaultExit.code(for: first.error)) }
    }
}

/// `--json` of a listing: its values under their key, the damaged rows under `damaged` when there are any.
private struct KeptOutput<Value: Encodable>: Encodable {
    let key: String
    let values: [Value]
    let damaged: [DamagedRow]

    struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(values, forKey: Key(stringValue: key))
        if !damaged.isEmpty { try container.encode(damaged, forKey: Key(stringValue: "damaged")) }
    }
}

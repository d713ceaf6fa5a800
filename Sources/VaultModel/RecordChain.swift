import Crypto
import Foundation
import VaultAPI

/// The hash chain of an attempt's record: each event's hash is SHA-256 of its canonical text, which names the hash
/// before it. The chain's head (the last hash) and length are what a vault key signs.
public enum RecordChain {
    /// Why a chain does not verify, in words a teacher reads.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case outOfOrder(seq: Int)
        case broken(seq: Int)
        case changed(seq: Int)
        case tooLong

        public var description: String {
            switch self {
            case .outOfOrder(let seq): "event \(seq) is out of order or missing"
            case .broken(let seq): "event \(seq) does not follow the one before it"
            case .changed(let seq): "event \(seq) was changed after it was written"
            case .tooLong: "it holds more events than any record may"
            }
        }
    }

    public static func hash(_ event: RecordEvent) -> String { Digest.hex(Data(event.canonical.utf8)) }

    /// The next event after `last` (nil: the first), hashed.
    public static func next(
        after last: RecordEvent?,
        at: String,
        bootMs: Int64,
        kind: RecordEvent.Kind,
        question: String?,
        count: Int?
    ) -> RecordEvent {
        var event = RecordEvent(
            seq: (last?.seq ?? 0) + 1,
            at: at,
            bootMs: bootMs,
            kind: kind,
            question: question,
            count: count,
            previous: last?.hash ?? RecordEvent.firstPrevious
        )
        event.hash = hash(event)
        return event
    }

    /// The head of a chain (its last hash; the zeros for none).
    public static func head(_ events: [RecordEvent]) -> String { events.last?.hash ?? RecordEvent.firstPrevious }

    /// Checks every link: numbered from 1 without a gap, each naming the hash before it, each hash its own.
    public static func verify(_ events: [RecordEvent]) -> Problem? {
        guard events.count <= AttemptLogUpload.maxEvents else { return .tooLong }
        var previous = RecordEvent.firstPrevious
        for (index, event) in events.enumerated() {
            guard event.seq == index + 1 else { return .outOfOrder(seq: index + 1) }
            guard event.previous == previous else { return .broken(seq: event.seq) }
            guard hash(event) == event.hash else { return .changed(seq: event.seq) }
            previous = event.hash
        }
        return nil
    }
}

/// Ed25519 signatures as the vault keys make them: raw 32-byte public keys and signatures, base64.
public enum Signatures {
    /// Whether `signature` is `publicKey`'s over `bytes` (false for anything malformed).
    public static func isValid(_ signature: String, for bytes: Data, publicKey: String) -> Bool {
        guard let raw = Data(base64Encoded: publicKey), let signature = Data(base64Encoded: signature),
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
        else { return false }
        return key.isValidSignature(signature, for: bytes)
    }
}

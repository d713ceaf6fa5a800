import Crypto
import Foundation
import VaultAPI

/// SHA-256 over swift-crypto, for what both sides name by its hash (served documents, receipts' answers) and what
/// the rules and the take screen need without linking OpenSSL.
enum Digest {
    static func hex(_ data: some DataProtocol) -> String { Hex.encode(Crypto.SHA256.hash(data: Data(data))) }
}

/// The SHA-256 (hex) of an answer's canonical JSON: how a receipt names an answer without holding it.
public func answerDigest(canonicalAnswer: some DataProtocol) -> String {
    Hex.encode(Crypto.SHA256.hash(data: Data(canonicalAnswer)))
}

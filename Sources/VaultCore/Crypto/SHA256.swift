import COpenSSL
import Foundation
import VaultModel

/// SHA-256 through OpenSSL's EVP digest interface.
public enum SHA256 {
    public static func hash(_ data: some DataProtocol) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let bytes = Array(data)
        _ = bytes.withUnsafeBytes { buffer in
            EVP_Digest(buffer.baseAddress, buffer.count, &digest, &length, EVP_sha256(), nil)
        }
        return digest
    }

    public static func hex(_ data: some DataProtocol) -> String { Hex.encode(hash(data)) }
}

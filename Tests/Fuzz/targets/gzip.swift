import CVaultZlib
import Foundation
import VaultCore

// Gzip decompression under caps. For any input: a typed `Gzip.Failure`, or output that is within the cap and is
// exactly what the member's own trailer says (CRC-32 and length, checked here with zlib's crc32, independently of
// the decoder). Every input also round-trips through our compressor.

let limits = Gzip.Limits(maxOutputBytes: 1 << 20)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    do {
        let output = try Gzip.decompress(data, limits: limits)
        require(output.count <= limits.maxOutputBytes, "output of \(output.count) bytes is over the cap")
        let trailer = data.suffix(8).map(UInt32.init)
        let crc = trailer[0] | trailer[1] << 8 | trailer[2] << 16 | trailer[3] << 24
        let size = trailer[4] | trailer[5] << 8 | trailer[6] << 16 | trailer[7] << 24
        let actual = output.withUnsafeBytes { UInt32(crc32(0, $0.bindMemory(to: Bytef.self).baseAddress, uInt($0.count))) }
        require(actual == crc, "accepted output whose CRC-32 is not the trailer's")
        require(UInt32(truncatingIfNeeded: output.count) == size, "accepted output whose length is not the trailer's")
    } catch is Gzip.Failure {
    } catch {
        require(false, "untyped error \(error)")
    }
    if data.count <= 64 * 1024 {
        let compressed = try? Gzip.compress(data)
        require(compressed != nil, "compress failed")
        var roomy = Gzip.Limits(maxOutputBytes: 1 << 20)
        roomy.maxRatio = Int.max
        require((try? Gzip.decompress(compressed!, limits: roomy)) == data, "round trip lost bytes")
    }
    return 0
}

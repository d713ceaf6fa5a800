import CVaultZlib
import Foundation
import Testing
import VaultAPI
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite(.ownThreads)
struct GzipTests {
    let sample = Data(String(repeating: "Algebra: 2x = 10. x = ? سؤال 问题 🙂\n", count: 500).utf8)

    @Test("round trip, and `gzip -d` reads what we write")
    func roundTrip() throws {
        let compressed = try Gzip.compress(sample)
        #expect(compressed.count < sample.count / 5)
        #expect(try Gzip.decompress(compressed) == sample)
        let directory = TemporaryDirectory("gzip")
        let path = directory.file("blob.gz")
        FileManager.default.createFile(atPath: path, contents: compressed)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-d", "-c", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(output == sample)
    }

    @Test("a bomb is cut at the ratio cap")
    func bombRatio() throws {
        let bomb = try Gzip.compress(Data(count: 40 * 1024 * 1024))
        #expect(bomb.count < 100_000)
        #expect(throws: Gzip.Failure.ratioExceeded(ratio: 200)) { try Gzip.decompress(bomb) }
    }

    @Test("output beyond the hard cap is refused, with memory bounded near the cap")
    func outputCap() throws {
        let bomb = try Gzip.compress(Data(count: 64 * 1024 * 1024))
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let before = usage.ru_maxrss
        var limits = Gzip.Limits(maxOutputBytes: 4 * 1024 * 1024)
        limits.maxRatio = Int.max
        #expect(throws: Gzip.Failure.tooLarge(limit: 4 * 1024 * 1024)) { try Gzip.decompress(bomb, limits: limits) }
        getrusage(RUSAGE_SELF.rawValue, &usage)
        // ru_maxrss is in KiB; decompressing all 64 MiB would raise the peak far beyond 32 MiB.
        #expect(usage.ru_maxrss - before < 32 * 1024)
    }

    @Test("bad CRC, lying ISIZE, truncation, trailing bytes and a second member are errors")
    func hostileTrailers() throws {
        let good = try Gzip.compress(sample)
        var badCRC = good
        badCRC[badCRC.count - 8] ^= 0xFF
        #expect(throws: Gzip.Failure.self) { try Gzip.decompress(badCRC) }

        var lyingSize = good
        lyingSize[lyingSize.count - 1] = 0x7F  // ISIZE claims ~2 GB
        #expect(throws: Gzip.Failure.self) { try Gzip.decompress(lyingSize) }

        #expect(throws: Gzip.Failure.truncated) { try Gzip.decompress(good.prefix(good.count - 4)) }
        #expect(throws: Gzip.Failure.trailingData) { try Gzip.decompress(good + Data([0, 1, 2])) }
        #expect(throws: Gzip.Failure.trailingData) { try Gzip.decompress(good + good) }
        #expect(throws: Gzip.Failure.notGzip) { try Gzip.decompress(Data("{\"id\":1}".utf8)) }
        #expect(throws: Gzip.Failure.notGzip) { try Gzip.decompress(Data()) }

        var corruptBody = good
        corruptBody[12] ^= 0xFF
        #expect(throws: Gzip.Failure.self) { try Gzip.decompress(corruptBody) }
    }

    @Test("random bytes after a gzip header never crash", arguments: 0..<20)
    func fuzzedBodies(seed: Int) throws {
        var generator = SplitMix64(seed: UInt64(seed + 1))
        var data = Data([0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0x03])
        data.append(contentsOf: (0..<(16 + seed * 37)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try Self.requireGzipContract(data, limits: Gzip.Limits(maxOutputBytes: 64 * 1024))
        // And what we compress comes back exactly.
        #expect(try Gzip.decompress(try Gzip.compress(data)) == data)
    }

    /// The decoder's contract for any input: a typed `Gzip.Failure`, or output within the cap that is exactly what
    /// the member's trailer says (CRC-32 and length, computed here with zlib's `crc32`, not by the decoder).
    static func requireGzipContract(_ data: Data, limits: Gzip.Limits) throws {
        let output: Data
        do {
            output = try Gzip.decompress(data, limits: limits)
        } catch is Gzip.Failure {
            return
        }
        #expect(output.count <= limits.maxOutputBytes)
        let trailer = data.suffix(8).map(UInt32.init)
        let crc = trailer[0] | trailer[1] << 8 | trailer[2] << 16 | trailer[3] << 24
        let size = trailer[4] | trailer[5] << 8 | trailer[6] << 16 | trailer[7] << 24
        #expect(output.withUnsafeBytes { UInt32(crc32(0, $0.bindMemory(to: Bytef.self).baseAddress, uInt($0.count))) } == crc)
        #expect(UInt32(truncatingIfNeeded: output.count) == size)
    }
}

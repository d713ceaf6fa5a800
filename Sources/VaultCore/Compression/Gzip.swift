import CVaultZlib
import Foundation

/// gzip (RFC 1952) through zlib, one member per blob, decompressed as a stream under hard caps.
public enum Gzip {
    /// Limits for decompressing untrusted input. The ISIZE trailer is never used for allocation.
    public struct Limits: Sendable {
        /// Most bytes the output may reach (10 MB: the per-assessment limit).
        public var maxOutputBytes: Int = 10 * 1024 * 1024
        /// Output larger than this many times the input is a bomb, once past `ratioGrace` bytes.
        public var maxRatio: Int = 200
        public var ratioGrace: Int = 1024 * 1024

        public init(maxOutputBytes: Int = 10 * 1024 * 1024, maxRatio: Int = 200) {
            self.maxOutputBytes = maxOutputBytes
            self.maxRatio = maxRatio
        }
    }

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case notGzip
        case corrupt(String)
        case truncated
        case trailingData
        case tooLarge(limit: Int)
        case ratioExceeded(ratio: Int)

        public var description: String {
            switch self {
            case .notGzip: "not gzip data"
            case .corrupt(let why): "damaged gzip data (\(why))"
            case .truncated: "gzip data ends early"
            case .trailingData: "unexpected bytes after the gzip data"
            case .tooLarge(let limit): "decompressed data is larger than \(limit) bytes"
            case .ratioExceeded(let ratio): "compression ratio above \(ratio):1, refusing a likely bomb"
            }
        }
    }

    /// How many times smaller `data` is gzip-compressed, when that is past what `limits` take as a bomb (nil
    /// otherwise): a document published on the server must come down to the vaults, which decompress it under
    /// these limits (issue 70: a publish took one the vaults then refused).
    public static func bombRatio(of data: Data, limits: Limits = Limits()) -> Int? {
        guard data.count > limits.ratioGrace, let compressed = try? compress(data) else { return nil }
        let ratio = data.count / max(compressed.count, 1)
        return ratio > limits.maxRatio ? ratio : nil
    }

    public static func compress(_ data: Data, level: Int32 = 6) throws -> Data {
        var stream = z_stream()
        guard vault_deflate_init_gzip(&stream, level) == Z_OK else { throw Failure.corrupt("deflateInit2") }
        defer { deflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = [UInt8](data)
        let status: Int32 = input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            var code: Int32 = Z_OK
            repeat {
                code = chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    return deflate(&stream, Z_FINISH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                output.append(contentsOf: chunk[0..<produced])
            } while code == Z_OK || code == Z_BUF_ERROR && stream.avail_out == 0
            return code
        }
        guard status == Z_STREAM_END else { throw Failure.corrupt("deflate \(status)") }
        return output
    }

    /// Decompresses exactly one gzip member; CRC and length are checked by zlib, trailing bytes are refused.
    public static func decompress(_ data: Data, limits: Limits = .init()) throws -> Data {
        guard data.count >= 18, data[data.startIndex] == 0x1F, data[data.startIndex + 1] == 0x8B else {
            throw Failure.notGzip
        }
        var stream = z_stream()
        guard vault_inflate_init_gzip(&stream) == Z_OK else { throw Failure.corrupt("inflateInit2") }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = [UInt8](data)
        try input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            while true {
                let code = chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                if output.count + produced > limits.maxOutputBytes { throw Failure.tooLarge(limit: limits.maxOutputBytes) }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limits.ratioGrace, output.count / max(inputBuffer.count, 1) > limits.maxRatio {
                    throw Failure.ratioExceeded(ratio: limits.maxRatio)
                }
                switch code {
                case Z_STREAM_END:
                    // A second member or garbage after the trailer is an error, not something to ignore.
                    if stream.avail_in != 0 { throw Failure.trailingData }
                    return
                case Z_OK:
                    continue
                case Z_BUF_ERROR:
                    if stream.avail_in == 0 { throw Failure.truncated }
                    continue
                case Z_DATA_ERROR:
                    throw Failure.corrupt(stream.msg.map { String(cString: $0) } ?? "data error")
                default:
                    throw Failure.corrupt("inflate \(code)")
                }
            }
        }
        return output
    }
}

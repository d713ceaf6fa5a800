import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a bidi-aware terminal shows for a line: GNU FriBidi's reordering (the library mlterm draws with), loaded at
/// run time from libfribidi0 (scripts/setup --tests installs it). The paragraph's direction comes from its text, as a
/// terminal's does: a line that begins with U+200F is right to left. Marks and isolates are dropped after reordering.
public enum BidiView {
    public struct Line: Equatable, Sendable {
        public let rightToLeft: Bool
        public let visual: String
    }

    private typealias LogToVisual =
        @convention(c) (
            UnsafePointer<UInt32>, Int32, UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<UInt32>, OpaquePointer?, OpaquePointer?,
            OpaquePointer?
        ) -> Int8

    private static let logToVisual: LogToVisual? = {
        guard let library = dlopen("libfribidi.so.0", RTLD_NOW), let symbol = dlsym(library, "fribidi_log2vis") else { return nil }
        return unsafeBitCast(symbol, to: LogToVisual.self)
    }()

    /// The line as shown, or a failure naming the missing library (never a silent pass).
    public static func show(_ line: String) throws -> Line {
        guard let logToVisual else {
            throw NSError(domain: "BidiView", code: 1, userInfo: [NSLocalizedDescriptionKey: "libfribidi.so.0 is missing: run scripts/setup --tests"])
        }
        let logical = line.unicodeScalars.map(\.value)
        var visual = [UInt32](repeating: 0, count: max(logical.count, 1))
        var direction: UInt32 = 0x0000_0040  // FRIBIDI_PAR_ON: from the text
        _ = logical.withUnsafeBufferPointer { source in
            logToVisual(source.baseAddress!, Int32(logical.count), &direction, &visual, nil, nil, nil)
        }
        let marks: Set<UInt32> = [0x200E, 0x200F, 0x2066, 0x2067, 0x2068, 0x2069]
        let text = String(String.UnicodeScalarView(visual.prefix(logical.count).filter { !marks.contains($0) }.compactMap(Unicode.Scalar.init)))
        return Line(rightToLeft: direction & 1 == 1, visual: text)
    }
}

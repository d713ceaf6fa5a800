import CChafa
import Foundation

/// How pictures are drawn on a terminal (issue 56): `--pictures`, the `take.pictures` setting, else what the terminal
/// says it is.
public enum PictureMode: String, CaseIterable, Sendable, Codable {
    /// What the terminal supports: kitty's graphics, sixel, else symbols.
    case auto
    /// Unicode block and braille characters, in colour where the terminal has colour.
    case symbols
    case sixel
    case kitty
    /// Never drawn: the description is shown instead.
    case off

    /// The `take.pictures` setting's number for each mode (settings are numbers).
    public static func setting(_ value: Int) -> PictureMode {
        switch value {
        case 1: .off
        case 2: .symbols
        case 3: .sixel
        case 4: .kitty
        default: .auto
        }
    }

    /// `auto` made concrete from the environment: kitty where kitty runs, sixel on terminals known to have it,
    /// symbols everywhere else. A terminal cannot be asked without reading its answer from the keyboard, so the
    /// environment decides; `--pictures` overrides it.
    public func resolved(environment: [String: String]) -> PictureMode {
        guard self == .auto else { return self }
        let term = environment["TERM"] ?? ""
        if environment["KITTY_WINDOW_ID"] != nil || term == "xterm-kitty" { return .kitty }
        if term.hasPrefix("foot") || term.hasPrefix("mlterm") || environment["TERM_PROGRAM"] == "WezTerm" || term.contains("sixel") {
            return .sixel
        }
        return .symbols
    }
}

/// The colours a picture may use: none (NO_COLOR: the shapes only), 16, 256 or true colour, from the environment.
public enum PictureColors: Int32, Sendable {
    case none = 0
    case sixteen = 1
    case indexed256 = 2
    case trueColor = 3

    public static func from(environment: [String: String], color: Bool) -> PictureColors {
        guard color else { return .none }
        let colorTerm = environment["COLORTERM"] ?? ""
        if colorTerm == "truecolor" || colorTerm == "24bit" { return .trueColor }
        return (environment["TERM"] ?? "").contains("256") ? .indexed256 : .sixteen
    }
}

/// A picture decoded by libpng or libjpeg-turbo and drawn by libchafa, never by hand. Everything a picture could do
/// wrong (lie about its type, be truncated, be 30,000 pixels square) ends as a `Problem`, and the caller shows the
/// description instead.
public enum TerminalPicture {
    /// Pixels a picture may have (16 million: 64 MB decoded), checked from its header before any pixel is decoded.
    public static let maxPixels: UInt64 = 16_000_000

    public enum Problem: Error, Sendable, Equatable {
        /// Neither a PNG nor a JPEG, whatever it claims to be.
        case unknownType
        /// Truncated or damaged.
        case damaged
        /// More pixels than `maxPixels`.
        case tooLarge
    }

    /// Decoded pixels, RGBA 8 bits a channel.
    public struct Pixels: Sendable {
        public let rgba: [UInt8]
        public let width: Int
        public let height: Int
    }

    public static func decode(_ data: Data) throws(Problem) -> Pixels {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: UInt32 = 0
        var height: UInt32 = 0
        let status = data.withUnsafeBytes { bytes -> Int32 in
            guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return Int32(VAULT_PICTURE_UNKNOWN_TYPE) }
            return vault_picture_decode(base, bytes.count, maxPixels, &pixels, &width, &height)
        }
        defer { free(pixels) }
        switch status {
        case Int32(VAULT_PICTURE_OK):
            guard let pixels else { throw .damaged }
            return Pixels(
                rgba: Array(UnsafeBufferPointer(start: pixels, count: Int(width) * Int(height) * 4)),
                width: Int(width),
                height: Int(height)
            )
        case Int32(VAULT_PICTURE_UNKNOWN_TYPE): throw .unknownType
        case Int32(VAULT_PICTURE_TOO_LARGE), Int32(VAULT_PICTURE_NO_MEMORY): throw .tooLarge
        default: throw .damaged
        }
    }

    /// The picture as terminal output fitted inside `columns` x `rows` cells: symbol rows separated by newlines, or
    /// one sixel or kitty sequence. `mode` must be resolved (`symbols`, `sixel` or `kitty`).
    public static func draw(_ pixels: Pixels, columns: Int, rows: Int, mode: PictureMode, colors: PictureColors) -> String {
        let pixelMode: Int32 =
            switch mode {
            case .kitty: 2
            case .sixel: 1
            default: 0
            }
        var length = 0
        let text = pixels.rgba.withUnsafeBufferPointer { buffer -> UnsafeMutablePointer<CChar>? in
            guard let base = buffer.baseAddress else { return nil }
            return vault_picture_draw(
                base,
                UInt32(pixels.width),
                UInt32(pixels.height),
                Int32(max(1, columns)),
                Int32(max(1, rows)),
                pixelMode,
                Int32(colors.rawValue),
                &length
            )
        }
        guard let text else { return "" }
        defer { free(text) }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
    }
}

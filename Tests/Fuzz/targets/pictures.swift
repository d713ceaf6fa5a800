import Foundation
import VaultTerminal

// A question's picture on its way to the terminal (issue 56): any bytes are decoded by libpng or libjpeg-turbo
// under the pixel cap and drawn by libchafa. For any input: a typed `TerminalPicture.Problem`, or pixels within the
// cap whose buffer is exactly width x height x 4; drawing them as symbols (with and without colour) never crashes
// and stays inside its box.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    do throws(TerminalPicture.Problem) {
        let pixels = try TerminalPicture.decode(data)
        require(UInt64(pixels.width) * UInt64(pixels.height) <= TerminalPicture.maxPixels, "decoded past the pixel cap")
        require(pixels.rgba.count == pixels.width * pixels.height * 4, "a pixel buffer of the wrong size")
        // Drawing a picture of millions of pixels is slow work, not a fault: only small ones are drawn here.
        if pixels.width * pixels.height <= 1 << 16 {
            for colors in [PictureColors.none, .indexed256] {
                let drawn = TerminalPicture.draw(pixels, columns: 40, rows: 10, mode: .symbols, colors: colors)
                require(drawn.split(separator: "\n").count <= 10, "drawn taller than its box")
            }
        }
    } catch {}
    return 0
}

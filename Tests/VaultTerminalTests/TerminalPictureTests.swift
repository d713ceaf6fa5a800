import Foundation
import Testing
import VaultTerminal

/// Pictures decoded by libjpeg-turbo with its own limits (issue 70): a progressive JPEG of many scans is refused
/// after the scan limit, not decoded for minutes.
struct TerminalPictureTests {
    /// 48 x 32 pixels, progressive (libjpeg's simple progression: 10 scans), made by libjpeg-turbo's encoder.
    static let progressive = Data(
        base64Encoded:
            "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wgARCAAgADADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAABAUG/8QAFwEBAQEBAAAAAAAAAAAAAAAABAUDB//aAAwDAQACEAMQAAABwCHIrnChyD1wocg9eahyMubBQ5B64UOQev8A/8QAFhAAAwAAAAAAAAAAAAAAAAAAAAEC/9oACAEBAAEFAlAoFAoFAoFAoFAoFAoFAoFAoFAoFAoFAoFAoP/EABURAQEAAAAAAAAAAAAAAAAAAAMA/9oACAEDAQE/AReF4XheF4Xv/8QAFhEAAwAAAAAAAAAAAAAAAAAAAAID/9oACAECAQE/AWsNYaw1hrDWP//EABQQAQAAAAAAAAAAAAAAAAAAAED/2gAIAQEABj8CR//EABQQAQAAAAAAAAAAAAAAAAAAAED/2gAIAQEAAT8hR/8A/wD/AP8A/wD/AP/aAAwDAQACAAMAAAAQ8+6xBC//xAAWEQADAAAAAAAAAAAAAAAAAAAAITH/2gAIAQMBAT8QmybJsmybJs//xAAUEQEAAAAAAAAAAAAAAAAAAAAg/9oACAECAQE/EEAB/8QAFxABAQEBAAAAAAAAAAAAAAAAAGEhMf/aAAgBAQABPxCaaaaaaaaaaaaaaaaaaaaabnib/9k="
    )!

    /// `progressive` with its last scan repeated `times` times before the end: the shape of the file that froze the
    /// take screen (60,000 scans, each one decoded over the whole picture).
    static func manyScans(_ times: Int) throws -> Data {
        let bytes = [UInt8](progressive)
        let starts = bytes.indices.dropLast().filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }
        let last = try #require(starts.last)
        let end = try #require(bytes.indices.dropLast().last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD9 })
        let scan = bytes[last..<end]
        return Data(bytes[..<end] + Array(repeating: scan, count: times).joined() + bytes[end...])
    }

    @Test("a progressive JPEG decodes; the same with 1,000 scans more is refused as too large, at once")
    func scanLimit() throws {
        let pixels = try TerminalPicture.decode(Self.progressive)
        #expect(pixels.width == 48 && pixels.height == 32)
        #expect(throws: TerminalPicture.Problem.tooLarge) { try TerminalPicture.decode(try Self.manyScans(1_000)) }
        // A few repeated scans stay under the limit (a damaged but small file: shown or refused as damaged, never hung).
        _ = try? TerminalPicture.decode(try Self.manyScans(3))
    }
}

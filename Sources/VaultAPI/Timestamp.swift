import Foundation

/// RFC 3339 timestamps with milliseconds, as the wire contract writes them; reading also takes them without.
///
/// The format styles are Sendable values made once: formatting and parsing are on hot paths (every answer saved,
/// every item of a batch on the server).
public enum Timestamp {
    private static let withMilliseconds = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutMilliseconds = Date.ISO8601FormatStyle()

    /// The instant to the nearest millisecond, `2026-11-20T10:00:00.123Z`. Written from the whole milliseconds, so a
    /// time kept as milliseconds writes the same text every time (the format style truncates a binary fraction: it
    /// wrote .122 for half of the instants stored as .123).
    public static func string(_ date: Date) -> String {
        string(milliseconds: Int64(Int(saturating: (date.timeIntervalSince1970 * 1000).rounded())))
    }

    /// Milliseconds since 1970 as RFC 3339 UTC with three fraction digits.
    public static func string(milliseconds: Int64) -> String {
        // Years 1900-9999 by the days-to-civil algorithm; anything else by the format style.
        guard milliseconds >= -2_208_988_800_000, milliseconds < 253_402_300_800_000 else {
            return withMilliseconds.format(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        }
        let millisecond = Int(((milliseconds % 1000) + 1000) % 1000)
        let totalSeconds = Int((milliseconds - Int64(millisecond)) / 1000)  // numbers-check: an Int64 within the years above
        let secondOfDay = ((totalSeconds % 86_400) + 86_400) % 86_400
        let days = (totalSeconds - secondOfDay) / 86_400 + 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var bytes = [UInt8](repeating: 0, count: 24)
        func put(_ value: Int, _ at: Int, _ width: Int) {
            var value = value
            for offset in stride(from: at + width - 1, through: at, by: -1) {
                bytes[offset] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(year, 0, 4)
        put(month, 5, 2)
        put(day, 8, 2)
        put(secondOfDay / 3600, 11, 2)
        put(secondOfDay / 60 % 60, 14, 2)
        put(secondOfDay % 60, 17, 2)
        put(millisecond, 20, 3)
        for (at, mark) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "."), (23, "Z")] as [(Int, Unicode.Scalar)] {
            bytes[at] = UInt8(ascii: mark)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func string(epoch: Double) -> String { string(Date(timeIntervalSince1970: epoch)) }

    /// "Mon 23 Nov 2026, 14:05 UTC": what a person reads in a server's sentence or on the teacher's desk (the
    /// server cannot know the reader's time zone, so it says which one it uses).
    public static func readable(_ date: Date) -> String { date.formatted(readableStyle) + " UTC" }

    /// Made once: building the style parses its format (a roster formats thousands of dates).
    private static let readableStyle = Date.VerbatimFormatStyle(
        format:
            "\(weekday: .abbreviated) \(day: .defaultDigits) \(month: .abbreviated) \(year: .defaultDigits), \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits)",
        locale: Locale(identifier: "en_US_POSIX"),
        timeZone: .gmt,
        calendar: Calendar(identifier: .gregorian)
    )

    public static func readable(epoch: Double) -> String { readable(Date(timeIntervalSince1970: epoch)) }

    /// An RFC 3339 timestamp made readable; text that is not one is returned as it is.
    public static func readable(_ text: String) -> String { date(text).map(readable) ?? text }

    /// The instant, to the millisecond (the contract's precision; the parser's binary fraction is rounded away).
    public static func date(_ text: String) -> Date? {
        if let milliseconds = plainMilliseconds(text) { return Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        guard let parsed = (try? withMilliseconds.parse(text)) ?? (try? withoutMilliseconds.parse(text)) else { return nil }
        return Date(timeIntervalSince1970: (parsed.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// Milliseconds since 1970, rounded, or nil when `text` is not RFC 3339.
    public static func milliseconds(_ text: String) -> Int64? {
        plainMilliseconds(text) ?? date(text).map { Int64(Int(saturating: ($0.timeIntervalSince1970 * 1000).rounded())) }
    }

    /// The form this contract writes (`2026-11-20T10:00:00.000Z`, also without the fraction or with an offset such
    /// as `+05:30`) read without a formatter, for a valid date and time between the years 1900 and 9999; nil for
    /// anything else, which the format styles then judge. `TimestampTests` compares the two on many instants.
    static func plainMilliseconds(_ text: String) -> Int64? {
        let count = text.utf8.count
        guard count == 20 || count == 24 || count == 25 || count == 29 else { return nil }
        return text.utf8.withContiguousStorageIfAvailable { b -> Int64? in
            func number(_ at: Int, _ length: Int) -> Int? {
                var value = 0
                for offset in at..<(at + length) {
                    let digit = b[offset] &- UInt8(ascii: "0")
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int(digit)
                }
                return value
            }
            guard b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"),
                b[16] == UInt8(ascii: ":"),
                let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
                let minute = number(14, 2), let second = number(17, 2),
                (1900...9999).contains(year), (1...12).contains(month), hour < 24, minute < 60, second < 60
            else { return nil }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            guard (1...monthDays).contains(day) else { return nil }
            var position = 19
            var millisecond = 0
            if b[position] == UInt8(ascii: ".") {
                guard count - position >= 5, let fraction = number(position + 1, 3) else { return nil }
                millisecond = fraction
                position += 4
            }
            var offsetMinutes = 0
            switch (b[position], count - position) {
            case (UInt8(ascii: "Z"), 1): break
            case (UInt8(ascii: "+"), 6), (UInt8(ascii: "-"), 6):
                guard b[position + 3] == UInt8(ascii: ":"), let offsetHour = number(position + 1, 2),
                    let offsetMinute = number(position + 4, 2), offsetHour < 24, offsetMinute < 60
                else { return nil }
                offsetMinutes = (offsetHour * 60 + offsetMinute) * (b[position] == UInt8(ascii: "+") ? 1 : -1)
            default: return nil
            }
            // Days since 1970-01-01 in the proleptic Gregorian calendar (the civil-from-days algorithm, inverted).
            let y = month <= 2 ? year - 1 : year
            let era = y / 400
            let yearOfEra = y - era * 400
            let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            let days = era * 146_097 + dayOfEra - 719_468
            let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second - offsetMinutes * 60
            return Int64(seconds) * 1000 + Int64(millisecond)
        } ?? nil
    }
}

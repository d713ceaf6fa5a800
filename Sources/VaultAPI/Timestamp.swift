import Foundation

/// RFC 3339 timestamps with milliseconds, as the wire contract writes them; reading also takes them without.
///
/// The format styles are Sendable values made once: formatting and parsing are on hot paths (every answer saved,
/// every item of a batch on the server).
public enum Timestamp {
    private static let withMilliseconds = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutMilliseconds = Date.ISO8601FormatStyle()

    public static func string(_ date: Date) -> String { withMilliseconds.format(date) }

    public static func string(epoch: Double) -> String { string(Date(timeIntervalSince1970: epoch)) }

    /// The instant, to the millisecond (the contract's precision; the parser's binary fraction is rounded away).
    public static func date(_ text: String) -> Date? {
        guard let parsed = (try? withMilliseconds.parse(text)) ?? (try? withoutMilliseconds.parse(text)) else { return nil }
        return Date(timeIntervalSince1970: (parsed.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// Milliseconds since 1970, rounded, or nil when `text` is not RFC 3339.
    public static func milliseconds(_ text: String) -> Int64? {
        date(text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }
}

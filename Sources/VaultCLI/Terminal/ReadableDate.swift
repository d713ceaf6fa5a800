import Foundation
import VaultAPI

/// Dates as a person reads them: relative and in local time ("in 6 days, Sat 29 Nov", "2 hours ago").
enum ReadableDate {
    /// `short`: the phrase alone ("in 6 days"), for a table on a narrow terminal.
    static func relative(_ date: Date, now: Date = Date(), calendar: Calendar = .current, short: Bool = false) -> String {
        let seconds = date.timeIntervalSince(now)
        let magnitude = abs(seconds)
        let amount: String
        switch magnitude {
        case ..<60: return seconds >= 0 ? "in under a minute" : "just now"
        case ..<3_600: amount = plural(Int(magnitude / 60), "minute")
        case ..<86_400: amount = plural(Int(magnitude / 3_600), "hour")
        default: amount = plural(Int((magnitude / 86_400).rounded()), "day")
        }
        let phrase = seconds >= 0 ? "in \(amount)" : "\(amount) ago"
        if short { return phrase }
        return magnitude < 86_400 ? "\(phrase), \(clock(date))" : "\(phrase), \(day(date))"
    }

    /// An RFC 3339 timestamp as relative text; unreadable text is shown as it is.
    static func relative(_ text: String, now: Date = Date(), short: Bool = false) -> String {
        Timestamp.date(text).map { relative($0, now: now, short: short) } ?? text
    }

    static func day(_ date: Date) -> String { dayFormatter.string(from: date) }
    static func clock(_ date: Date) -> String { clockFormatter.string(from: date) }

    /// "Sat 29 Nov" and "14:05", in local time. Made once (formatters are costly to make).
    private static let dayFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "EEE d MMM"
        return formatter
    }()
    private static let clockFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm"
        return formatter
    }()

    private static func plural(_ count: Int, _ unit: String) -> String { "\(count) \(unit)\(count == 1 ? "" : "s")" }
}

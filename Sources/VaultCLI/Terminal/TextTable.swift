import Foundation
import VaultAPI

/// Columns with a header, aligned by display width (Farsi and CJK titles line up), fitted into `width` columns by
/// cutting the flexible column (a title) with an ellipsis.
struct TextTable {
    let headers: [String]
    var rows: [[String]] = []
    /// The column that gives way when the table is too wide.
    let flexible: Int?

    init(_ headers: [String], flexible: Int? = nil) {
        self.headers = headers
        self.flexible = flexible
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render(width: Int = 80) -> [String] {
        var widths = headers.indices.map { column in
            ([headers] + rows).map { DisplayWidth.of($0[column]) }.max() ?? 0
        }
        let gap = 2
        let total = widths.reduce(0, +) + gap * (widths.count - 1)
        if total > width, let flexible {
            widths[flexible] = max(8, widths[flexible] - (total - width))
        }
        return ([headers] + rows).map { row in
            row.indices.map { column -> String in
                let cell = DisplayWidth.truncated(row[column], to: widths[column])
                let padding = column == row.count - 1 ? 0 : widths[column] - DisplayWidth.of(cell)
                return cell + String(repeating: " ", count: max(0, padding))
            }
            .joined(separator: String(repeating: " ", count: gap))
        }
    }
}

/// Dates as a person reads them: relative and in local time ("in 6 days, Sat 29 Nov", "2 hours ago").
enum ReadableDate {
    static func relative(_ date: Date, now: Date = Date(), calendar: Calendar = .current) -> String {
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
        return magnitude < 86_400 ? "\(phrase), \(clock(date))" : "\(phrase), \(day(date))"
    }

    /// An RFC 3339 timestamp as relative text; unreadable text is shown as it is.
    static func relative(_ text: String, now: Date = Date()) -> String {
        Timestamp.date(text).map { relative($0, now: now) } ?? text
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

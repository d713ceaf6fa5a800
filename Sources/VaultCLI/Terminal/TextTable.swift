import Foundation
import VaultAPI

/// Columns with a header, aligned by display width (Farsi and CJK titles line up), fitted into `width` columns by
/// cutting the flexible column (a title) with an ellipsis.
struct TextTable {
    let headers: [String]
    var rows: [[String]] = []
    /// The column that gives way when the table is too wide.
    let flexible: Int?
    /// Columns left out, in this order, while the table is still too wide (before the flexible one is cut).
    let droppable: [Int]

    init(_ headers: [String], flexible: Int? = nil, droppable: [Int] = []) {
        self.headers = headers
        self.flexible = flexible
        self.droppable = droppable
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    /// The lines, each at most `width` columns: a line never wraps in the terminal.
    func render(width: Int = DisplayWidth.terminalColumns) -> [String] {
        let gap = 2
        var shown = Array(headers.indices)
        func natural(_ column: Int) -> Int { ([headers] + rows).map { DisplayWidth.of($0[column]) }.max() ?? 0 }
        func total(_ columns: [Int], _ widths: [Int: Int]) -> Int { columns.reduce(0) { $0 + widths[$1]! } + gap * (columns.count - 1) }
        var widths = Dictionary(uniqueKeysWithValues: headers.indices.map { ($0, natural($0)) })
        // Keep the flexible column readable (up to 24 columns) before giving way elsewhere.
        let keep = flexible.map { min(widths[$0]!, 24) } ?? 0
        for column in droppable {
            let excess = total(shown, widths) - width
            // Nothing to do, or cutting the flexible column alone still leaves it readable.
            if excess <= 0 || flexible.map({ widths[$0]! - excess >= keep }) == true { break }
            shown.removeAll { $0 == column }
        }
        if let flexible, shown.contains(flexible), total(shown, widths) > width {
            widths[flexible] = max(8, widths[flexible]! - (total(shown, widths) - width))
        }
        if let last = shown.last, total(shown, widths) > width {
            widths[last] = max(4, widths[last]! - (total(shown, widths) - width))
        }
        return ([headers] + rows).map { row in
            shown.map { column -> String in
                let cell = DisplayWidth.truncated(row[column], to: widths[column]!)
                let padding = column == shown.last ? 0 : widths[column]! - DisplayWidth.of(cell)
                return cell + String(repeating: " ", count: max(0, padding))
            }
            .joined(separator: String(repeating: " ", count: gap))
        }
    }
}

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

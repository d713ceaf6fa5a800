import Foundation

/// Columns with a header, aligned by display width (Farsi and CJK titles line up), fitted into `width` columns by
/// cutting the flexible column (a title) with an ellipsis.
public struct TextTable {
    let headers: [String]
    var rows: [[String]] = []
    /// The column that gives way when the table is too wide.
    let flexible: Int?
    /// Columns left out, in this order, while the table is still too wide (before the flexible one is cut).
    let droppable: [Int]

    public init(_ headers: [String], flexible: Int? = nil, droppable: [Int] = []) {
        self.headers = headers
        self.flexible = flexible
        self.droppable = droppable
    }

    public mutating func add(_ row: [String]) { rows.append(row) }

    /// The lines, each at most `width` columns: a line never wraps in the terminal. Right to left (Arabic, Persian),
    /// every line is a right-to-left paragraph (it begins with U+200F) whose cells are each isolated (U+2068…U+2069)
    /// and padded to the column's width, the last one too: a bidi-aware terminal then mirrors every line alike, the
    /// first column on the right, and an id or a number inside a cell keeps its own order.
    public func render(width: Int = DisplayWidth.terminalColumns, rightToLeft: Bool = false) -> [String] {
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
        // Still too wide (a narrow terminal and long words, as Swahili's or Arabic's headings): the line is cut at the
        // edge rather than wrapped by the terminal, so the columns stay in line.
        let fits = total(shown, widths) <= width
        return ([headers] + rows).map { row in
            let line = shown.map { column -> String in
                let cell = DisplayWidth.truncated(row[column], to: widths[column]!)
                let padding = column == shown.last && !rightToLeft ? 0 : widths[column]! - DisplayWidth.of(cell)
                return (rightToLeft ? "\u{2068}" + cell + "\u{2069}" : cell) + String(repeating: " ", count: max(0, padding))
            }
            .joined(separator: String(repeating: " ", count: gap))
            let fitted = fits ? line : DisplayWidth.truncated(line, to: width)
            return rightToLeft ? "\u{200F}" + fitted : fitted
        }
    }
}

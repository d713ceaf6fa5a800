import Testing
import VaultTerminal

/// Tables for people: columns in line, and never a line the terminal would wrap.
struct TextTableTests {
    @Test("a table fits its width: the size and version dropped first, then the title cut; columns stay in line")
    func fits() {
        var table = TextTable(["ID", "TITLE", "VER", "SIZE", "EXPIRES"], flexible: 1, droppable: [3, 2])
        table.add(["algebra-1", "Algebra and geometry for the whole year", "1", "1.5 KB", "in 7 days"])
        table.add(["science-timed", "Science", "2", "1.1 KB", "in 2 days"])
        let lines = table.render(width: 40)
        for line in lines { #expect(DisplayWidth.of(line) <= 40, "\(line)") }
        #expect(!lines[0].contains("SIZE") && lines[1].hasPrefix("algebra-1      Algebra"), "\(lines)")
    }

    @Test("headings wider than a narrow terminal (Swahili, Arabic with its marks) are cut at the edge, never wrapped or squeezed")
    func tooNarrow() {
        var table = TextTable(["\u{200F}المعرّف", "\u{200F}العنوان", "\u{200F}ينتهي", "\u{200F}المحاولة"], flexible: 1)
        table.add(["reading-fa-en", "Reading / خواندن", "\u{200F}بعد \u{2068}7\u{2069} أيام", "\u{200F}لا شيء"])
        let lines = table.render(width: 30)
        for line in lines { #expect(DisplayWidth.of(line) <= 30, "\(line)") }
        #expect(lines[1].hasPrefix("reading-fa-en  "), "the gap between columns is kept: \(lines[1])")
    }

    @Test("right to left: every line a right-to-left paragraph of isolated cells, all padded alike, so a bidi terminal mirrors them in line")
    func rightToLeft() {
        var table = TextTable(["\u{200F}شناسه", "\u{200F}عنوان", "\u{200F}تلاش"], flexible: 1)
        table.add(["algebra-1", "Algebra Quiz", "\u{200F}هیچ"])
        table.add(["science-timed", "Science", "\u{200F}در جریان، ۸ دقیقه مانده"])
        let lines = table.render(width: 80, rightToLeft: true)
        let widths = Set(lines.map(DisplayWidth.of))
        #expect(widths.count == 1, "every line as wide, the last column padded too: \(lines)")
        for line in lines {
            #expect(line.hasPrefix("\u{200F}\u{2068}"), "\(line)")
            #expect(line.filter { $0 == "\u{2068}" }.count == 3 && line.filter { $0 == "\u{2069}" }.count == 3, "each cell isolated: \(line)")
        }
        #expect(lines[1].contains("\u{2068}algebra-1\u{2069}"), "an id keeps its own order inside its cell")
        #expect(table.render(width: 80).allSatisfy { !$0.contains("\u{2068}") }, "left to right, nothing added")
    }
}

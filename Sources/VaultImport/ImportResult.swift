import Foundation
import VaultAPI

/// The formats `vault-server publish` reads.
public enum ImportFormat: String, Sendable, CaseIterable {
    case auto, json
    case moodleXML = "moodle-xml"
    case gift, aiken
    case qti
}

/// Why a reader leaves one item out (every reader throws it from inside an item; the item's loop records it as
/// `ImportResult.Skipped` and goes on).
struct ItemSkip: Error, Sendable {
    var reason: String
}

/// What a reader made of a file: our document, and every item it could not bring into a terminal, with why.
public struct ImportResult: Sendable {
    public struct Skipped: Sendable, Equatable, Codable {
        /// The item's title in quotes (or its file, or its position).
        public var item: String
        public var reason: String
        /// A QTI item's file (its path inside a package) and identifier.
        public var path: String?
        public var identifier: String?
        public init(item: String, reason: String, path: String? = nil, identifier: String? = nil) {
            self.item = item
            self.reason = reason
            self.path = path
            self.identifier = identifier
        }

        /// The item as a teacher finds it: `"Title" (items/q7.xml, Q7)`.
        public var label: String {
            let place = [path, identifier].compactMap { $0 }.filter { !item.contains($0) }
            return place.isEmpty ? item : "\(item) (\(place.joined(separator: ", ")))"
        }
    }

    public var assessment: Assessment
    public var skipped: [Skipped]
    /// Things the teacher should know that did not stop an item (partial credit made all-or-nothing, an image
    /// without alt text).
    public var notes: [String]

    public init(assessment: Assessment, skipped: [Skipped], notes: [String] = []) {
        self.assessment = assessment
        self.skipped = skipped
        self.notes = notes
    }
}

/// What every reader makes of a file: the questions it read (numbered q1, q2, …), every item it left out and why,
/// what the teacher should know, and the title the file gives (if it gives one).
struct ImportReport {
    var questions: [Question] = []
    var skipped: [ImportResult.Skipped] = []
    var notes: [String] = []
    var title: String?
    /// Pools and order, when the file has them.
    var sections: [Section]?
    /// Whether every question's choices are shuffled for each student (the file's own rule, as Moodle's GIFT and
    /// Aiken imports do).
    var shuffleChoices: Bool?

    /// The test's sections over the questions read (`questionIDs` by path; an item skipped leaves its section, and a
    /// section that selects more than it then holds gives all it holds, said in a note). A question no section names
    /// gets one of its own, so every question belongs to one.
    mutating func sections(_ read: [QTIPackage.TestSection], questionIDs: [String: String]) {
        guard !read.isEmpty else { return }
        var placed = Set<String>()
        var result: [Section] = []
        for (index, section) in read.enumerated() {
            let ids = section.paths.compactMap { questionIDs[$0] }.filter { placed.insert($0).inserted }
            guard !ids.isEmpty else { continue }
            var select = section.select
            if let wanted = select, wanted > ids.count || wanted < 1 {
                notes.append(
                    "Section \(index + 1) selects \(wanted) item(s) but holds \(ids.count) that can be taken here; each student gets all \(ids.count)."
                )
                select = nil
            }
            let fixedPaths = Set(section.fixed.compactMap { questionIDs[$0] })
            for position in questions.indices where fixedPaths.contains(questions[position].id) { questions[position].fixed = true }
            result.append(Section(id: "s\(index + 1)", title: section.title, select: select, shuffle: section.shuffle ? true : nil, questions: ids))
        }
        let rest = questions.map(\.id).filter { !placed.contains($0) }
        if !rest.isEmpty { result.append(Section(id: "rest", questions: rest)) }
        sections = result.isEmpty ? nil : result
    }

    /// Adds a question read, numbered after those before it.
    mutating func add(_ question: Question) {
        var question = question
        question.id = "q\(questions.count + 1)"
        question.variants = question.variants?.map { instance in
            var numbered = instance
            numbered.id = question.id
            return numbered
        }
        questions.append(question)
    }

    /// The document, named after the file (`base`) where the file gives no title.
    func result(base: String) -> ImportResult {
        var assessment = Assessment(id: ImportSupport.id(from: base), title: title ?? base, questions: questions)
        assessment.sections = sections
        assessment.shuffleChoices = shuffleChoices
        return ImportResult(assessment: assessment, skipped: skipped, notes: notes)
    }
}

/// A file that cannot be imported, in a sentence a teacher can act on (with the line where there is one).
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    /// The document would exceed what a student may download (`AssessmentValidator.maxDocumentBytes`).
    static let tooLarge = ImportError(
        "The assessment would be larger than the 10 MB a student can download (pictures count); make its pictures smaller or split it into several files. Nothing was published."
    )
}

/// Pieces every reader needs, so each rule is written once.
enum ImportSupport {
    /// The note for pictures without a description, counted as a reader reads them.
    static func missingAltNote(_ count: Int) -> String { "\(count) picture(s)" + missingAltWords }
    static let missingAltWords = " have no description (alt text); add one so every student can follow."

    /// One note for each picture the document carries without a description, naming its question: the student is
    /// told only "Picture 1 of 2 (no description)". Where the document carries them, these replace a reader's count.
    static func undescribedPictureNotes(_ assessment: Assessment) -> [String] {
        assessment.questions.flatMap { question in
            let pictures = (question.media ?? []).filter { $0.mimeType.lowercased().hasPrefix("image/") }
            return pictures.enumerated().compactMap { number, media -> String? in
                guard media.alt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
                return
                    "Question \(question.id): picture \(number + 1) of \(pictures.count) (\(media.name)) has no description; the student is told only that there is a picture. Add an alt text so every student can follow."
            }
        }
    }

    /// About how many bytes a question adds to the served document: its pictures (base64, most of any large
    /// document) and its texts, cheap enough to count as an import goes. The exact served size is checked again
    /// when the document is published (`AssessmentPublisher`).
    static func approximateBytes(of question: Question) -> Int {
        let media = (question.media ?? []).reduce(0) { $0 + $1.data.utf8.count + $1.alt.utf8.count + $1.name.utf8.count + 64 }
        let options: Int = question.body.shownItems.reduce(0) { $0 + $1.text.utf8.count + 32 }
        return question.prompt.utf8.count + options + media + 256
    }

    /// The largest file read (a served document is at most 10 MB).
    static let maxBytes = AssessmentImporter.maxFileBytes

    /// An assessment id from a file name or a title: lower case, a-z 0-9 and '-', at most 64 characters.
    static func id(from text: String) -> String {
        var id = ""
        for scalar in text.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                id.unicodeScalars.append(scalar)
            } else if !id.hasSuffix("-"), !id.isEmpty {
                id.append("-")
            }
        }
        while id.hasSuffix("-") { id.removeLast() }
        let cut = String(id.prefix(64))
        return cut.isEmpty ? "imported" : (cut.hasSuffix("-") ? String(cut.dropLast()) : cut)
    }

    /// Choice ids by position: a, b, c, …, z, then c27, c28, ….
    static func choiceID(_ index: Int) -> String {
        index < 26 ? String(UnicodeScalar(UInt8(97 + index))) : "c\(index + 1)"
    }

    /// Text from the HTML of a question (Moodle, GIFT `[html]`): paragraphs and line breaks kept, list items as
    /// lines, images as "Picture: alt text", every other tag dropped, the common entities decoded. Markup is only
    /// removed here, never interpreted: the result is plain text for a terminal.
    static func text(fromHTML html: String, missingAlt: inout Int) -> String {
        var text = ""
        text.reserveCapacity(html.utf8.count)
        for piece in HTMLTags.pieces(html) {
            switch piece {
            case .text(let part):
                text += part
            case .tag(let tag):
                switch (tag.name, tag.closing) {
                case ("img", false):
                    let description = tag.attribute("alt")?.trimmingCharacters(in: .whitespaces) ?? ""
                    if description.isEmpty {
                        missingAlt += 1
                        text += "[Picture with no description]"
                    } else {
                        text += "[Picture: \(description)]"
                    }
                case ("br", false): text += "\n"
                case ("p", true): text += "\n\n"
                case ("li", false): text += "\n- "
                case ("ul", true), ("ol", true), ("div", true), ("h1", true), ("h2", true), ("h3", true), ("h4", true), ("h5", true),
                    ("h6", true), ("tr", true):
                    text += "\n"
                default: break
                }
            }
        }
        for (entity, character) in [("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"), ("&amp;", "&")]
        {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return tidy(text)
    }

    /// A matching question from (item, match) pairs: items numbered l1, l2, …; matches lettered in order of first
    /// use, one per distinct text (an empty item is a distractor match); nil without two different matches.
    static func matching(_ pairs: [(item: String, match: String)]) -> (left: [Choice], right: [Choice], key: [JSONValue])? {
        var left: [Choice] = []
        var right: [Choice] = []
        var key: [JSONValue] = []
        var rightIDs: [String: String] = [:]  // a match's text -> its id: one lookup per pair, not a scan
        for (item, match) in pairs where !match.isEmpty {
            let rightID: String
            if let existing = rightIDs[match] {
                rightID = existing
            } else {
                rightID = choiceID(right.count)
                rightIDs[match] = rightID
                right.append(Choice(id: rightID, text: match))
            }
            guard !item.isEmpty else { continue }
            let leftID = "l\(left.count + 1)"
            left.append(Choice(id: leftID, text: item))
            key.append(.array([.string(leftID), .string(rightID)]))
        }
        return !left.isEmpty && right.count >= 2 ? (left, right, key) : nil
    }

    /// `text` without white space (and newlines) at either end: `trimmingCharacters(in: .whitespacesAndNewlines)`
    /// without Foundation's bridge when there is nothing to trim (most values).
    static func trimmed(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return text }
        if !first.properties.isWhitespace, !last.properties.isWhitespace { return text }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs of spaces within a line made one, spaces at line ends and runs of blank lines removed.
    static func tidy(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return tidyASCII(text) }
        return tidyScalars(text)
    }

    /// `tidy` over the bytes of ASCII text (almost every question): the same rules, without building the result
    /// one scalar at a time (that was a fifth of a QTI package's import).
    static func tidyASCII(_ text: String) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        var line: [UInt8] = []
        var lines = 0
        var lastEmpty = true  // no line yet counts as empty: a text never starts with a blank line
        var kept = 0  // the result up to its last line with text: blank lines at the end are dropped
        func isTrimmed(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }
        func finish() {
            var end = line.count
            while end > 0, isTrimmed(line[end - 1]) { end -= 1 }
            var start = 0
            while start < end, isTrimmed(line[start]) { start += 1 }
            let empty = start == end
            if !(empty && lastEmpty) {
                if lines > 0 { result.append(0x0A) }
                result.append(contentsOf: line[start..<end])
                lines += 1
                lastEmpty = empty
                if !empty { kept = result.count }
            }
            line.removeAll(keepingCapacity: true)
        }
        var space = false
        for byte in text.utf8 {
            if byte == 0x0A {
                finish()
                space = false
            } else if byte == 0x20 {
                space = !line.isEmpty
            } else {
                if space { line.append(0x20) }
                space = false
                line.append(byte)
            }
        }
        finish()
        return String(decoding: result[..<kept], as: UTF8.self)
    }

    static func tidyScalars(_ text: String) -> String {
        // One pass over the scalars (Foundation's bridged calls, then Swift's Character splitting, were a third and
        // then a tenth of a QTI package's import): runs of spaces become one, each line is trimmed of spaces, tabs,
        // carriage returns and other space separators, runs of empty lines become one, none at either end.
        func isTrimmed(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t" || scalar == "\r" || (!scalar.isASCII && scalar.properties.generalCategory == .spaceSeparator)
        }
        var result: [String] = []
        func finish(_ line: inout String.UnicodeScalarView) {
            while let last = line.last, isTrimmed(last) { line.removeLast() }
            let start = line.firstIndex { !isTrimmed($0) } ?? line.endIndex
            let trimmed = String(line[start...])
            if !(trimmed.isEmpty && (result.last?.isEmpty ?? true)) { result.append(trimmed) }
            line = String.UnicodeScalarView()
        }
        var line = String.UnicodeScalarView()
        var space = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                finish(&line)
                space = false
            } else if scalar == " " {
                space = !line.isEmpty
            } else {
                if space { line.append(" ") }
                space = false
                line.append(scalar)
            }
        }
        finish(&line)
        while result.last?.isEmpty == true { result.removeLast() }
        return result.joined(separator: "\n")
    }
}

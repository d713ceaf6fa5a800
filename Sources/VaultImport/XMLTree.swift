import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML document read by Foundation's parser (libxml2) into elements, for the readers to walk. No DTD is read:
/// a document that declares one (where external entities and entity expansion live) is refused before parsing, and
/// external entities are never resolved.
final class MarkupElement {
    let name: String
    let attributes: [String: String]
    var children: [MarkupElement] = []
    var text = ""
    /// Text and elements in document order (QTI puts interactions in the middle of sentences).
    var contents: [Content] = []

    enum Content {
        case text(String)
        case element(MarkupElement)
    }

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// QTI 3.0 names (`qti-choice-interaction`) as QTI 2.x names them (`choiceInteraction`): one reader for both.
    static func canonical(_ name: String) -> String {
        guard name.hasPrefix("qti-") else { return name }
        let words = name.dropFirst(4).split(separator: "-")
        return (words.first.map(String.init) ?? "") + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// `response-identifier` (QTI 3.0) as `responseIdentifier` (QTI 2.x).
    static func canonicalAttribute(_ name: String) -> String {
        guard name.utf8.contains(UInt8(ascii: "-")) else { return name }
        let words = name.split(separator: "-")
        return (words.first.map(String.init) ?? "") + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// Every element below this one, depth first.
    var descendants: [MarkupElement] { descendants { _ in true } }

    /// The elements below this one that `include`, depth first, gathered into one array.
    func descendants(where include: (MarkupElement) -> Bool) -> [MarkupElement] {
        var found: [MarkupElement] = []
        func visit(_ element: MarkupElement) {
            for child in element.children {
                if include(child) { found.append(child) }
                visit(child)
            }
        }
        visit(self)
        return found
    }

    func child(_ name: String) -> MarkupElement? { children.first { $0.name == name } }
    func all(_ name: String) -> [MarkupElement] { children.filter { $0.name == name } }
    /// `<name><text>…</text></name>` or `<name>…</name>`, trimmed.
    func value(_ name: String) -> String? {
        guard let element = child(name) else { return nil }
        return (element.child("text")?.text ?? element.text).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func parse(_ data: Data) throws -> MarkupElement {
        // Foundation's parser traps on an element name that is not valid UTF-8 (the import_readers fuzz target found
        // it): the bytes are checked first, and a teacher is told in a sentence.
        guard String(data: data, encoding: .utf8) != nil else {
            throw ImportError("The XML is not valid UTF-8 text; save it as UTF-8 (Moodle exports it so) and try again.")
        }
        try checkProlog(data)
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        let builder = Builder()
        parser.delegate = builder
        // The parser may recover from some errors; any error, a tag closed out of order or one left open is refused.
        let parsed = parser.parse()
        if let entity = builder.unresolvedEntity {
            // Without a DTD only XML's five entities exist: anything else would be silently dropped text.
            throw ImportError(
                "The XML uses the entity &\(entity); near line \(builder.problemLine ?? parser.lineNumber), which is not defined (only &amp; &lt; &gt; &quot; &apos; and numbered characters are); write the character itself and try again."
            )
        }
        guard parsed, builder.problemLine == nil, builder.stack.isEmpty, parser.parserError == nil, let root = builder.root else {
            let line = builder.problemLine ?? parser.lineNumber
            throw ImportError("The XML is malformed near line \(line) (a tag is not closed, or closed out of order); nothing was published.")
        }
        return root
    }

    /// What comes before the root element, read whole (however long it is) before anything is parsed: the XML
    /// declaration, comments, processing instructions and white space. A DOCTYPE or any other `<!` declaration
    /// there is refused wherever it stands (a DTD can read files or expand without end), and so is an encoding other
    /// than UTF-8 or a NUL byte (UTF-16 without a byte-order mark passes a UTF-8 check). Linear in the input.
    static func checkProlog(_ data: Data) throws {
        let refusedDTD = ImportError(
            "The XML declares a DTD or entities, which are refused (they can read files or expand without end); remove the <!DOCTYPE> and try again."
        )
        let notUTF8 = ImportError("The XML is not UTF-8 text; save it as UTF-8 (Moodle exports it so) and try again.")
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            if let base = bytes.baseAddress, memchr(base, 0, bytes.count) != nil { throw notUTF8 }
            try refuseEmptyInstructions(bytes)
            var index = 0
            // A UTF-8 byte-order mark is UTF-8; UTF-16's marks hold NUL bytes and were refused above.
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
            // Byte words, made once (a String made into an array at every position was half of parsing an item).
            func starts(_ word: [UInt8], at position: Int) -> Bool {
                guard position + word.count <= bytes.count else { return false }
                for offset in word.indices where bytes[position + offset] != word[offset] { return false }
                return true
            }
            func find(_ word: [UInt8], from position: Int) -> Int? {
                var cursor = position
                while cursor < bytes.count {
                    if bytes[cursor] == word[0], starts(word, at: cursor) { return cursor }
                    cursor += 1
                }
                return nil
            }
            let (instructionOpen, instructionClose, commentOpen, commentClose, declarationOpen) = (
                Array("<?".utf8), Array("?>".utf8), Array("<!--".utf8), Array("-->".utf8), Array("<!".utf8)
            )
            let (xmlDeclaration, encodingWord) = (Array("<?xml ".utf8), Array("encoding".utf8))
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D:
                    index += 1
                case UInt8(ascii: "<"):
                    if starts(instructionOpen, at: index) {
                        guard let end = find(instructionClose, from: index + 2) else { return }
                        // The declaration's encoding, read from its bytes (a string search here was a third of
                        // parsing an item).
                        let lower = bytes[index..<end].map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
                        if lower.starts(with: xmlDeclaration), let at = Self.firstIndex(of: encodingWord, in: lower) {
                            let rest = lower[(at + encodingWord.count)...].drop { $0 == 0x20 || $0 == 0x3D || $0 == 0x22 || $0 == 0x27 }
                            let name = rest.prefix { $0 != 0x22 && $0 != 0x27 && $0 != 0x20 }
                            guard name.elementsEqual("utf-8".utf8) || name.elementsEqual("utf8".utf8) else { throw notUTF8 }
                        }
                        index = end + 2
                    } else if starts(commentOpen, at: index) {
                        guard let end = find(commentClose, from: index + 4) else { return }
                        index = end + 3
                    } else if starts(declarationOpen, at: index) {
                        throw refusedDTD
                    } else {
                        return  // the root element: the prolog is over
                    }
                default:
                    return  // not XML's prolog; the parser says what is wrong
                }
            }
        }
    }

    /// Where `word` first stands in `bytes`.
    static func firstIndex(of word: [UInt8], in bytes: [UInt8]) -> Int? {
        guard !word.isEmpty, word.count <= bytes.count else { return nil }
        for start in 0...(bytes.count - word.count) where bytes[start] == word[0] {
            if bytes[start..<(start + word.count)].elementsEqual(word) { return start }
        }
        return nil
    }

    /// Foundation's parser crashes (a NULL string read) on a processing instruction with nothing after its target,
    /// `<?x?>`, anywhere in a document (found by the import_readers fuzz target): such an instruction is refused
    /// before parsing. One pass over the bytes.
    static func refuseEmptyInstructions(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        func isName(_ byte: UInt8) -> Bool {
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) || byte >= 0x80
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
        }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard let base = bytes.baseAddress else { return }
        var index = 0
        while index + 1 < bytes.count {
            // The next '<' by memchr (a byte at a time was a tenth of parsing an item).
            guard let found = memchr(base + index, Int32(UInt8(ascii: "<")), bytes.count - index) else { return }
            index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "?") else {
                index += 1
                continue
            }
            var end = index + 2
            while end < bytes.count, isName(bytes[end]) { end += 1 }
            var after = end
            while after < bytes.count, isSpace(bytes[after]) { after += 1 }
            if after + 1 < bytes.count, bytes[after] == UInt8(ascii: "?"), bytes[after + 1] == UInt8(ascii: ">") {
                throw ImportError(
                    "The XML has a processing instruction with nothing in it (such as <?name?>), which is refused; remove it and try again."
                )
            }
            index = max(end, index + 2)
        }
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: MarkupElement?
        var stack: [MarkupElement] = []

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
            flushText()
            // Names without a namespace prefix: QTI 3.0 and 2.x differ only there.
            let local = localName(name)
            var names: [String: String] = [:]
            names.reserveCapacity(attributes.count)
            for (key, value) in attributes { names[MarkupElement.canonicalAttribute(key)] = value }
            let element = MarkupElement(name: local, attributes: names)
            if let parent = stack.last {
                parent.children.append(element)
                parent.contents.append(.element(element))
            } else {
                root = element
            }
            stack.append(element)
        }

        var problemLine: Int?

        /// The canonical name without its namespace prefix, for every start and end tag: without splitting (an
        /// array per tag) when there is no prefix, and the last name seen reused (most end tags close it).
        private var lastRaw = ""
        private var lastLocal = ""
        private func localName(_ name: String) -> String {
            if name == lastRaw { return lastLocal }
            let bare = name.utf8.contains(UInt8(ascii: ":")) ? String(name[name.index(after: name.lastIndex(of: ":")!)...]) : name
            lastRaw = name
            lastLocal = MarkupElement.canonical(bare)
            return lastLocal
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            flushText()
            let local = localName(name)
            if stack.last?.name != local, problemLine == nil { problemLine = parser.lineNumber }
            _ = stack.popLast()
        }

        var unresolvedEntity: String?

        /// Foundation asks here for every entity it cannot resolve (with no DTD, every one but the five of XML).
        func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
            if unresolvedEntity == nil {
                unresolvedEntity = name
                problemLine = problemLine ?? parser.lineNumber
            }
            return nil
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            if problemLine == nil { problemLine = parser.lineNumber }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { append(string) }

        func parser(_ parser: XMLParser, foundCDATA block: Data) { append(String(decoding: block, as: UTF8.self)) }

        /// The text of the open element since its last child, gathered here and stored once when the next tag comes:
        /// the parser hands over text in pieces (one per entity: 640,000 `&lt;` are 1.3 million pieces), and
        /// appending each to the stored run copied the run every time (12 s for a 3.8 MB file, four times as long at
        /// each doubling).
        private var pendingText = ""

        private func append(_ string: String) {
            guard !stack.isEmpty else { return }
            pendingText += string
        }

        private func flushText() {
            guard !pendingText.isEmpty else { return }
            defer { pendingText = "" }
            guard let element = stack.last else { return }
            element.text += pendingText
            element.contents.append(.text(pendingText))
        }
    }
}

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
    var descendants: [MarkupElement] { children.flatMap { [$0] + $0.descendants } }

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
        if declaresDTD(data.prefix(64 * 1024)) {
            throw ImportError(
                "The XML declares a DTD or entities, which are refused (they can read files or expand without end); remove the <!DOCTYPE> and try again."
            )
        }
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        let builder = Builder()
        parser.delegate = builder
        // The parser may recover from some errors; any error, a tag closed out of order or one left open is refused.
        let parsed = parser.parse()
        guard parsed, builder.problemLine == nil, builder.stack.isEmpty, parser.parserError == nil, let root = builder.root else {
            let line = builder.problemLine ?? parser.lineNumber
            throw ImportError("The XML is malformed near line \(line) (a tag is not closed, or closed out of order); nothing was published.")
        }
        return root
    }

    /// `<!DOCTYPE` or `<!ENTITY` in any case among these bytes (compared byte by byte: this runs for every file of a
    /// package).
    static func declaresDTD(_ bytes: Data) -> Bool {
        let doctype = Array("DOCTYPE".utf8)
        let entity = Array("ENTITY".utf8)
        return bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
            let buffer = raw.bindMemory(to: UInt8.self)
            var index = 0
            while index + 1 < buffer.count {
                if buffer[index] == UInt8(ascii: "<"), buffer[index + 1] == UInt8(ascii: "!") {
                    for word in [doctype, entity] where index + 2 + word.count <= buffer.count {
                        // ASCII letters compared without case (clearing bit 5 upper-cases a-z).
                        if word.indices.allSatisfy({ buffer[index + 2 + $0] & 0xDF == word[$0] }) { return true }
                    }
                }
                index += 1
            }
            return false
        }
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: MarkupElement?
        var stack: [MarkupElement] = []

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
            // Names without a namespace prefix: QTI 3.0 and 2.x differ only there.
            let local = MarkupElement.canonical(name.split(separator: ":").last.map(String.init) ?? name)
            var names: [String: String] = [:]
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

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let local = MarkupElement.canonical(name.split(separator: ":").last.map(String.init) ?? name)
            if stack.last?.name != local, problemLine == nil { problemLine = parser.lineNumber }
            _ = stack.popLast()
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            if problemLine == nil { problemLine = parser.lineNumber }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { append(string) }

        func parser(_ parser: XMLParser, foundCDATA block: Data) { append(String(decoding: block, as: UTF8.self)) }

        private func append(_ string: String) {
            guard let element = stack.last else { return }
            element.text += string
            if case .text(let previous)? = element.contents.last {
                element.contents[element.contents.count - 1] = .text(previous + string)
            } else {
                element.contents.append(.text(string))
            }
        }
    }
}

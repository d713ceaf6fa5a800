import Foundation
import VaultAPI
import ZIPFoundation

/// A QTI content package: a zip with `imsmanifest.xml`. Items come in the order of the package's assessmentTest
/// when it has one, else in the manifest's order. Entries are read into memory (never extracted to disk) under caps,
/// so a hostile zip is refused before it can fill memory or escape: at most 5,000 entries, 12 MB per entry and 100 MB in all, no entry
/// compressed more than 200 to 1, no path with `..` or a leading `/`, no symlink.
enum QTIPackage {
    static let maxEntries = 5_000
    static let maxEntryBytes = 12 * 1024 * 1024
    static let maxTotalBytes = 100 * 1024 * 1024
    static let maxRatio: UInt64 = 200

    /// The package's XML files and pictures by path, each read under the caps.
    static func files(_ data: Data) throws -> [String: Data] {
        // Read from a private temporary file, not from memory: ZIPFoundation's in-memory archive traps on a central
        // directory that points past the data (the import_readers fuzz target found it), while the file-backed one
        // reports a short read as an error.
        let path = NSTemporaryDirectory() + "vault-import-\(UUID().uuidString).zip"
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw ImportError("The package could not be read (no room for a temporary copy).")
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw ImportError("The file is not a readable zip archive (a QTI package is a .zip with imsmanifest.xml).")
        }
        // The entries to read, checked in the central directory's order; then read on every core at once, each
        // worker with its own reader of the copy (unpacking was a third of a package's import, one entry at a time).
        var wanted: [Entry] = []
        var paths: [String] = []  // each entry's path, decoded once
        var count = 0
        for entry in archive {
            count += 1
            guard count <= maxEntries else { throw ImportError("The package holds more than \(maxEntries) files; nothing was read.") }
            let path = entry.path
            guard !path.hasPrefix("/"), !path.split(separator: "/").contains(".."), !path.utf8.contains(UInt8(ascii: "\\")) else {
                throw ImportError("The package has a file outside itself (\(path)); nothing was published.")
            }
            guard entry.type != .symlink else { throw ImportError("The package holds a symbolic link (\(path)); nothing was published.") }
            guard entry.type == .file else { continue }
            guard entry.uncompressedSize <= UInt64(maxEntryBytes),
                entry.compressedSize == 0 || entry.uncompressedSize / max(entry.compressedSize, 1) <= maxRatio
            else { throw ImportError("The package's \(path) unpacks far larger than any assessment (a zip bomb?); nothing was read.") }
            // The XML, and the pictures items may show; nothing else is read.
            guard path.lowercased().hasSuffix(".xml") || mimeType(path) != nil else { continue }
            wanted.append(entry)
            paths.append(path)
        }
        let read = try Unpacking.read(wanted, from: URL(fileURLWithPath: path))
        var files: [String: Data] = [:]
        files.reserveCapacity(wanted.count)
        for (path, bytes) in zip(paths, read) { files[path] = bytes }
        return files
    }

    /// Whether `text` holds `word`, by bytes (Foundation's `contains` through NSString was a tenth of reading a
    /// package of 2,000 items).
    static func has(_ text: String?, _ word: String) -> Bool {
        guard let text else { return false }
        let bytes = Array(text.utf8)
        let wanted = Array(word.utf8)
        guard !wanted.isEmpty, wanted.count <= bytes.count else { return false }
        return (0...(bytes.count - wanted.count)).contains { start in bytes[start..<(start + wanted.count)].elementsEqual(wanted) }
    }

    /// The items of a package in order (their bytes, parsed where they are read), with the test's title when there
    /// is one.
    /// A test's section as read: its items by path (those it holds itself and those of sections inside it), how
    /// many each student gets and whether their order is shuffled, with the items that keep their place.
    struct TestSection {
        var title: String?
        var select: Int?
        var shuffle: Bool
        var paths: [String] = []
        var fixed: Set<String> = []
    }

    static func items(
        _ data: Data
    ) throws -> (
        items: [(path: String, bytes: Data)], title: String?, files: [String: Data], repeated: Int, weights: [String: Double],
        sections: [TestSection], notes: [String]
    ) {
        let files = try files(data)
        guard let manifestData = files["imsmanifest.xml"] ?? files.first(where: { $0.key.lowercased().hasSuffix("imsmanifest.xml") })?.value else {
            throw ImportError("The zip has no imsmanifest.xml, so it is not a QTI content package.")
        }
        let manifest = try MarkupElement.parse(manifestData)
        let resources = manifest.descendants { $0.name == "resource" }
        var order: [String] = []
        var title: String?
        // A test's `weight` on an item reference multiplies the item's points.
        var weights: [String: Double] = [:]
        var sections: [TestSection] = []
        var notes: [String] = []
        // A test, when there is one, gives the order.
        for resource in resources where Self.has(resource.attributes["type"], "test") {
            guard let href = resource.attributes["href"], let testData = files[href] else { continue }
            let test = try MarkupElement.parse(testData)
            title = test.attributes["title"]
            let base = (href as NSString).deletingLastPathComponent
            for reference in test.descendants where reference.name == "assessmentItemRef" {
                guard let href = reference.attributes["href"] else { continue }
                let path = base.isEmpty ? href : base + "/" + href
                order.append(path)
                let declared = reference.all("weight").compactMap { $0.attributes["value"].flatMap(Double.init) }
                if declared.count == 1, let weight = declared.first, weight > 0, weight.isFinite, weight <= 1_000 { weights[path] = weight }
            }
            sections = try testSections(test, base: base, notes: &notes)
            break
        }
        if order.isEmpty {
            order = resources.filter { Self.has($0.attributes["type"], "item") }.compactMap { $0.attributes["href"] }
        }
        var items: [(String, Data)] = []
        // An item the test names more than once is read and embedded once: 2,000 references to one item with a
        // picture took 3.8 GB before this. The repeats are counted for the import report.
        var seen = Set<String>()
        var repeated = 0
        for path in order {
            // The path as written, else standardized (`./a.xml`, `b/../a.xml`), only when needed.
            let key = files[path] != nil ? path : (path as NSString).standardizingPath.replacingOccurrences(of: "./", with: "")
            guard let bytes = files[key] else { continue }
            guard seen.insert(key).inserted else {
                repeated += 1
                continue
            }
            guard items.count < AssessmentValidator.maxQuestions else {
                throw ImportError(
                    "The package holds more than \(AssessmentValidator.maxQuestions) items, the most an assessment may hold; nothing was published."
                )
            }
            items.append((path, bytes))
        }
        guard !items.isEmpty else { throw ImportError("The package's manifest names no item that is in the zip.") }
        return (items, title, files, repeated, weights, sections, notes)
    }

    /// The test's outermost sections (QTI `assessmentSection` in each `testPart`) as ours: `selection select`,
    /// `ordering shuffle` and `fixed` item references, taken as written. A section inside another gives its items to
    /// the outer one (an invisible section is one by definition); its own selection and ordering are not kept, and
    /// the import says so. `withReplacement` (the same item twice for one student) is refused by name. Empty when
    /// the test neither selects nor shuffles: its order is the order of the references.
    static func testSections(_ test: MarkupElement, base: String, notes: inout [String]) throws -> [TestSection] {
        var sections: [TestSection] = []
        var innerRules = 0
        func path(_ reference: MarkupElement) -> String? {
            reference.attributes["href"].map { base.isEmpty ? $0 : base + "/" + $0 }
        }
        func gather(_ element: MarkupElement, into section: inout TestSection, inner: Bool) throws {
            for child in element.children {
                switch child.name {
                case "assessmentItemRef":
                    guard let path = path(child) else { continue }
                    section.paths.append(path)
                    if child.attributes["fixed"] == "true" { section.fixed.insert(path) }
                case "assessmentSection":
                    if child.child("selection") != nil || child.child("ordering")?.attributes["shuffle"] == "true" { innerRules += 1 }
                    try checkSelection(child)
                    try gather(child, into: &section, inner: true)
                default:
                    continue
                }
            }
        }
        for part in test.children where part.name == "testPart" {
            for element in part.children where element.name == "assessmentSection" {
                try checkSelection(element)
                var section = TestSection(
                    title: element.attributes["visible"] == "false" ? nil : element.attributes["title"],
                    select: element.child("selection")?.attributes["select"].flatMap { Int($0) },
                    shuffle: element.child("ordering")?.attributes["shuffle"] == "true"
                )
                try gather(element, into: &section, inner: false)
                if !section.paths.isEmpty { sections.append(section) }
            }
        }
        if innerRules > 0 {
            notes.append(
                "\(innerRules) section(s) inside another select or shuffle their own items; their items are drawn with the outer section's."
            )
        }
        return sections.contains { $0.shuffle || $0.select != nil } ? sections : []
    }

    static func checkSelection(_ section: MarkupElement) throws {
        if section.child("selection")?.attributes["withReplacement"] == "true" {
            throw ImportError(
                "Section \"\(section.attributes["title"] ?? section.attributes["identifier"] ?? "")\" selects with replacement (withReplacement), which gives a student the same item twice; it cannot be taken here. Nothing was published."
            )
        }
    }

    /// The pictures an item shows (`img src`, `object data`), read from the package relative to the item's own
    /// folder, each as `Media` with its alt text; a picture the package does not hold is named in `missing`.
    static func media(of item: MarkupElement, path: String, files: [String: Data], missing: inout [String]) -> [Media]? {
        let folder = (path as NSString).deletingLastPathComponent
        var found: [Media] = []
        var seen = Set<String>()
        for element in item.descendants where element.name == "img" || element.name == "object" {
            guard let source = element.attributes["src"] ?? element.attributes["data"], !source.contains("://"), !source.hasPrefix("data:")
            else { continue }
            let relative = source.removingPercentEncoding ?? source
            let full = ((folder.isEmpty ? relative : folder + "/" + relative) as NSString).standardizingPath
            guard seen.insert(full).inserted else { continue }
            guard let type = mimeType(full) else { continue }
            guard let bytes = files[full] ?? files[relative] else {
                missing.append(relative)
                continue
            }
            found.append(
                Media(
                    name: (full as NSString).lastPathComponent,
                    mimeType: type,
                    data: bytes.base64EncodedString(),
                    alt: element.attributes["alt"] ?? ""
                )
            )
        }
        return found.isEmpty ? nil : found
    }

    static func mimeType(_ path: String) -> String? {
        switch (path as NSString).pathExtension.lowercased() {
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "svg": "image/svg+xml"
        case "webp": "image/webp"
        default: nil
        }
    }
}

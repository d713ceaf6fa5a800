import Foundation
import VaultAPI

/// One QTI item parsed and read on its own: its question (or why it was skipped, or the error that stops the whole
/// import) and what the import report gathers from it. A package's items are independent documents, so they are
/// read on every core at once and put back in order.
struct ItemRead: Sendable {
    enum Outcome: Sendable {
        case read(Question)
        case skipped(reason: String, identifier: String?)
        case failed(ImportError)
    }

    var outcome: Outcome
    var title: String?
    var notes: [String] = []
    var missingAlt = 0
    var missingPictures: [String] = []

    /// One item: parsed, read, and (in a package) its pictures carried along.
    static func read(_ bytes: Data, path: String, files: [String: Data]?) -> ItemRead {
        let item: MarkupElement
        do {
            item = try MarkupElement.parse(bytes)
        } catch let error as ImportError {
            return ItemRead(outcome: .failed(error))
        } catch {
            return ItemRead(outcome: .failed(ImportError("The package's \(path) could not be read.")))
        }
        var result = ItemRead(outcome: .failed(ImportError("")), title: item.attributes["title"])
        do {
            var question = try QTIReader.question(item, missingAlt: &result.missingAlt, notes: &result.notes)
            if TemplateReader.isTemplate(item) { question.variants = try instances(of: question, bytes: bytes) }
            if let files { question.media = QTIPackage.media(of: item, path: path, files: files, missing: &result.missingPictures) }
            result.outcome = .read(question)
        } catch let skip as ItemSkip {
            result.outcome = .skipped(reason: skip.reason, identifier: item.attributes["identifier"])
        } catch let error as ImportError {
            result.outcome = .failed(error)
        } catch {
            result.outcome = .failed(ImportError("The package's \(path) could not be read."))
        }
        return result
    }

    /// A template item's distinct instances (the first is `first`, the one the teacher sees), each read from its
    /// own parse (drawing writes the values into the item); nil when every seed draws the same.
    static func instances(of first: Question, bytes: Data) throws -> [Question]? {
        var distinct = [first]
        var seen: Set<Data> = [try CanonicalJSON.encode(first)]
        for instance in 1..<TemplateReader.instances {
            var ignoredAlt = 0
            var ignoredNotes: [String] = []
            // An instance whose template's constraint is never met (or that reads otherwise) is left out.
            guard
                let another = try? QTIReader.question(
                    try MarkupElement.parse(bytes),
                    missingAlt: &ignoredAlt,
                    notes: &ignoredNotes,
                    instance: instance
                )
            else { continue }
            if seen.insert(try CanonicalJSON.encode(another)).inserted { distinct.append(another) }
        }
        return distinct.count > 1 ? distinct : nil
    }

    /// Every item, in order, read on all cores.
    static func all(_ items: [(path: String, bytes: Data)], files: [String: Data]?) -> [ItemRead] {
        guard items.count > 1 else { return items.map { read($0.bytes, path: $0.path, files: files) } }
        let results = UnsafeMutableBufferPointer<ItemRead?>.allocate(capacity: items.count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        nonisolated(unsafe) let slots = results
        DispatchQueue.concurrentPerform(iterations: items.count) { index in
            slots[index] = read(items[index].bytes, path: items[index].path, files: files)
        }
        return results.map { $0! }
    }
}

import Foundation
import VaultAPI

/// Turns a teacher's file into our document: our JSON, Moodle XML, GIFT or Aiken (`auto` decides by content).
/// No storage here: `vault-server publish` validates and stores what this returns.
public enum AssessmentImporter {
    /// The largest file read (a document with its pictures may be 10 MB; a package's zip a little more).
    public static let maxFileBytes = 12 * 1024 * 1024

    public static func read(
        _ data: Data,
        fileName: String,
        format: ImportFormat = .auto,
        id: String? = nil,
        title: String? = nil
    ) throws -> ImportResult {
        guard data.count <= ImportSupport.maxBytes else {
            throw ImportError("The file is larger than any assessment may be (12 MB); nothing was read.")
        }
        let base = (fileName as NSString).lastPathComponent.components(separatedBy: ".").first ?? "imported"
        let kind = format == .auto ? detect(data) : format
        var result: ImportResult
        switch kind {
        case .json:
            guard let document = try? JSONDecoder().decode(Assessment.self, from: data) else {
                throw ImportError("This is not a valid assessment document (our JSON).")
            }
            result = ImportResult(assessment: document, skipped: [])
        case .moodleXML: result = try MoodleXMLReader.read(try MarkupElement.parse(data)).result(base: base)
        case .gift: result = try GIFTReader.read(try text(data)).result(base: base)
        case .aiken: result = try AikenReader.read(try text(data)).result(base: base)
        case .qti: result = try qti(data, base: base).result(base: base)
        case .auto:
            throw ImportError("The file's format could not be told from its content; give --format json, qti, moodle-xml, gift or aiken.")
        }
        guard result.assessment.questions.count <= AssessmentValidator.maxQuestions else {
            throw ImportError(
                "The file holds \(result.assessment.questions.count) questions; an assessment may hold at most \(AssessmentValidator.maxQuestions). Split it into several files; nothing was published."
            )
        }
        if let id { result.assessment.id = id }
        if let title { result.assessment.title = title }
        guard !result.assessment.questions.isEmpty else {
            let reasons = result.skipped.prefix(3).map { "\($0.label): \($0.reason)" }.joined(separator: "; ")
            throw ImportError("Nothing in the file can be taken in a terminal, so nothing was published" + (reasons.isEmpty ? "." : " (\(reasons))."))
        }
        // Each picture without a description, by its question, whatever the format (our JSON too).
        let undescribed = ImportSupport.undescribedPictureNotes(result.assessment)
        if !undescribed.isEmpty {
            result.notes.removeAll { $0.hasSuffix(ImportSupport.missingAltWords) }
            result.notes += undescribed
        }
        return result
    }

    /// The package's files read under the caps, nothing else (for `scripts/bench`: how much of an import is the zip).
    public static func unzipForBenchmark(_ data: Data) throws -> Int { try QTIPackage.files(data).count }

    /// One QTI item, or a content package of them. A package's items are parsed and read on every core at once
    /// (each is its own document), then put together in the package's order.
    static func qti(_ data: Data, base: String) throws -> ImportReport {
        let zip = data.prefix(4) == Data([0x50, 0x4B, 0x03, 0x04])
        let (items, title, files, repeated, weights, sections, sectionNotes):
            ([(path: String, bytes: Data)], String?, [String: Data], Int, [String: Double], [QTIPackage.TestSection], [String]) =
                zip ? try QTIPackage.items(data) : ([(base, data)], nil, [:], 0, [:], [], [])
        let read = ItemRead.all(items, files: zip ? files : nil)
        var report = ImportReport()
        var missingAlt = 0
        var missingPictures: [String] = []
        // The document's size as it grows (pictures are most of it): past the served cap the import stops, rather
        // than building a document no student could download.
        var outputBytes = 0
        var singleTitle: String?
        // Each item's question id, by path, for the test's sections.
        var questionIDs: [String: String] = [:]
        report.notes += sectionNotes
        for (index, item) in read.enumerated() {
            let path = items[index].path
            report.notes += item.notes
            missingAlt += item.missingAlt
            missingPictures += item.missingPictures
            singleTitle = item.title
            switch item.outcome {
            case .failed(let error):
                throw error
            case .skipped(let reason, let identifier):
                report.skipped.append(.init(item: item.title.map { "\"\($0)\"" } ?? path, reason: reason, path: path, identifier: identifier))
            case .read(var question):
                if let weight = weights[path], weight != 1 {
                    question.points = (question.points ?? 1) * weight
                    question.processing?.weight = weight
                    question.variants = question.variants?.map { instance in
                        var weighed = instance
                        weighed.points = (instance.points ?? 1) * weight
                        weighed.processing?.weight = weight
                        return weighed
                    }
                }
                outputBytes += ImportSupport.approximateBytes(of: question)
                guard outputBytes <= AssessmentValidator.maxDocumentBytes else { throw ImportError.tooLarge }
                report.add(question)
                questionIDs[path] = report.questions.last?.id
            }
        }
        report.sections(sections, questionIDs: questionIDs)
        if repeated > 0 { report.notes.append("The test names \(repeated) item(s) more than once; each item is included once.") }
        if missingAlt > 0 { report.notes.append(ImportSupport.missingAltNote(missingAlt)) }
        if !missingPictures.isEmpty {
            report.notes.append(
                "Pictures the package names but does not hold (their description stays in the text): \(missingPictures.joined(separator: ", "))."
            )
        }
        report.title = title ?? (items.count == 1 ? singleTitle : nil)
        return report
    }

    /// The format by content: JSON by its first character, XML by its root, then Aiken's ANSWER: lines, then GIFT's braces.
    public static func detect(_ data: Data) -> ImportFormat {
        let head = String(decoding: data.prefix(64 * 1024), as: UTF8.self)
        let start = head.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if start.hasPrefix("{") { return .json }
        if start.hasPrefix("<") {
            if head.contains("<quiz") { return .moodleXML }
            if head.contains("assessmentItem") || head.contains("qti-assessment-item") || head.contains("assessmentTest") { return .qti }
            return .moodleXML
        }
        if data.prefix(4) == Data([0x50, 0x4B, 0x03, 0x04]) { return .qti }
        if AikenReader.looksLike(head) { return .aiken }
        if GIFTReader.looksLike(head) { return .gift }
        return .auto
    }

    static func text(_ data: Data) throws -> String {
        guard let text = String(data: data, encoding: .utf8) else { throw ImportError("The file is not UTF-8 text.") }
        return text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
    }
}

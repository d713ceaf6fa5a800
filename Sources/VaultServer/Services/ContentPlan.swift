import Foundation
import VaultAPI
import VaultCore
import VaultImport
import VaultRules
import VaultScoring

/// A teacher's content file on its way to being published: read (any format the importers know), checked like any
/// document, and compared with what its id holds now. `vault-server publish` and the desk's upload both start here,
/// so a file is judged the same way wherever it comes in.
public struct ContentPlan: Sendable {
    public let result: ImportResult
    /// What the id holds now, as students download it; nil for a new id.
    public let current: Assessment?
    /// `current`, when this file is not a revision of it: publishing would replace another assessment, which is only
    /// done when asked for (`--replace`, or the desk's "Replace it" box).
    public let replacing: Assessment?

    public var assessment: Assessment { result.assessment }
    /// The points of every question.
    public var points: Double { result.assessment.questions.reduce(0) { $0 + Scoring.maxPoints($1) } }
    /// How many questions of each type, by the type's name.
    public var types: [(type: String, count: Int)] {
        var counts: [String: Int] = [:]
        for question in result.assessment.questions { counts[question.type.rawValue, default: 0] += 1 }
        return counts.sorted { $0.key < $1.key }.map { (type: $0.key, count: $0.value) }
    }

    /// Why a file cannot become an assessment, in a sentence for its teacher.
    /// Why the vaults would refuse to download `served` (a document that compresses past what they take as a
    /// compression bomb), in a sentence for the teacher; nil when they take it.
    public static func downloadRefusal(_ served: Data) -> String? {
        guard let ratio = Gzip.bombRatio(of: served) else { return nil }
        return
            "This document shrinks \(ratio) times when compressed (mostly the same text over and over), and students' vaults refuse a download past \(Gzip.Limits().maxRatio) times as a compression bomb. Remove the repeated text and publish again."
    }

    public struct Refused: Error, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// Reads and checks `data`; throws `Refused` for a file that cannot be published at all.
    public static func make(
        _ data: Data,
        fileName: String,
        format: ImportFormat = .auto,
        id: String? = nil,
        title: String? = nil,
        shuffle: Bool = true,
        storage: some ServerStorage
    ) async throws -> ContentPlan {
        var result: ImportResult
        do {
            result = try AssessmentImporter.read(data, fileName: fileName, format: format, id: id, title: title)
        } catch let error as ImportError {
            throw Refused(message: error.message)
        }
        // One order for the whole class on purpose (a test worked through together): the file's shuffling is off;
        // its pools still give each student their own questions.
        if !shuffle { result.assessment = result.assessment.withoutShuffling }
        return try await make(result, data: data, format: format, storage: storage)
    }

    /// Checks what an importer read from `data` (the desk reads files on a thread of its own first).
    public static func make(
        _ result: ImportResult,
        data: Data,
        format: ImportFormat = .auto,
        storage: some ServerStorage
    ) async throws -> ContentPlan {
        do {
            try PublishCheck.validate(result.assessment)
        } catch let problem as AssessmentValidator.Problem {
            throw Refused(message: problem.message)
        }
        if let served = try? AssessmentPublisher.serve(result.assessment, version: 1), let refusal = downloadRefusal(served.bytes) {
            throw Refused(message: refusal)
        }
        // A stored document that does not decode is named, never read as "nothing there" (which would let this file
        // replace it without being asked).
        var current: Assessment?
        if let served = try await storage.served(id: result.assessment.id) {
            guard let document = try? JSONDecoder().decode(Assessment.self, from: served.bytes) else {
                throw StorageError.damaged("the published document of \(result.assessment.id)")
            }
            current = document
        }
        // Our own JSON names its questions itself, so a revision may change them; an imported file's questions are
        // numbered by the importer, so the same numbers with other questions are another assessment.
        let ownJSON = (format == .auto ? AssessmentImporter.detect(data) : format) == .json
        let replacing = current.flatMap { AssessmentPublisher.isRevision(result.assessment, of: $0, comparingQuestions: !ownJSON) ? nil : $0 }
        return ContentPlan(result: result, current: current, replacing: replacing)
    }
}

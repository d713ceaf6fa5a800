import Foundation
import VaultAPI
import VaultModel

/// Turns a teacher's document into the served form: version set, question hashes, content hash.
public enum AssessmentPublisher {
    /// A served document larger than a student may download: refused on every way of publishing (the API, the
    /// command line, the desk), since every one of them comes through `serve`.
    public struct TooLarge: Error, Sendable, CustomStringConvertible {
        public let bytes: Int
        public var description: String {
            let megabytes = String(format: "%.1f", Double(bytes) / 1_048_576)
            return
                "As students would download it, the assessment is \(megabytes) MB, over the 10 MB an assessment may be (pictures count); make its pictures smaller or split it. Nothing was published."
        }
    }

    /// Whether `document` is a revision of the assessment `existing` (as served) under the same id: the same title,
    /// and (`comparingQuestions`, for a file whose id came from its name or `--id`) at least half the questions of the
    /// smaller of the two asked in the same words (a sealed document shows no questions: its title decides). Our own
    /// JSON names its id itself, so its title decides. Publishing anything else into the id replaces another
    /// assessment, which `vault-server publish` does only with `--replace`.
    public static func isRevision(_ document: Assessment, of existing: Assessment, comparingQuestions: Bool = true) -> Bool {
        func key(_ text: String) -> String { Scoring.normalized(text) }
        guard key(document.title) == key(existing.title) else { return false }
        guard comparingQuestions, !existing.questions.isEmpty, !document.questions.isEmpty else { return true }
        let before = Set(existing.questions.map { key($0.prompt) })
        let shared = document.questions.filter { before.contains(key($0.prompt)) }.count
        return 2 * shared >= min(before.count, document.questions.count)
    }

    /// The served document and its bytes, for a given version; `TooLarge` past `AssessmentValidator.maxDocumentBytes`.
    public static func serve(_ assessment: Assessment, version: Int) throws -> (document: Assessment, bytes: Data, contentHash: String) {
        let served = try ServedDocument.hashed(assessment.served, version: version)
        let bytes = try CanonicalJSON.encode(served)
        guard bytes.count <= AssessmentValidator.maxDocumentBytes else { throw TooLarge(bytes: bytes.count) }
        return (served, bytes, served.contentHash ?? "")
    }

    /// The teacher's content without server-assigned fields, to tell a real change from a re-publish.
    public static func sourceBytes(_ assessment: Assessment) throws -> Data {
        var source = assessment
        source.version = nil
        source.contentHash = nil
        for index in source.questions.indices { source.questions[index].hash = nil }
        return try CanonicalJSON.encode(source)
    }
}

/// Versioning on publish: the version grows only when the teacher's content changed (or the assessment was
/// deleted and comes back).
public enum PublishPlan {
    public struct NewVersion: Sendable {
        public var number: Int
        public var served: Data
        public var contentHash: String
    }

    /// `head` and `currentSource` (the stored source and content hash of the current version) as read in the
    /// publishing transaction.
    public static func decide(
        _ assessment: Assessment,
        source: Data,
        head: AssessmentHead?,
        currentSource: (source: Data, contentHash: String)?
    ) throws -> (response: PublishResponse, newVersion: NewVersion?) {
        if let head, !head.deleted, let currentSource, currentSource.source == source {
            return (PublishResponse(id: assessment.id, version: head.currentVersion, contentHash: currentSource.contentHash, changed: false), nil)
        }
        let number = (head?.currentVersion ?? 0) + 1
        let served = try AssessmentPublisher.serve(assessment, version: number)
        return (
            PublishResponse(id: assessment.id, version: number, contentHash: served.contentHash, changed: true),
            NewVersion(number: number, served: served.bytes, contentHash: served.contentHash)
        )
    }
}

/// Receipt ids: random, so they reveal nothing and cannot be guessed.
public enum Receipts {
    /// 64 bits from the system's CSPRNG (`SystemRandomNumberGenerator`: getrandom(2) on Linux).
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return "rcpt-" + Hex.encode((0..<8).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}

/// What a publish report says of how students get a document (issue 67): what each student draws of the sections,
/// whether their orders are shuffled, their maximum where the pool lets it differ, and the time limit. One place for
/// `vault-server publish`, its dry run and the desk.
public enum DrawSummary {
    public static func lines(_ assessment: Assessment) -> [String] {
        var lines: [String] = []
        let byID = Dictionary(assessment.questions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        if let sections = assessment.sections {
            let each = assessment.questionsPerStudent
            let parts = sections.map { section in
                let name = section.title ?? section.id
                let drawn =
                    section.count < section.questions.count
                    ? "\(name) gives \(section.count) of \(section.questions.count)" : "\(name) gives all \(section.questions.count)"
                return drawn + (section.shuffle == true ? " in each student's own order" : "")
            }
            lines.append(
                "Each student gets \(each) of the \(assessment.questions.count) questions: \(parts.joined(separator: "; "))."
            )
            // The least and the most a student's questions can be worth.
            var least = 0.0
            var most = 0.0
            for section in sections {
                let points = section.questions.compactMap { byID[$0].map(Scoring.maxPoints) }.sorted()
                least += points.prefix(section.count).reduce(0, +)
                most += points.suffix(section.count).reduce(0, +)
            }
            if least != most {
                lines.append(
                    "Each student's maximum is \(AttemptResult.pointsText(least)) to \(AttemptResult.pointsText(most)) points, by the questions they draw; gradebook files give each student's percentage of their own maximum."
                )
            }
        }
        if assessment.questions.contains(where: { $0.shufflesChoices(default: assessment.shuffleChoices ?? false) && !$0.body.orderableLists.isEmpty }
        ) {
            lines.append("Choices are shuffled for each student; each sees their own letters.")
        }
        if let limit = assessment.timeLimitSeconds {
            let minutes = limit / 60
            let seconds = limit % 60
            lines.append(
                "Time limit: "
                    + (seconds == 0
                        ? "\(minutes) minute\(minutes == 1 ? "" : "s")" : "\(minutes) min \(seconds) s")
                    + " from when each student starts."
            )
        }
        return lines
    }
}

import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultImport
import VaultRules
import VaultServer
import VaultTerminal

extension ImportFormat: ExpressibleByArgument {}

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create or update an assessment from our JSON, IMS QTI, Moodle XML, GIFT or Aiken; prints its version.",
        discussion: """
            The format is told from the content unless --format says it. What a terminal cannot take (matching, \
            drag and drop, cloze, …) is skipped and named; --strict refuses the whole file instead. A file with \
            nothing usable publishes nothing (exit 65).
            """
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The file to publish.") var file: String
    @Option(help: "auto, json, qti (an item or a .zip content package), moodle-xml, gift or aiken.") var format: ImportFormat = .auto
    @Option(help: "The assessment id (default: from the file name, made to fit a-z, 0-9 and '-').") var id: String?
    @Option(help: "The title (default: the file's own, or its name).") var title: String?
    @Option(help: "The teacher who owns a new assessment (on the desk it is theirs and their co-teachers').") var owner: String?
    @Flag(help: "Refuse the whole file when any item would be skipped.") var strict = false
    @Flag(
        help: "Replace what the id holds even when this file is not a revision of it (another title, or other questions); without it that is refused."
    )
    var replace = false
    @Flag(
        help:
            "Turn the file's shuffling off: every student sees the questions and choices in the author's order (a section's selection still gives each their own questions)."
    )
    var noShuffle = false
    @Flag(help: "Say what would be published (questions by type, points, what is skipped and why) and change nothing.")
    var dryRun = false
    @Flag(help: "Print {\"id\",\"version\",\"questions\",\"skipped\":[{\"item\",\"reason\"}]} as JSON.") var json = false

    struct Output: Encodable {
        let id: String
        let version: Int
        let questions: Int
        let skipped: [ImportResult.Skipped]
        let notes: [String]
    }

    func run() async throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch { throw ValidationError("Cannot read \(file).") }
        let storage = try await options.storage()
        guard try await storage.classroomLink() == nil else {
            throw ValidationError("This is a classroom server: publish at the district, then `vault-server classroom pull` brings it here.")
        }
        let plan: ContentPlan
        do {
            plan = try await ContentPlan.make(data, fileName: file, format: format, id: id, title: title, shuffle: !noShuffle, storage: storage)
        } catch let refused as ContentPlan.Refused {
            Self.fail("\(file): \(refused.message)")
        }
        let result = plan.result
        if strict, !result.skipped.isEmpty {
            for skip in result.skipped { TerminalText.errorLine("skipped \(skip.label): \(skip.reason)") }
            Self.fail("\(file): \(result.skipped.count) item(s) cannot be taken in a terminal and --strict was given; nothing was published.")
        }
        // What the id holds now, as students download it: a file that is not a revision of it replaces another
        // assessment, which is never done by accident.
        let current = plan.current
        let replacing = plan.replacing
        if dryRun {
            let existing = try await storage.catalog().first { $0.id == result.assessment.id }
            try Self.report(plan, existing: existing, json: json)
            return
        }
        // A teacher named as owner who may not change what the id holds is told that first.
        var publisher: Publisher?
        if let owner {
            guard let record = try await storage.user(named: owner), record.role.teaches else {
                throw ValidationError("There is no teacher called \(owner).")
            }
            publisher = Publisher(name: owner, role: record.role)
            if current != nil,
                !Ownership.mayAct(role: record.role, access: try await storage.teacherAccess(assessmentID: result.assessment.id, teacher: owner))
            {
                Self.notPermitted(file: file, id: result.assessment.id, owner: owner)
            }
        }
        if let replacing, !replace {
            Self.fail(
                "\(file): \(result.assessment.id) already holds \"\(replacing.title)\" (\(Self.count(replacing.totalQuestions))), and this file is not a revision of it; nothing was published. Give it its own id with --id, or replace it with --replace."
            )
        }
        let published: PublishResponse
        do {
            // The server's own command line publishes with an administrator's rights; --owner makes a teacher the
            // owner of a new assessment (and must be one who may change an existing one).
            published = try await storage.publish(result.assessment, now: Date(), by: publisher)
        } catch let tooLarge as AssessmentPublisher.TooLarge {
            Self.fail("\(file): \(tooLarge.description)")
        } catch StorageError.notPermitted(let id) {
            Self.notPermitted(file: file, id: id, owner: owner ?? "")
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let output = Output(
                id: published.id,
                version: published.version,
                questions: result.assessment.questions.count,
                skipped: result.skipped,
                notes: result.notes
            )
            print(String(decoding: try encoder.encode(output), as: UTF8.self))
            return
        }
        let count = result.assessment.questions.count
        let questions = "\(count) question\(count == 1 ? "" : "s")"
        TerminalText.line(
            published.changed
                ? "Published \(published.id) version \(published.version) (\(questions))."
                : "\(published.id) is unchanged at version \(published.version) (\(questions))."
        )
        for line in DrawSummary.lines(result.assessment) { TerminalText.line(line) }
        for skip in result.skipped { TerminalText.line("Skipped \(skip.label): \(skip.reason).") }
        for note in result.notes { TerminalText.line("Note: \(note)") }
    }

    /// What `--dry-run` says: the import report, and what publishing would do to an assessment already there.
    static func count(_ questions: Int) -> String { "\(questions) question\(questions == 1 ? "" : "s")" }

    static func report(_ plan: ContentPlan, existing: CatalogEntry?, json: Bool) throws {
        let result = plan.result
        let replacing = plan.replacing
        let questions = result.assessment.questions
        let points = plan.points
        let types = Dictionary(uniqueKeysWithValues: plan.types.map { ($0.type, $0.count) })
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let output = DryRun(
                id: result.assessment.id,
                title: result.assessment.title,
                questions: questions.count,
                points: points,
                types: types,
                skipped: result.skipped,
                notes: result.notes,
                existingVersion: existing?.version,
                replaces: replacing.map { _ in true }
            )
            print(String(decoding: try encoder.encode(output), as: UTF8.self))
            return
        }
        let count = "\(questions.count) question\(questions.count == 1 ? "" : "s")"
        let title = result.assessment.title
        TerminalText.line(
            "Would publish \(result.assessment.id), \"\(title)\": \(count), \(AttemptResult.pointsText(points)) point\(points == 1 ? "" : "s")."
        )
        for (type, number) in types.sorted(by: { $0.key < $1.key }) {
            TerminalText.line("  \(type.replacingOccurrences(of: "_", with: " ")): \(number)")
        }
        for line in DrawSummary.lines(result.assessment) { TerminalText.line(line) }
        for skip in result.skipped { TerminalText.line("Would skip \(skip.label): \(skip.reason).") }
        for note in result.notes { TerminalText.line("Note: \(note)") }
        if let replacing {
            TerminalText.line(
                "\(result.assessment.id) holds \"\(replacing.title)\" (\(Self.count(replacing.totalQuestions))), which this file is not a revision of: publishing is refused without --replace."
            )
        } else if let existing {
            TerminalText.line(
                "\(existing.id) exists (\"\(existing.title)\", version \(existing.version)): publishing would make version \(existing.version + 1) if anything changed."
            )
        }
        TerminalText.line("Nothing was published (--dry-run).")
    }

    struct DryRun: Encodable {
        let id: String
        let title: String
        let questions: Int
        let points: Double
        let types: [String: Int]
        let skipped: [ImportResult.Skipped]
        let notes: [String]
        let existingVersion: Int?
        /// The id holds another assessment, which publishing would replace (only with --replace).
        let replaces: Bool?
        enum CodingKeys: String, CodingKey {
            case id, title, questions, points, types, skipped, notes
            case existingVersion = "existing_version"
            case replaces
        }
    }

    /// A file that cannot be published: a sentence on stderr, exit 65, nothing stored.
    /// A teacher named with --owner who may not change the assessment the id holds: one sentence, whichever check finds it.
    static func notPermitted(file: String, id: String, owner: String) -> Never {
        fail("\(file): \(id) belongs to other teachers, so \(owner) cannot replace it; nothing was published.")
    }

    static func fail(_ message: String) -> Never {
        TerminalText.errorLine("vault-server: \(message)")
        Foundation.exit(65)
    }
}

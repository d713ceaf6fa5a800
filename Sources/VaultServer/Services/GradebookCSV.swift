import Foundation
import VaultAPI
import VaultRules

/// Gradebook files a teacher imports elsewhere: Moodle's grade import, Canvas's gradebook, and a plain per-question
/// file. One header row, UTF-8 (names in any script), numbers as numbers (0 is 0; a missing hand-in, or a total
/// with answers still to grade, is an empty cell, never 0), and every text cell quoted and guarded against formula injection (a cell a spreadsheet would run,
/// starting with = + - @ or a tab or carriage return, gets a leading apostrophe).
public enum GradebookCSV {
    public enum Format: String, CaseIterable, Sendable {
        case moodle, canvas, csv
    }

    /// The rows, header first, each ending in CRLF (RFC 4180), handed to `write` one at a time so a large class
    /// streams out.
    public static func write(_ facts: RosterFacts, roster: Roster, format: Format, to write: (String) async throws -> Void) async throws {
        let scale = Scale(facts.document)
        try await header(facts, format: format, scale: scale, to: write)
        try await rows(roster.students, inputs: facts.results, document: facts.document, format: format, scale: scale, to: write)
    }

    /// How a gradebook's one score column is written. Points, while every student has the same maximum; when the
    /// document lets maxima differ (a pool whose questions are worth different points), the same points would not be
    /// the same grade (8 of 8 and 8 of 9 both "8"), so the column is each student's percentage of their own maximum,
    /// and its header says so (the grade item's maximum is then 100 in Moodle or Canvas). Decided by the document,
    /// before any row, so a file streamed in chunks has one scale.
    public enum Scale: Sendable, Equatable {
        case points
        case percent

        public init(_ document: Assessment) {
            let byID = Dictionary(document.questions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let uneven = (document.sections ?? []).contains { section in
                section.count < section.questions.count && Set(section.questions.compactMap { byID[$0].map(Scoring.maxPoints) }).count > 1
            }
            let variants = document.questions.contains { question in Set((question.variants ?? []).map(Scoring.maxPoints)).count > 1 }
            self = uneven || variants ? .percent : .points
        }

        func score(_ student: Roster.Student) -> Cell {
            guard case .number(let points) = gradebookScore(student) else { return .empty }
            switch self {
            case .points: return .number(points)
            case .percent:
                guard let max = student.maxScore, max > 0 else { return .empty }
                return .number(points / max * 100)
            }
        }
    }

    /// The header row.
    public static func header(_ facts: RosterFacts, format: Format, scale: Scale = .points, to write: (String) async throws -> Void) async throws {
        let title = facts.document.title
        switch format {
        case .moodle:
            try await write(
                line([
                    .text("Username"), .text("Group"), .text(scale == .percent ? "\(title) (percent of each student's maximum)" : "\(title) (Real)"),
                ])
            )
        case .canvas:
            try await write(
                line([
                    .text("Student"), .text("ID"), .text("SIS User ID"), .text("SIS Login ID"), .text("Section"),
                    .text(scale == .percent ? "\(title) percent (\(facts.assessmentID))" : "\(title) (\(facts.assessmentID))"),
                ])
            )
        case .csv:
            let questions = facts.document.questions.map { Cell.text($0.id) }
            try await write(
                line(
                    [
                        .text("user"), .text("group"), .text("attempt_id"), .text("submitted_at"), .text("via"), .text("score"), .text("max_score"),
                        .text("pending"),
                    ]
                        + questions + [.text("flags"), .text("late_decision")]
                )
            )
        }
    }

    /// One row per student of `students` (scored), their answers' points from `inputs` (the per-question file).
    public static func rows(
        _ students: [Roster.Student],
        inputs: [ResultInput],
        document: Assessment,
        format: Format,
        scale: Scale = .points,
        to write: (String) async throws -> Void
    ) async throws {
        let inputs = Dictionary(inputs.map { ($0.record.attemptID, $0) }, uniquingKeysWith: { first, _ in first })
        for student in students {
            let input = student.attemptId.flatMap { inputs[$0] }
            switch format {
            case .moodle:
                try await write(line([.text(student.user), .text(student.group ?? ""), scale.score(student)]))
            case .canvas:
                try await write(
                    line([.text(student.user), .empty, .empty, .text(student.user), .text(student.group ?? ""), scale.score(student)])
                )
            case .csv:
                let awarded = Dictionary(
                    (input?.result.questions ?? []).map { ($0.questionId, $0.points) },
                    uniquingKeysWith: { first, _ in first }
                )
                // A question answered but not graded yet says so; one not answered (or nothing handed in) is empty.
                let points = document.questions.map { question -> Cell in
                    guard let entry = awarded[question.id] else { return .empty }
                    return entry.map(Cell.number) ?? .text(Self.pendingCell)
                }
                try await write(
                    line(
                        [
                            .text(student.user), .text(student.group ?? ""), .text(student.attemptId ?? ""),
                            .text(student.submittedAt ?? ""), .text(student.via?.rawValue ?? ""),
                            student.score.map(Cell.number) ?? .empty, student.maxScore.map(Cell.number) ?? .empty,
                            student.pending.map { .number(Double($0)) } ?? .empty,
                        ] + points + [.text(student.flags.map(\.rawValue).joined(separator: " ")), .text(student.lateDecision?.rawValue ?? "")]
                    )
                )
            }
        }
    }

    /// What the per-question file shows for an answer that waits for the teacher.
    static let pendingCell = "pending"

    /// A gradebook's score: empty when nothing was handed in, while any answer still waits for the teacher (a
    /// partial total imported into Moodle or Canvas would look final), or when it arrived after closing and the
    /// teacher has not decided yet (it would otherwise count before they looked).
    static func gradebookScore(_ student: Roster.Student) -> Cell {
        guard let score = student.score else { return .empty }
        if let pending = student.pending, pending > 0 { return .empty }
        if student.flags.contains(.afterClosing), student.lateDecision == nil { return .empty }
        return .number(score)
    }

    public enum Cell: Equatable {
        case text(String)
        case number(Double)
        case empty
    }

    public static func line(_ cells: [Cell]) -> String {
        cells.map(render).joined(separator: ",") + "\r\n"
    }

    static func render(_ cell: Cell) -> String {
        switch cell {
        case .empty: return ""
        case .number(let value): return number(value)
        case .text(let text):
            let guarded = text.first.map { "=+-@\t\r".contains($0) } == true ? "'" + text : text
            return "\"" + guarded.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
    }

    /// 0 as 0, 2.5 as 2.5, at most two decimals, a point as the separator whatever the locale.
    static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        if abs(rounded) < 1e15, let whole = Int(exactly: rounded) { return String(whole) }
        var text = String(format: "%.2f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}

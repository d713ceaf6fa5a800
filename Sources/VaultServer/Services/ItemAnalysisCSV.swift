import Foundation
import VaultRules

/// The item analysis as a file: one row per question and one for the whole test, percentages as numbers (facility
/// 45 is 45 %), an empty cell where a figure cannot be worked out (one attempt, or marks that do not vary).
public enum ItemAnalysisCSV {
    public static let header = [
        "question", "prompt", "max_points", "attempts", "average", "median", "facility_percent", "sd_percent", "discrimination_index",
        "discriminative_efficiency", "cic", "error_ratio", "standard_error", "concerns",
    ]

    public static func lines(_ analysis: ItemAnalysis) -> [String] {
        typealias Cell = GradebookCSV.Cell
        func number(_ value: Double?) -> Cell { value.map(Cell.number) ?? .empty }
        func percent(_ value: Double?) -> Cell { number(value.map { $0 * 100 }) }
        var lines = [GradebookCSV.line(header.map(Cell.text))]
        for question in analysis.questions {
            lines.append(
                GradebookCSV.line([
                    .text(question.id), .text(question.prompt), .number(question.maxPoints), .number(Double(question.attempts)),
                    number(question.averagePoints), .empty, percent(question.facility), percent(question.standardDeviation),
                    number(question.discriminationIndex), number(question.discriminativeEfficiency), .empty, .empty, .empty,
                    .text(question.concerns.map(\.rawValue).joined(separator: " ")),
                ])
            )
        }
        let test = analysis.test
        lines.append(
            GradebookCSV.line([
                .text("(whole test)"), .empty, .number(test.maxPoints), .number(Double(test.attempts)), number(test.average), number(test.median),
                .empty, test.maxPoints == 0 ? .empty : percent(test.standardDeviation.map { $0 / test.maxPoints }), .empty, .empty,
                number(test.internalConsistency), number(test.errorRatio), number(test.standardError), .empty,
            ])
        )
        return lines
    }
}

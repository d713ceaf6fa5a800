import ArgumentParser
import VaultCore

enum EvictionOutput {
    static func print(_ report: EvictionReport, console: Console) throws {
        if !report.evicted.isEmpty {
            console.line("Removed \(report.evicted.joined(separator: ", ")) (\(Console.bytes(report.freedBytes)) freed).")
        }
        for kept in report.kept { console.line("Kept \(kept.id): \(kept.reason).") }
        if report.evicted.isEmpty, report.kept.isEmpty { console.line("Nothing to remove.") }
        console.emit(report)
        if !report.kept.isEmpty { throw CommandExit(code: VaultExit.attention) }
    }
}

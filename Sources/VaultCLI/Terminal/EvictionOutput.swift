import ArgumentParser
import VaultCore
import VaultLanguage

enum EvictionOutput {
    static func print(_ report: EvictionReport, console: Console) throws {
        if !report.evicted.isEmpty {
            console.line(
                tr("Removed {ids} ({size} freed).", ["ids": report.evicted.joined(separator: ", "), "size": Console.bytes(report.freedBytes)])
            )
        }
        for kept in report.kept { console.line(tr("Kept {id}: {reason}.", ["id": kept.id, "reason": kept.reason])) }
        if report.evicted.isEmpty, report.kept.isEmpty { console.line(tr("Nothing to remove.")) }
        console.emit(report)
        if !report.kept.isEmpty { throw CommandExit(code: VaultExit.attention) }
    }
}

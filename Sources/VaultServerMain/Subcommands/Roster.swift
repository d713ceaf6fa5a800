import ArgumentParser
import Foundation
import VaultAPI
import VaultServer
import VaultTerminal

struct RosterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roster",
        abstract: "Every expected student of an assessment: downloaded, handed in, time, score and flags."
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "The assessment id.") var id: String
    @Option(help: "Only the students of this group.") var group: String?
    @Flag(help: "The roster as JSON.") var json = false

    func run() async throws {
        let roster: Roster
        do {
            roster = try await options.desk().roster(id, group: group)
        } catch let problem as TeacherDesk.Problem {
            throw ValidationError(problem.description)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(roster), as: UTF8.self))
            return
        }
        TerminalText.line("\(roster.title) (\(roster.assessmentId), version \(roster.version))\(roster.group.map { ", group \($0)" } ?? "")")
        TerminalText.line(
            "\(roster.downloadedCount) of \(roster.students.count) downloaded, \(roster.handedInCount) of \(roster.students.count) handed in"
                + (roster.closesAt.map { (roster.closed ? "; closed " : "; closes ") + Timestamp.readable($0) } ?? "")
        )
        let rows = roster.students.map { student -> [String] in
            let downloaded = student.downloadedVersion.map { "v\($0)" + student.downloadedWhere } ?? "no"
            var handedIn = "no"
            if let received = student.receivedAt {
                handedIn = Timestamp.readable(received) + (student.via == .handIn ? " (file)" : "") + student.devicesText + student.handedInWhere
            }
            if student.state == .answering || student.state == .refused {
                handedIn = student.stateText + (student.startedAt.map { "; started " + Timestamp.readable($0) } ?? "")
            }
            var score = ""
            if let value = student.score { score = AttemptResult.pointsText(value) + "/" + AttemptResult.pointsText(student.maxScore ?? 0) }
            var flags = (student.flags.map(\.label) + (student.record?.words ?? [])).joined(separator: ", ")
            if let decision = student.lateDecision { flags += " (\(decision.rawValue))" }
            for apart in student.keptApart ?? [] {
                flags +=
                    (flags.isEmpty ? "" : ", ") + "kept apart: attempt \(apart.attemptId) by a revoked device, "
                    + Timestamp.readable(apart.receivedAt)
                    + (apart.decision == .zeroed ? " (discarded)" : " (waiting: accept or discard it on the desk)")
            }
            return [student.user, student.group ?? "", downloaded, handedIn, score, flags]
        }
        var table = TextTable(["Student", "Group", "Downloaded", "Handed in", "Score", "Flags"], flexible: 5)
        for row in rows { table.add(row) }
        // No trailing spaces when the last columns are empty.
        for line in table.render() { TerminalText.line(String(line.reversed().drop { $0 == " " }.reversed())) }
    }
}

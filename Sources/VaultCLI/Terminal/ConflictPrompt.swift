import Foundation
import VaultCore
import VaultSync
import VaultTerminal

/// Asks the student, in plain words, what to do when an assessment changed under their answers.
struct ConflictPrompt: ConflictResolver {
    func decide(_ conflict: ConflictGroup) async -> ConflictChoice {
        let questions = conflict.questionIDs.isEmpty ? "" : " Questions that changed: \(conflict.questionIDs.joined(separator: ", "))."
        var text = """

            \(conflict.title) changed on the server after you answered it (you have version \(conflict.localVersion); \
            the server now has version \(conflict.serverVersion)).\(questions)
              [s] Submit anyway: send your answers as they are
              [d] Discard those answers and download the new version
              [c] Contact your teacher\(conflict.teacherContact.map { " (\($0))" } ?? ""); your answers stay saved here
            Your choice [s/d/c]:
            """
        text += " "
        while true {
            FileHandle.standardError.write(Data(TerminalText.visible(text).utf8))
            guard let line = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() else { return .keep }
            switch line {
            case "s": return .submit
            case "d": return .discard
            case "c", "":
                if let contact = conflict.teacherContact {
                    FileHandle.standardError.write(
                        Data(TerminalText.visible("Your teacher can be reached at \(contact). Your answers are kept.\n").utf8)
                    )
                }
                return .keep
            default: text = "Please type s, d or c: "
            }
        }
    }
}

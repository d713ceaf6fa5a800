import Foundation
import VaultCore
import VaultLanguage
import VaultSync
import VaultTerminal

/// Asks the student, in plain words, what to do when an assessment changed under their answers.
struct ConflictPrompt: ConflictResolver {
    func decide(_ conflict: ConflictGroup) async -> ConflictChoice {
        var what = tr(
            "{title} changed on the server after you answered it (you have version {local}; the server now has version {server}).",
            ["title": conflict.title, "local": conflict.localVersion, "server": conflict.serverVersion]
        )
        if !conflict.questionIDs.isEmpty {
            what += " " + tr("Questions that changed: {questions}.", ["questions": conflict.questionIDs.joined(separator: ", ")])
        }
        let contact =
            conflict.teacherContact.map { tr("[c] Contact your teacher ({contact}); your answers stay saved here", ["contact": $0]) }
            ?? tr("[c] Contact your teacher; your answers stay saved here")
        var text =
            [
                "", what, "  " + tr("[s] Submit anyway: send your answers as they are"),
                "  " + tr("[d] Discard those answers and download the new version"), "  " + contact, tr("Your choice [s/d/c]:"),
            ].map(Language.marked).joined(separator: "\n") + " "
        while true {
            FileHandle.standardError.write(Data(TerminalText.visible(text).utf8))
            guard let line = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() else { return .keep }
            switch line {
            case "s": return .submit
            case "d": return .discard
            case "c", "":
                if let contact = conflict.teacherContact {
                    FileHandle.standardError.write(
                        Data(
                            TerminalText.visible(tr("Your teacher can be reached at {contact}. Your answers are kept.", ["contact": contact]) + "\n")
                                .utf8
                        )
                    )
                }
                return .keep
            default: text = tr("Please type s, d or c:") + " "
            }
        }
    }
}

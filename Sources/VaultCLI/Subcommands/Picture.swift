import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultModel
import VaultTerminal

/// `vault picture ID Q [N]`: one of a question's pictures, large, in the system's viewer; or written where asked.
struct Picture: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open a question's picture in the system's viewer, or write it to a file with --out.",
        discussion:
            "Without --out the picture is written to a private file (in $XDG_RUNTIME_DIR, or a private temporary directory) only while it is shown, and removed when you press Enter. `vault show ID --json` lists each question's pictures."
    )
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @Argument(help: "The assessment id.") var id: String
    @Argument(help: "The question id.") var question: String
    @Argument(help: "Which of the question's pictures (1 for the first).") var number = 1
    @Option(help: "Write the picture here (created private, 0600) instead of opening it.") var out: String?

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        let assessment = try vault.latestAttempt(on: id)?.assessment ?? vault.loadAssessment(id: id).assessment
        guard let asked = assessment.question(question) else {
            throw VaultError(.notFound, tr("{id} has no question {question}; `vault show {id}` lists them.", ["id": id, "question": question]))
        }
        let pictures = QuestionPictures.images(asked)
        guard !pictures.isEmpty else { throw VaultError(.notFound, tr("Question {question} has no picture.", ["question": question])) }
        guard (1...pictures.count).contains(number) else {
            throw VaultError(
                .usage,
                trn("Question {question} has {n} picture.", "Question {question} has {n} pictures.", pictures.count, ["question": question])
            )
        }
        let media = pictures[number - 1]
        guard let bytes = Data(base64Encoded: media.data) else {
            throw VaultError(.databaseDamaged, tr("This picture is damaged in the vault. Download the assessment again when online."))
        }
        let caption = QuestionPictures.caption(media, number: number, count: pictures.count)
        if let out {
            try SecureFiles.atomicWrite(bytes, to: out)
            context.console.line(tr("{caption} — written to {file}.", ["caption": caption, "file": out]))
            context.console.emit(["file": out, "mime_type": media.mimeType, "description": media.alt])
            return
        }
        let environment = ProcessInfo.processInfo.environment
        let desktop = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        guard desktop, let opener = Self.executable("xdg-open", path: environment["PATH"] ?? "/usr/bin:/bin") else {
            context.console.line(
                tr(
                    "There is no desktop here to show the picture in. `vault picture {id} {question} {number} --out FILE` writes it to a file.",
                    [
                        "id": id, "question": question, "number": number,
                    ]
                )
            )
            return
        }
        // Only a PNG or a JPEG, told apart by its own bytes and read whole within the take screen's limits, is handed
        // to a viewer (issue 70: an SVG with a script, named a picture, went to xdg-open): what it says it is counts
        // for nothing.
        guard (try? TerminalPicture.decode(bytes)) != nil else {
            throw VaultError(
                .invalidData,
                tr(
                    "This picture is not a PNG or JPEG file that can be checked, so it is not opened. `vault picture {id} {question} {number} --out FILE` writes it to a file.",
                    ["id": id, "question": question, "number": number]
                )
            )
        }
        // Only now, with a viewer to show it, is a copy written (private, and removed when the student is done).
        let directory = try Self.privateDirectory()
        let file = directory + "/picture-" + UUID().uuidString + (bytes.first == 0x89 ? ".png" : ".jpg")
        try SecureFiles.atomicWrite(bytes, to: file)
        defer { try? FileManager.default.removeItem(atPath: file) }  // best effort: the next start removes leftovers
        let viewer = Process()
        viewer.executableURL = URL(fileURLWithPath: opener)
        viewer.arguments = [file]
        viewer.standardOutput = FileHandle.nullDevice
        viewer.standardError = FileHandle.nullDevice
        try viewer.run()
        viewer.waitUntilExit()
        context.console.line(
            tr("{caption} — open in your picture viewer. Press Enter when you are done; the copy is removed then.", ["caption": caption])
        )
        _ = readLine()
    }

    /// `$XDG_RUNTIME_DIR/vault-pictures` (the user's own, on a RAM file system) or a private directory under the
    /// temporary directory; what an earlier run left there (a crash, a kill) is removed first.
    static func privateDirectory() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? NSTemporaryDirectory()
        let directory = (base.hasSuffix("/") ? base : base + "/") + "vault-pictures-\(getuid())"
        try SecureFiles.createDirectory(directory)
        try SecureFiles.checkPrivate(directory, isDirectory: true)
        for leftover in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where leftover.hasPrefix("picture-") {
            try? FileManager.default.removeItem(atPath: directory + "/" + leftover)
        }
        return directory
    }

    static func executable(_ name: String, path: String) -> String? {
        path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

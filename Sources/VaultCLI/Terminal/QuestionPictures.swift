import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultTerminal

extension PictureMode: ExpressibleByArgument {}

/// `--pictures`, for the commands that show questions.
struct PictureOptions: ParsableArguments {
    @Option(help: ArgumentHelp(tr("How pictures are drawn: auto, symbols, sixel, kitty or off (also `vault config set display.pictures N`).")))
    var pictures: PictureMode?

    /// The mode to draw in: off in screen-reader mode, with --json and when stdout is not a terminal; symbols without
    /// colour under NO_COLOR; else the flag, the setting, or what the terminal is.
    func mode(
        vault: Vault,
        console: Console,
        speaks: Bool,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws
        -> PictureMode
    {
        guard !speaks, !console.json, isatty(STDOUT_FILENO) == 1 else { return .off }
        let setting = try vault.settings().value("display.pictures")
        let chosen = pictures ?? PictureMode.setting(setting)
        guard chosen != .off else { return .off }
        return console.color ? chosen.resolved(environment: environment) : .symbols
    }
}

/// A question's pictures as the terminal shows them: each drawn (fitted to the width and at most half the height),
/// with its description under it; a picture that cannot be drawn (not a PNG or JPEG, damaged, too large) or with
/// pictures off, the description alone. Decoded from the vault's copy only while it is drawn.
enum QuestionPictures {
    static func images(_ question: Question) -> [Media] { (question.media ?? []).filter { $0.mimeType.lowercased().hasPrefix("image/") } }

    /// "Picture 1 of 2: a map of Kenya" or "Picture 1 of 2 (no description)".
    static func caption(_ media: Media, number: Int, count: Int) -> String {
        let alt = TerminalText.visible(media.alt.trimmingCharacters(in: .whitespacesAndNewlines))
        return alt.isEmpty
            ? tr("Picture {number} of {count} (no description)", ["number": number, "count": count])
            : tr("Picture {number} of {count}: {description}", ["number": number, "count": count, "description": alt])
    }

    /// The text to print: drawn pictures keep their escapes (chafa's own), every caption is made visible.
    static func text(_ question: Question, mode: PictureMode, colors: PictureColors, columns: Int, rows: Int) -> String {
        let pictures = images(question)
        var text = ""
        for (index, media) in pictures.enumerated() {
            var caption = caption(media, number: index + 1, count: pictures.count)
            if mode != .off {
                do throws(TerminalPicture.Problem) {
                    guard let bytes = Data(base64Encoded: media.data) else { throw .damaged }
                    let pixels = try TerminalPicture.decode(bytes)
                    let drawn = TerminalPicture.draw(pixels, columns: max(8, columns - 2), rows: max(2, rows / 2 - 2), mode: mode, colors: colors)
                    text += drawn.hasSuffix("\n") ? drawn : drawn + "\n"
                } catch {
                    caption += " " + tr("(the picture cannot be shown here)")
                }
            }
            text += DisplayWidth.wrapped(caption, width: max(20, columns - 1)) + "\n"
        }
        return text
    }
}

import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultLanguage
import VaultModel
import VaultTake
import VaultTerminal

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: tr("The questions, with the answers of the current attempt."))
    @OptionGroup var globals: GlobalOptions
    @OptionGroup var credentials: CredentialSources
    @OptionGroup var startCode: StartCodeSource
    @OptionGroup var pictureOptions: PictureOptions
    @Argument(help: ArgumentHelp(tr("The assessment id."))) var id: String
    @Flag(help: ArgumentHelp(tr("For a timed assessment not started yet: start its clock and show the questions."))) var start = false

    struct Item: Encodable {
        let id: String
        let type: String
        let prompt: String
        let choices: [Choice]?
        let left: [Choice]?
        let right: [Choice]?
        let items: [Choice]?
        let blanks: [Blank]?
        let answer: JSONValue?
        let flagged: Bool
        let pictures: [Picture]?
    }

    /// A picture as `--json` lists it (`vault picture ID Q N` writes its bytes).
    struct Picture: Encodable {
        let name: String
        let mimeType: String
        let description: String
        enum CodingKeys: String, CodingKey {
            case name, description
            case mimeType = "mime_type"
        }
    }

    func run() throws {
        let context = CommandContext(globals)
        let vault = try context.openVault(credentials)
        try startCode.unsealIfSealed(vault, id: id, console: context.console)
        var attempt = try vault.latestAttempt(on: id)
        let assessment = try attempt?.assessment ?? vault.loadAssessment(id: id).assessment
        if let limit = assessment.timeLimitSeconds {
            // Seeing the questions of a timed assessment starts its clock: never without the student saying so.
            let started = attempt.map { $0.state != .inProgress || $0.time.isStarted } ?? false
            if !started {
                guard start || TimedStart.confirm(assessment, limitSeconds: limit, console: context.console) else {
                    // Said for scripts too: not started, no question shown (`--json` printed nothing before).
                    context.console.emit(
                        ShowResult(id: id, title: assessment.title, version: assessment.version ?? 0, attemptState: .notStarted, questions: [])
                    )
                    throw CommandExit(code: VaultExit.ok)
                }
                let open = try vault.openAttempt(on: id)
                attempt = try vault.startClock(attemptID: open.id)
            } else if let open = attempt, open.state == .inProgress, try vault.submitIfTimeIsUp(attemptID: open.id) {
                attempt = try vault.attempt(open.id)
                context.console.warn(
                    tr("The time for {title} ran out, so it was submitted with the answers saved before.", ["title": assessment.title])
                )
            }
        }
        let items = assessment.questions.map { question in
            // The JSON spells the question as the wire does.
            let fields = question.fields
            return Item(
                id: question.id,
                type: question.type.rawValue,
                prompt: question.prompt,
                choices: fields.choices,
                left: fields.left,
                right: fields.right,
                items: fields.items,
                blanks: fields.blanks,
                answer: attempt?.answers[question.id],
                flagged: attempt?.flagged.contains(question.id) ?? false,
                pictures: question.media.map { $0.map { Picture(name: $0.name, mimeType: $0.mimeType, description: $0.alt) } }
            )
        }
        let console = context.console
        // Titles, prompts and choices are the document's: their control characters shown, never obeyed (the line keeps only
        // our own styles).
        console.line(
            tr("{title}  (version {version})", ["title": console.bold(TerminalText.visible(assessment.title)), "version": assessment.version ?? 0])
        )
        let mode = try pictureOptions.mode(vault: vault, console: console, speaks: false)
        let colors = PictureColors.from(environment: ProcessInfo.processInfo.environment, color: console.color)
        let progress = attempt.map { AttemptProgress($0.state, timed: $0.timeLimit != nil, clockStarted: $0.time.isStarted) } ?? .none
        console.line(tr("Attempt: {state}", ["state": progress == .none ? tr("not started") : progress.words]))
        for (index, question) in assessment.questions.enumerated() {
            console.line("")
            console.line(Language.marked("\(Language.number(index + 1)). [\(question.id)] \(TerminalText.visible(question.prompt))"))
            if !QuestionPictures.images(question).isEmpty {
                console.drawn(
                    QuestionPictures.text(
                        question,
                        mode: mode,
                        colors: colors,
                        columns: DisplayWidth.terminalColumns,
                        rows: DisplayWidth.terminalRows
                    )
                )
            }
            for (letter, choice) in zip(TakeSession.letters, question.body.choices) {
                // The letter the student answers with; the file's id only in --json (issue 71).
                console.line(Language.marked("   \(letter)) \(TerminalText.visible(choice.text))"))
            }
            for line in VisualTakeRenderer.itemLines(question, current: nil) { console.line(Language.marked(" " + line)) }
            let answer = attempt?.answers[question.id].map { AnswerWords.text($0, for: question) } ?? tr("(no answer)")
            console.line(
                Language.marked(
                    "   "
                        + (items[index].flagged ? tr("Answer: {answer}  [flagged]", ["answer": answer]) : tr("Answer: {answer}", ["answer": answer]))
                )
            )
        }
        console.emit(
            ShowResult(
                id: id,
                title: assessment.title,
                version: assessment.version ?? 0,
                attemptState: progress,
                questions: items
            )
        )
    }

    struct ShowResult: Encodable {
        let id: String
        let title: String
        let version: Int
        let attemptState: AttemptProgress
        let questions: [Item]
        enum CodingKeys: String, CodingKey {
            case id, title, version, questions
            case attemptState = "attempt_state"
        }
    }
}

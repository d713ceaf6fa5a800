import Foundation
import Mustache
import VaultAPI
import VaultImport
import VaultRules

/// What the desk's templates show: plain values, every one already worded for a person (the templates only place
/// and escape them). Mustache reads stored properties, so each view is built whole in its initializer.
enum DeskView {
    struct Message {
        var title: String
        var heading: String
        var text: String
        var back: String
        var user: String?
    }

    struct Login {
        var title: String
        var nonce: String
        var problem: String?
        /// A classroom server: its teacher types a desk code where the password goes.
        var classroom = false
    }

    struct AssessmentRow {
        var id: String
        var idPath: String
        var title: String
        var version: Int
        var sealed: String
        var opens: String
        var closes: String
        var handedIn: Int
        var expected: Int
    }

    struct Assessments {
        var title: String
        var user: String?
        var csrf: String
        var rows: [AssessmentRow]
        /// An administrator sees the link to the server's page.
        var admin = false
        /// Students and assessments are added here (not on a classroom server, which pulls them from its district).
        var local = true
        /// A classroom server's tie to its district (nil elsewhere).
        var classroom: Classroom? = nil
    }

    /// A classroom server's tie to its district, in the sentences `vault-server classroom status` prints.
    struct Classroom {
        var lines: [String]
    }

    /// The server's page for administrators: `ServerStatus` in words, two charts and a table.
    struct ServerPage {
        struct Bar {
            var kind: String
            var x: Int
            var y: Int
            var height: Int
            var tip: String
        }
        struct Chart {
            var label: String
            var most: Int
            var bars: [Bar]
        }
        struct SlowRoute {
            var route: String
            var mean: String
            var longest: String
            var requests: Int
        }
        var title = "Server"
        var user: String?
        var csrf: String
        var version: String
        var uptime: String
        var startedAt: String
        var storeKind: String
        var storeSize: String
        var storeState: String
        var requests: Int
        var answers: Int
        var tooMany: Int
        var unavailable: Int
        var failed: Int
        var charts: [Chart]
        var slowest: [SlowRoute]
        var clientStats: [String]
        var hasClientStats: Bool

        init(_ status: ServerStatus, user: String?, csrf: String) {
            self.user = user
            self.csrf = csrf
            version = status.version
            uptime = StatusText.duration(status.uptimeSeconds)
            startedAt = Timestamp.readable(status.startedAt)
            storeKind = status.store.kind
            storeSize = status.store.bytes.map(StatusText.size) ?? "size unknown"
            storeState = status.store.state == "ok" ? "answering" : "not answering"
            let hour = status.lastHour
            requests = hour.map(\.requests).reduce(0, +)
            answers = hour.map(\.answers).reduce(0, +)
            tooMany = hour.map(\.tooMany).reduce(0, +)
            unavailable = hour.map(\.unavailable).reduce(0, +)
            failed = hour.map(\.failed).reduce(0, +)
            func chart(_ label: String, _ values: [Int], kind: (Int) -> String) -> Chart {
                let most = max(1, values.max() ?? 1)
                let bars = values.enumerated().map { index, value in
                    let height = value == 0 ? 0 : max(2, value * 100 / most)
                    return Bar(kind: kind(index), x: index * 10, y: 100 - height, height: height, tip: "\(hour[index].start): \(value)")
                }
                return Chart(label: label, most: values.max() ?? 0, bars: bars)
            }
            charts = [
                chart("Requests", hour.map(\.requests)) { index in
                    hour[index].tooMany + hour[index].unavailable + hour[index].failed > 0 ? "refused" : "requests"
                },
                chart("Answers", hour.map(\.answers)) { _ in "answers" },
            ]
            slowest = status.slowest.map {
                SlowRoute(
                    route: $0.route,
                    mean: String(format: "%.1f", $0.meanMilliseconds),
                    longest: String(format: "%.1f", $0.maxMilliseconds),
                    requests: $0.requests
                )
            }
            clientStats = status.clientStats.sorted { $0.key < $1.key }.map { "\($0.key.replacingOccurrences(of: "_", with: " ")): \($0.value)" }
            hasClientStats = !clientStats.isEmpty
        }
    }

    /// The roster's filter.
    enum Show: String, CaseIterable {
        case everyone
        case notDownloaded = "not-downloaded"
        case notHandedIn = "not-handed-in"
        case notStarted = "not-started"
        case answering
        case handedIn = "handed-in"
        case refused
        case flagged

        var label: String {
            switch self {
            case .everyone: "Everyone"
            case .notDownloaded: "Not downloaded"
            case .notHandedIn: "Not handed in"
            case .notStarted: "Downloaded, not started"
            case .answering: "Answering now"
            case .handedIn: "Handed in"
            case .refused: "Refused"
            case .flagged: "Flagged"
            }
        }

        func includes(_ student: Roster.Student) -> Bool {
            switch self {
            case .everyone: true
            case .notDownloaded: !student.downloaded
            case .notHandedIn: !student.handedIn
            case .notStarted: student.state == .downloaded
            case .answering: student.state == .answering
            // Everyone who handed in, also those answering a later attempt now: with "Not handed in", everyone.
            case .handedIn: student.handedIn
            case .refused: student.state == .refused
            case .flagged: !student.flags.isEmpty
            }
        }
    }

    static func notice(_ word: String) -> String? {
        switch word {
        case "released": "Results released: students see their scores and the correct answers at their next sync. You can hide them again."
        case "closed":
            "The exam is closed. New attempts are refused; a hand-in of an attempt started before closing is kept and flagged. You can reopen it."
        case "reopened": "The exam is open again: students can start and hand in attempts."
        case "results_hidden": "Results hidden: students no longer get them at their next sync (what a student already synced stays on their device)."
        case "accepted": "The late hand-in counts like any other."
        case "zeroed": "The late hand-in scores 0."
        case "undecided": "The decision is undone: the late hand-in waits for you again."
        case "apart_accepted": "The hand-in from the revoked device now counts as the student's attempt."
        case "apart_zeroed": "The hand-in from the revoked device is discarded: it counts nowhere. Its answers are kept."
        case "apart_undecided": "The decision is undone: the hand-in from the revoked device is kept apart and waits for you again."
        case "shared": "Shared: the co-teacher sees this assessment on their desk."
        case "unshared": "The co-teacher no longer sees this assessment."
        case "regraded": "Regraded with the current answer key: students see their new score at their next sync."
        case "published": "Published: students get this version at their next download."
        case "unchanged": "The file is the same as the published version; nothing changed."
        default: nil
        }
    }

    struct Option {
        var name: String
        var selected: Bool
    }

    /// The owner or a co-teacher of an assessment, on its roster page.
    struct TeacherRow {
        var name: String
        var label: String
        var removable: Bool
    }

    struct ShowOption {
        var value: String
        var label: String
        var selected: Bool
    }

    struct StudentRow {
        var user: String
        var userQuery: String
        var group: String
        var downloaded: String
        var handedIn: String
        var lastSeen: String
        var timeUsed: String
        var extra: String
        var score: String
        var flags: String
        var rowClass: String
        var late: Bool
        var lateText: String
        var undo: Bool
        var attempt: String
        /// Hand-ins kept apart (a revoked device's), each with Accept and Discard, or Undo once discarded.
        var keptApart: [KeptApart]

        struct KeptApart {
            var attempt: String
            var when: String
            var undecided: Bool
        }
    }

    /// What a recorded action says on the assessment's page: "Closed by ana on 25 Nov 2026 at 15:02 UTC."
    static func historyLine(_ action: AssessmentAction) -> String {
        let what =
            switch action.kind {
            case .closed: "Closed"
            case .reopened: "Reopened"
            case .released: "Results released"
            case .resultsHidden: "Results hidden"
            case .lateAccepted: "Late hand-in of \(action.subject ?? "a student") accepted"
            case .lateZeroed: "Late hand-in of \(action.subject ?? "a student") given 0"
            case .lateUndone: "Decision on the late hand-in of \(action.subject ?? "a student") undone"
            case .regraded: "Regraded with the current answer key (\(action.subject ?? "hand-ins of earlier versions"))"
            case .closingReplaced:
                "The hand-in made at closing for \(action.subject ?? "a student") replaced by their own, made before closing and arrived after it"
            case .packageRenewed:
                "A new package for \(action.subject ?? "a student") made: the earlier one no longer hands in, and the vault that used it signs in no more"
            }
        return "\(what) by \(action.actor), \(Timestamp.readable(action.at))."
    }

    /// The page that asks before accepting a late hand-in or giving it 0, saying what happens and that it can be
    /// undone.
    struct LateConfirm {
        var title = "A late hand-in"
        var heading: String
        var lines: [String]
        var decision: String
        var button: String
        var attempt: String
        var csrf: String
        var user: String?
        var idPath: String

        init(decision: LateDecision, student: String, attempt: String, keptApart: Bool, csrf: String, user: String?, idPath: String) {
            self.decision = decision.rawValue
            self.attempt = attempt
            self.csrf = csrf
            self.user = user
            self.idPath = idPath
            switch decision {
            case .accepted where keptApart:
                title = "A hand-in from a revoked device"
                heading = "Count the hand-in a revoked device made as \(student)'s?"
                lines = [
                    "It was handed in under a package you replaced, so it may not be \(student)'s work (a copy of the stick).",
                    "Accepted, it counts as \(student)'s attempt like any other; the latest hand-in stands on the roster.",
                ]
                button = "Count it as \(student)'s"
            case .zeroed where keptApart:
                title = "A hand-in from a revoked device"
                heading = "Discard the hand-in a revoked device made as \(student)?"
                lines = ["It stays kept apart: it counts nowhere and \(student) never sees its results. Its answers are kept."]
                button = "Discard it"
            case .accepted:
                heading = "Accept \(student)'s hand-in, which arrived after closing?"
                lines = ["It counts like any other: its score stands, and \(student) sees the results once they are released."]
                button = "Accept the hand-in"
            case .zeroed:
                heading = "Give \(student)'s hand-in 0 points?"
                lines = ["It arrived after closing. Its answers are kept; it scores 0, and \(student) sees that once results are released."]
                button = "Give 0"
            }
            lines.append("You can undo this on the assessment's page; the page's history says who decided and when.")
        }
    }

    /// The page that asks before closing or releasing.
    struct Confirm {
        var title: String
        var heading: String
        var lines: [String]
        var action: String
        var button: String
        var csrf: String
        var user: String?
        var idPath: String

        init(change: AssessmentChange, title: String, consequences: TeacherDesk.Consequences, csrf: String, user: String?, idPath: String) {
            self.csrf = csrf
            self.user = user
            self.idPath = idPath
            let open = consequences.notHandedIn
            let notHandedIn =
                open == 0
                ? "Every student has handed in."
                : "\(open) of \(consequences.expected) \(consequences.expected == 1 ? "student" : "students") \(open == 1 ? "has" : "have") not handed in."
            switch change {
            case .release, .hideResults:
                self.title = "Release results"
                heading = "Release the results of \u{201C}\(title)\u{201D}?"
                let waiting = consequences.waitingForGrading
                lines = [
                    waiting == 0
                        ? "Every answer handed in is graded."
                        : "\(waiting) \(waiting == 1 ? "answer is" : "answers are") still waiting for grading: students will see those questions as not graded yet.",
                    notHandedIn,
                    "Students see their scores and the correct answers at their next sync. You can hide the results again afterwards; what a student already synced stays on their device.",
                ]
                action = "release"
                button = "Release results"
            case .close, .reopen:
                self.title = "Close the exam"
                heading = "Close \u{201C}\(title)\u{201D} now?"
                let answering = consequences.openWithAnswers
                lines = [
                    notHandedIn,
                    answering == 0
                        ? "No attempt has answers on the server without being handed in."
                        : "\(answering) \(answering == 1 ? "attempt has" : "attempts have") answers on the server and \(answering == 1 ? "is" : "are") not handed in: closing hands \(answering == 1 ? "it" : "them") in with those answers, marked \u{201C}handed in at closing\u{201D}, for you to grade.",
                    "Closing refuses new attempts. An attempt started before now and handed in later is kept and flagged, for you to accept or give 0.",
                    "You can reopen the exam afterwards: attempts handed in at closing that nobody graded become open again.",
                ]
                action = "close"
                button = "Close the exam now"
            }
        }
    }

    struct RosterPage {
        var title: String
        var rosterTitle: String
        var user: String?
        var csrf: String
        var notice: String?
        var refresh: Int
        var idPath: String
        var version: Int
        var expected: Int
        var downloaded: Int
        var handedIn: Int
        var closes: Bool
        var closesText: String
        var closed: Bool
        var released: Bool
        var sealed: Bool
        var groups: [Option]
        var shows: [ShowOption]
        var groupQuery: String
        /// The group the page shows ("" for everyone): what the packages button makes files for.
        var selectedGroup: String
        var notDownloaded: Int
        var notHandedIn: Int
        var notStarted: Int
        var answering: Int
        var refused: Int
        var flagged: Int
        var students: [StudentRow]
        var paging: Bool
        var rowsText: String
        var previousLink: String?
        var nextLink: String?
        /// Who may act on it, and whether this teacher may share it (its owner, an administrator).
        var teachers: [TeacherRow] = []
        var canShare = false
        /// Closes, reopens, releases and hides, each with who and when.
        var history: [String] = []

        init(
            page: TeacherDesk.RosterPage,
            group: String?,
            show: Show,
            csrf: String,
            user: String?,
            notice: String?,
            refresh: Int,
            idPath: String
        ) {
            let roster = page.roster
            let inGroup = page.inGroup
            title = roster.title
            rosterTitle = roster.title
            self.user = user
            self.csrf = csrf
            self.notice = notice
            self.refresh = refresh
            self.idPath = idPath
            version = roster.version
            // Every count is its filter's (`Show.includes`): a number on the page is the rows its filter lists.
            func count(_ show: Show) -> Int { inGroup.filter(show.includes).count }
            expected = count(.everyone)
            downloaded = expected - count(.notDownloaded)
            handedIn = count(.handedIn)
            closes = roster.closesAt != nil
            closed = roster.closed
            closesText = roster.closesAt.map { (roster.closed ? "closed " : "closes ") + Timestamp.readable($0) } ?? ""
            released = roster.released
            sealed = roster.sealed
            self.groups = Set(roster.students.compactMap(\.group)).sorted().map { Option(name: $0, selected: $0 == group) }
            shows = Show.allCases.map { ShowOption(value: $0.rawValue, label: $0.label, selected: $0 == show) }
            groupQuery = group.map { "&group=" + (DeskRoutesPaths.query($0)) } ?? ""
            selectedGroup = group ?? ""
            notDownloaded = count(.notDownloaded)
            notHandedIn = count(.notHandedIn)
            answering = count(.answering)
            notStarted = count(.notStarted)
            refused = count(.refused)
            flagged = count(.flagged)
            students = page.rows.map(Self.row)
            let first = page.page * page.pageSize
            paging = page.pages > 1
            rowsText = "Rows \(first + 1)–\(first + page.rows.count) of \(page.matching)"
            let query = "show=\(show.rawValue)" + groupQuery
            previousLink = page.page > 0 ? "/desk/a/\(idPath)?\(query)&page=\(page.page)" : nil
            nextLink = page.page + 1 < page.pages ? "/desk/a/\(idPath)?\(query)&page=\(page.page + 2)" : nil
        }

        /// When the student handed in and, where it reached the server more than a minute later (offline, a file,
        /// a classroom), when it arrived: both, beside Accept and Give 0, so lateness is read from the right one.
        static func handInTime(_ student: Roster.Student, arrived: String) -> String {
            guard let made = student.submittedAt, let madeDate = Timestamp.date(made), let arrivedDate = Timestamp.date(arrived),
                arrivedDate.timeIntervalSince(madeDate) > 60, student.via != .closing
            else { return Timestamp.readable(arrived) }
            return "handed in \(Timestamp.readable(made)), arrived \(Timestamp.readable(arrived))"
        }

        static func row(_ student: Roster.Student) -> StudentRow {
            let late = student.flags.contains(.afterClosing)
            return StudentRow(
                user: student.user,
                userQuery: DeskRoutesPaths.query(student.user),
                group: student.group ?? "",
                downloaded: student.downloadedAt.map {
                    "version \(student.downloadedVersion ?? 0), \(Timestamp.readable($0))" + student.downloadedWhere
                } ?? "not downloaded",
                handedIn: student.state == .answering || student.state == .refused
                    ? student.stateText + (student.refusedAt.map { ", \(Timestamp.readable($0))" } ?? "")
                        + (student.startedAt.map { "; started \(Timestamp.readable($0))" } ?? "")
                        + (student.receivedAt.map { "; an earlier attempt handed in \(Timestamp.readable($0))" } ?? "")
                    : student.receivedAt.map {
                        "\(handInTime(student, arrived: $0))\(student.via == .handIn ? " (hand-in file)" : "")\(student.attempts > 1 ? ", \(student.attempts) attempts" : "")\(student.devicesText)"
                            + student.handedInWhere
                    } ?? "not handed in",
                lastSeen: student.lastSeenAt.map(Timestamp.readable) ?? "",
                timeUsed: student.timeUsedMs.map { DeskView.minutes($0) } ?? "",
                extra: student.extraMinutes > 0 ? "+\(student.extraMinutes) min" : "",
                score: student.score.map { score in
                    "\(AttemptResult.pointsText(score)) of \(AttemptResult.pointsText(student.maxScore ?? 0))"
                        + ((student.pending ?? 0) > 0 ? " (\(student.pending ?? 0) to grade)" : "")
                } ?? "",
                flags: (student.flags.map(\.label) + (student.record?.words ?? [])).joined(separator: ", "),
                rowClass: !student.flags.isEmpty || student.state == .refused ? "flagged" : student.handedIn ? "" : "missing",
                late: late && student.lateDecision == nil,
                lateText: student.lateDecision.map { $0 == .accepted ? " (accepted)" : " (given 0)" } ?? "",
                undo: late && student.lateDecision != nil,
                attempt: student.attemptId ?? "",
                keptApart: (student.keptApart ?? []).map {
                    StudentRow.KeptApart(attempt: $0.attemptId, when: Timestamp.readable($0.receivedAt), undecided: $0.decision == nil)
                }
            )
        }
    }

    static func minutes(_ milliseconds: Int) -> String {
        let seconds = milliseconds / 1000
        return "\(seconds / 60) min \(seconds % 60) s"
    }

    struct QuestionLink {
        var id: String
        var idQuery: String
        var needsTeacher: Bool
        var current: Bool
    }

    struct Entry {
        var user: String
        var group: String?
        var attempt: String
        var answer: String
        var points: String
        var state: String
        var maxPoints: String
    }

    struct GradePage {
        var title: String
        var rosterTitle: String
        var user: String?
        var csrf: String
        var notice: String?
        var idPath: String
        var questions: [QuestionLink]
        var questionID: String
        var prompt: String
        var pictures: [Picture]
        var maxPoints: String
        var pointsWord: String
        var entries: [Entry]
        var hasEntries: Bool
        var next: String?
        var nextQuery: String?

        init(queue: TeacherDesk.Queue, csrf: String, user: String?, idPath: String, notice: String?) {
            title = "Grading · \(queue.title)"
            rosterTitle = queue.title
            self.user = user
            self.csrf = csrf
            self.notice = notice
            self.idPath = idPath
            questions = queue.questions.map {
                QuestionLink(id: $0.id, idQuery: DeskRoutesPaths.query($0.id), needsTeacher: $0.needsTeacher, current: $0.id == queue.question.id)
            }
            questionID = queue.question.id
            prompt = queue.question.prompt
            pictures = Picture.all(of: queue.question)
            let full = AttemptResult.pointsText(Scoring.maxPoints(queue.question))
            maxPoints = full
            pointsWord = full == "1" ? "point" : "points"
            entries = queue.entries.map { entry in
                Entry(
                    user: entry.user,
                    group: entry.group,
                    attempt: entry.attemptID,
                    answer: entry.answer ?? "(no answer)",
                    points: entry.points.map(AttemptResult.pointsText) ?? "",
                    state: entry.graded ? "(graded)" : entry.points == nil ? "(waiting for you)" : "(automatic)",
                    maxPoints: full
                )
            }
            hasEntries = !entries.isEmpty
            next = queue.next
            nextQuery = queue.next.map(DeskRoutesPaths.query)
        }
    }

    /// The publish page, with what the posted file would become when one was checked.
    struct PublishPage {
        var title = "Publish a file"
        var user: String?
        var csrf: String
        var script = "/desk/upload.js"
        var id = ""
        var titleChoice = ""
        var problem: String?
        var ready: PublishReport?
    }

    /// The import report of a file on the desk (what `vault-server publish --dry-run` says).
    struct PublishReport {
        struct TypeCount {
            var name: String
            var count: Int
        }

        struct Skip {
            var label: String
            var reason: String
        }

        var fileName: String
        var assessmentTitle: String
        var assessmentID: String
        var summary: String
        var types: [TypeCount]
        var skipped: [Skip]
        var notes: [String]
        var existing: String?
        var replacing: String?
        // Stored, not computed: templates see stored properties only.
        var hasSkipped: Bool
        var skippedCount: Int
        var hasNotes: Bool

        init(_ plan: ContentPlan, fileName: String) {
            self.fileName = fileName
            assessmentTitle = plan.assessment.title
            assessmentID = plan.assessment.id
            let questions = plan.assessment.questions.count
            summary =
                "\(questions) \(questions == 1 ? "question" : "questions"), \(AttemptResult.pointsText(plan.points)) \(plan.points == 1 ? "point" : "points")"
            types = plan.types.map { TypeCount(name: $0.type.replacingOccurrences(of: "_", with: " "), count: $0.count) }
            skipped = plan.result.skipped.map { Skip(label: $0.label, reason: $0.reason) }
            notes = DrawSummary.lines(plan.result.assessment) + plan.result.notes
            hasSkipped = !skipped.isEmpty
            skippedCount = skipped.count
            hasNotes = !notes.isEmpty
            if let replacing = plan.replacing {
                self.replacing =
                    "\(plan.assessment.id) holds \"\(replacing.title)\" (\(replacing.totalQuestions) questions), and this file is not a revision of it."
            } else if let current = plan.current {
                existing =
                    "\(current.id) is published (\"\(current.title)\", version \(current.version ?? 1)): this makes version \((current.version ?? 1) + 1) if anything changed."
            }
        }
    }

    struct Students {
        var title: String
        var user: String?
        var csrf: String
        var max: Int
    }

    struct Regrade {
        struct Row {
            var user: String
            var version: Int
            var old: String
            var new: String
        }
        var title: String
        var user: String?
        var csrf: String
        var idPath: String
        var rosterTitle: String
        var version: Int
        var summary: String
        var changes: [Row]
        var hasChanges: Bool
        var count: String
        var skipped: [String]

        init(outcome: RegradePlan.Outcome, rosterTitle: String, user: String?, csrf: String, idPath: String) {
            title = "Regrade"
            self.user = user
            self.csrf = csrf
            self.idPath = idPath
            self.rosterTitle = rosterTitle
            version = outcome.currentVersion
            let changed = outcome.changes.count
            summary =
                changed == 0
                ? "No score would change: every hand-in is scored by this answer key already, or would keep its score."
                : "\(changed) \(changed == 1 ? "student's score changes" : "students' scores change"); \(outcome.unchanged.count) other hand-in\(outcome.unchanged.count == 1 ? " keeps its" : "s keep their") score."
            changes = outcome.changes.map {
                Row(
                    user: $0.user,
                    version: $0.version,
                    old: "\(AttemptResult.pointsText($0.old.score)) of \(AttemptResult.pointsText($0.old.maxScore))",
                    new: "\(AttemptResult.pointsText($0.new.score)) of \(AttemptResult.pointsText($0.new.maxScore))"
                )
            }
            hasChanges = changed > 0
            count = changed == 1 ? "1 score" : "\(changed) scores"
            skipped = outcome.skipped.map { "\($0.user) (version \($0.version)): \($0.reason)" }
        }
    }

    /// What a teacher does to a student's account on exam day.
    enum AccountAction: String {
        case password, disable, enable
        /// The student's device keys, each with how it came (issue 68); `revokeKeys` ends every live one.
        case keys
        case revokeKeys = "revoke-keys"
    }

    /// The slip codes of an assessment's packages (issue 68), to print and cut.
    struct Slips {
        struct Slip {
            var name: String
            var code: String
            var until: String
        }
        var title: String
        var user: String?
        var id: String
        var idPath: String
        var group: String?
        var slips: [Slip]
        var fingerprint: String
    }

    struct AccountDone {
        var title: String
        var user: String?
        var csrf: String
        var name: String
        var action: AccountAction
        /// A new password: shown on this page once.
        var password: String?
        /// What was done, in a sentence (stored: templates read stored properties).
        var sentence: String
        /// The student's device keys, as the page lists them (issue 68).
        var keys: [Key]
        var hasKeys: Bool

        struct Key {
            var fingerprint: String
            var how: String
            var since: String
            var lastUsed: String
            var state: String
        }

        init(
            title: String,
            user: String?,
            csrf: String,
            name: String,
            action: AccountAction,
            password: String?,
            keys: [DeviceKeyRecord] = [],
            revoked: Int = 0
        ) {
            self.title = title
            self.user = user
            self.csrf = csrf
            self.name = name
            self.action = action
            self.password = password
            self.keys = keys.map {
                Key(
                    fingerprint: $0.fingerprint,
                    how: $0.howItCame,
                    since: Timestamp.readable($0.registeredAt),
                    lastUsed: $0.lastUsedAt.map(Timestamp.readable) ?? "never",
                    state: $0.state
                )
            }
            hasKeys = !keys.isEmpty
            sentence = Self.sentence(name: name, action: action, keys: keys.count, revoked: revoked)
        }

        static func sentence(name: String, action: AccountAction, keys: Int = 0, revoked: Int = 0) -> String {
            switch action {
            case .password:
                "\(name) has a new password. Their old one no longer works and their sessions are signed out; they sign in again with `vault login`."
                    + (revoked > 0 ? " Their \(revoked) device \(revoked == 1 ? "key is" : "keys are") revoked too." : "")
            case .disable: "\(name)'s account is turned off: their password is refused and their sessions are signed out."
            case .enable: "\(name)'s account is turned on again: they sign in with the password they had."
            case .keys:
                keys == 0
                    ? "\(name) has no device keys: no vault has signed in or handed in for them by key."
                    : "\(name)'s device keys: each vault that speaks for them, how it came and when it last signed in."
            case .revokeKeys:
                revoked == 0
                    ? "\(name) had no live device key; nothing was changed."
                    : "Revoked \(revoked) device \(revoked == 1 ? "key" : "keys") of \(name): no vault signs in or hands in by \(revoked == 1 ? "it" : "them") now; what they handed in before is kept. Each vault signs in with the password once to be theirs again."
            }
        }
    }

    struct NewStudent {
        var name: String
        var group: String
        /// Generated: shown on this page once.
        var password: String?
    }

    struct StudentsAdded {
        var title: String
        var user: String?
        var csrf: String
        var added: [NewStudent]
        var existing: [String]
        var summary: String
        var anyGenerated: Bool
        var hasExisting: Bool

        init(title: String, user: String?, csrf: String, added: [NewStudent], existing: [String]) {
            hasExisting = !existing.isEmpty
            self.title = title
            self.user = user
            self.csrf = csrf
            self.added = added
            self.existing = existing
            anyGenerated = added.contains { $0.password != nil }
            summary =
                "Added \(added.count) \(added.count == 1 ? "student" : "students")."
                + (existing.isEmpty
                    ? ""
                    : " \(existing.count) already had an account and \(existing.count == 1 ? "was" : "were") left as \(existing.count == 1 ? "it was" : "they were").")
        }
    }

    /// A question's picture on a desk page: the bytes from the published document as a data: URL (PNG, JPEG and GIF
    /// only: never SVG, which can carry script), its description as alt text and caption.
    struct Picture {
        var src: String
        var alt: String
        var caption: String

        static let shown: Set<String> = ["image/png", "image/jpeg", "image/gif"]

        static func all(of question: Question) -> [Picture] {
            let pictures = (question.media ?? []).filter { $0.mimeType.lowercased().hasPrefix("image/") }
            return pictures.enumerated().map { number, media in
                let described = media.alt.trimmingCharacters(in: .whitespacesAndNewlines)
                let caption = "Picture \(number + 1) of \(pictures.count)" + (described.isEmpty ? " (no description)" : ": \(described)")
                let type = media.mimeType.lowercased()
                return Picture(src: shown.contains(type) ? "data:\(type);base64,\(media.data)" : "", alt: described, caption: caption)
            }
        }
    }

    /// One question of a student's answer sheet.
    struct SheetLine {
        var id: String
        var prompt: String
        var pictures: [Picture]
        var answer: String
        var points: String
        var maxPoints: String
        var state: String
        var needsTeacher: Bool
        var feedback: String
        var rowClass: String
        /// Answers kept but not counted, each worded ("replaced: given ...", "given after the hand-in: not counted").
        var replaced: [ReplacedLine]
        var hasReplaced: Bool
    }

    struct ReplacedLine {
        var answer: String
        var note: String
    }

    struct AttemptLink {
        var id: String
        var link: String
        var current: Bool
    }

    /// One student's whole answer sheet: their state on the roster, each question with their answer and points (a
    /// points box where the teacher gives them), a feedback box per answer, and their extra time.
    struct SheetPage {
        var title: String
        var rosterTitle: String
        var user: String?
        var csrf: String
        var notice: String?
        var idPath: String
        var student: String
        var state: String
        var flags: String?
        var score: String?
        /// "Answered on 2 devices, last seen …" when the attempt moved between devices.
        var devices: String?
        var extraMinutes: Int
        var maxExtra: Int
        var attempt: String
        var hasAttempt: Bool
        var attempts: [AttemptLink]
        var manyAttempts: Bool
        var lines: [SheetLine]
        var hasRecord: Bool
        var recordLines: [String]
        var recordProblems: [String]

        init(sheet: TeacherDesk.Sheet, csrf: String, user: String?, notice: String?, idPath: String) {
            let row = sheet.row
            title = "\(row.user) · \(sheet.title)"
            rosterTitle = sheet.title
            self.user = user
            self.csrf = csrf
            self.notice = notice
            self.idPath = idPath
            student = row.user
            state = row.stateText + (row.receivedAt.map { ", \(Timestamp.readable($0))" } ?? "")
            let noted = row.flags.map(\.label) + (row.record?.words ?? [])
            flags = noted.isEmpty ? nil : noted.joined(separator: ", ")
            devices =
                (row.devices ?? 0) > 1
                ? "Answered on \(row.devices ?? 0) devices, last seen "
                    + (row.devicesLastSeen ?? []).map(Timestamp.readable).joined(separator: " and ")
                : nil
            extraMinutes = row.extraMinutes
            maxExtra = TeacherDesk.maxExtraMinutes
            attempt = sheet.attempt ?? ""
            hasAttempt = sheet.attempt != nil
            let userQuery = DeskRoutesPaths.query(row.user)
            attempts = sheet.attempts.map {
                AttemptLink(
                    id: $0,
                    link: "/desk/a/\(idPath)/student?user=\(userQuery)&attempt=\(DeskRoutesPaths.query($0))",
                    current: $0 == sheet.attempt
                )
            }
            manyAttempts = sheet.attempts.count > 1
            recordLines = sheet.record.map { "\(Timestamp.readable($0.event.at)): \(RecordWords.english($0.event))" }
            recordProblems = sheet.recordProblems
            hasRecord = !recordLines.isEmpty || !recordProblems.isEmpty
            let total = sheet.lines.compactMap(\.points).reduce(0, +)
            let full = sheet.lines.map(\.maxPoints).reduce(0, +)
            let waiting = sheet.lines.filter { $0.points == nil }.count
            score =
                sheet.attempt == nil
                ? nil
                : "\(AttemptResult.pointsText(total)) of \(AttemptResult.pointsText(full)) points" + (waiting > 0 ? " (\(waiting) to grade)" : "")
            lines = sheet.lines.map { line in
                SheetLine(
                    id: line.question.id,
                    prompt: line.question.prompt,
                    pictures: Picture.all(of: line.question),
                    answer: line.answer ?? "(no answer)",
                    points: line.points.map(AttemptResult.pointsText) ?? "",
                    maxPoints: AttemptResult.pointsText(line.maxPoints),
                    state: line.graded ? "graded by you" : line.points == nil ? "waiting for you" : "automatic",
                    needsTeacher: line.needsTeacher || line.graded,
                    feedback: line.feedback ?? "",
                    rowClass: line.points == nil ? "missing" : "",
                    replaced: line.replaced.map {
                        ReplacedLine(
                            answer: $0.answer,
                            note: $0.afterHandIn
                                ? "given \(Timestamp.readable($0.answeredAt)), after the hand-in on another device: kept, not counted"
                                : "given \(Timestamp.readable($0.answeredAt)), replaced by a later answer"
                        )
                    },
                    hasReplaced: !line.replaced.isEmpty
                )
            }
        }
    }

    /// One question's line of the item analysis, every figure already worded.
    struct AnalysisRow {
        var id: String
        var prompt: String
        /// How many attempts count for it ("drawn by 4 of 12" where students drew their questions from pools).
        var attempts: String
        var average: String
        var facility: String
        var deviation: String
        var discrimination: String
        var efficiency: String
        var concerns: [String]
        var rowClass: String
    }

    struct Figure {
        var label: String
        var value: String
    }

    /// The item-analysis page: the test's figures, then one row per question; a question of concern is marked and
    /// says why in words.
    struct AnalysisPage {
        var title: String
        var rosterTitle: String
        var user: String?
        var csrf: String
        var idPath: String
        var attemptsQuery: String
        var summary: [String]
        var figures: [Figure]
        var questions: [AnalysisRow]
        var otherLink: String
        var otherLabel: String

        init(title: String, analysis: ItemAnalysis, csrf: String, user: String?, idPath: String) {
            self.title = "What each question told us · \(title)"
            rosterTitle = title
            self.user = user
            self.csrf = csrf
            self.idPath = idPath
            let first = analysis.attempts == .first
            attemptsQuery = first ? "" : "?attempts=all"
            otherLink = "/desk/a/\(idPath)/analysis" + (first ? "?attempts=all" : "")
            otherLabel = first ? "Every attempt instead" : "First attempts only"
            let test = analysis.test
            var summary = [
                test.attempts == 0
                    ? "No graded attempt to analyse yet."
                    : "\(test.attempts) \(test.attempts == 1 ? "attempt" : "attempts") analysed (\(first ? "each student's first" : "every attempt"))."
            ]
            if analysis.waitingForGrading > 0 {
                summary.append(
                    "\(analysis.waitingForGrading) \(analysis.waitingForGrading == 1 ? "attempt is" : "attempts are") left out until every answer is graded."
                )
            }
            if analysis.zeroedLate > 0 {
                summary.append(
                    "\(analysis.zeroedLate) late \(analysis.zeroedLate == 1 ? "hand-in" : "hand-ins") given 0 \(analysis.zeroedLate == 1 ? "is" : "are") left out."
                )
            }
            if test.attempts > 0, test.attempts < 3 {
                summary.append("With fewer than 3 attempts the spread and consistency figures cannot be worked out.")
            }
            self.summary = summary
            func points(_ value: Double?) -> String { value.map { AttemptResult.pointsText(($0 * 100).rounded() / 100) } ?? "–" }
            func ofTest(_ value: Double?) -> String {
                guard let value else { return "–" }
                return test.maxPoints > 0 ? "\(points(value)) of \(points(test.maxPoints)) (\(Self.percent(value / test.maxPoints)))" : points(value)
            }
            figures = [
                Figure(label: "Average", value: ofTest(test.average)),
                Figure(label: "Median", value: ofTest(test.median)),
                Figure(label: "Standard deviation", value: ofTest(test.standardDeviation)),
                Figure(label: "Internal consistency (CIC)", value: test.internalConsistency.map { Self.percent($0 / 100) } ?? "–"),
                Figure(label: "Error ratio", value: test.errorRatio.map { Self.percent($0 / 100) } ?? "–"),
                Figure(label: "Standard error", value: test.standardError.map { "\(points($0)) \($0 == 1 ? "point" : "points")" } ?? "–"),
            ]
            questions = analysis.questions.map { question in
                AnalysisRow(
                    id: question.id,
                    prompt: question.prompt.count > 120 ? String(question.prompt.prefix(117)) + "…" : question.prompt,
                    attempts: analysis.pooled ? "drawn by \(question.attempts) of \(test.attempts)" : "\(question.attempts)",
                    average: question.averagePoints.map { "\(points($0)) of \(points(question.maxPoints))" } ?? "–",
                    facility: question.facility.map(Self.percent) ?? "–",
                    deviation: question.standardDeviation.map(Self.percent) ?? "–",
                    discrimination: question.discriminationIndex.map { Self.percent($0 / 100) } ?? "–",
                    efficiency: question.discriminativeEfficiency.map { Self.percent($0 / 100) } ?? "–",
                    concerns: question.concerns.map(\.sentence),
                    rowClass: question.concerns.isEmpty ? "" : "flagged"
                )
            }
        }

        /// 0.4567 as "45.7 %", a point as the separator whatever the locale.
        static func percent(_ fraction: Double) -> String { String(format: "%.1f %%", fraction * 100) }
    }

    struct StartCode {
        var title: String
        var rosterTitle: String
        var user: String?
        var csrf: String
        var version: Int
        var code: String
        var spoken: String
        var idPath: String
    }
}

/// Ids inside the desk's links, percent-encoded.
enum DeskRoutesPaths {
    static func query(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}

// The rows a roster repeats 2,000 times are looked up by name, not by reflection (Mirror was a quarter of the
// page's time). Every other view keeps Mirror.

extension DeskView.StudentRow: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "user": user
        case "userQuery": userQuery
        case "group": group
        case "downloaded": downloaded
        case "handedIn": handedIn
        case "lastSeen": lastSeen
        case "timeUsed": timeUsed
        case "extra": extra
        case "score": score
        case "flags": flags
        case "rowClass": rowClass
        case "late": late
        case "lateText": lateText
        case "undo": undo
        case "attempt": attempt
        case "keptApart": keptApart
        default: nil
        }
    }
}

extension DeskView.RosterPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": title
        case "rosterTitle": rosterTitle
        case "user": user as Any?
        case "csrf": csrf
        case "notice": notice as Any?
        case "refresh": refresh
        case "idPath": idPath
        case "version": version
        case "expected": expected
        case "downloaded": downloaded
        case "handedIn": handedIn
        case "closes": closes
        case "closesText": closesText
        case "closed": closed
        case "released": released
        case "sealed": sealed
        case "groups": groups
        case "shows": shows
        case "groupQuery": groupQuery
        case "selectedGroup": selectedGroup
        case "notDownloaded": notDownloaded
        case "notHandedIn": notHandedIn
        case "answering": answering
        case "notStarted": notStarted
        case "refused": refused
        case "flagged": flagged
        case "students": students
        case "paging": paging
        case "rowsText": rowsText
        case "previousLink": previousLink as Any?
        case "nextLink": nextLink as Any?
        case "teachers": teachers
        case "canShare": canShare
        case "history": history
        default: nil
        }
    }
}

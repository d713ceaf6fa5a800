import Foundation
import Testing
import VaultTestSupport

/// The whole exam day through the real binaries, checked against a scorer of its own (issue 67): a seeded class with
/// pooled and plain sections, choices shuffled with ids that are letters, digits or words, a time limit or none,
/// students who hand in by sync, by file, before closing while offline, or never (the closing hands them in), a key
/// fixed in version 2 and the regrade, then every score on the roster, in each student's `vault results` and in the
/// gradebook files is compared with what the model says. The model reads only this file's own generator, the
/// letters each student typed and what their vault showed them (`vault show --json`): never the product's scoring.
/// A failing seed is named in every message; `EXAM_DAY_SEED=N` replays one.
struct ExamDayModelTests {
    /// The seeds CI runs; `EXAM_DAY_SEED` replaces them with one.
    static var seeds: [UInt64] {
        if let text = ProcessInfo.processInfo.environment["EXAM_DAY_SEED"], let seed = UInt64(text) { return [seed] }
        return [11, 29, 67]
    }

    static var cases: [(Store, UInt64)] { Store.here.flatMap { store in seeds.map { (store, $0) } } }

    // MARK: The model's own small world

    /// A deterministic generator (SplitMix64 written out again: the model shares no code with the product).
    struct Dice {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    enum Kind: String {
        case single = "single_choice"
        case multiple = "multiple_choice"
        case trueFalse = "true_false"
        case numeric
    }

    struct Item {
        var id: String
        var kind: Kind
        var points: Double
        var choices: [String]
        /// Choice ids, a bool or a number, as the document's answer key.
        var key: [Any]
    }

    /// How a student's day goes.
    enum Day: String, CaseIterable {
        /// Answers, submits and syncs while online.
        case online
        /// Answers on the vault, submits, and hands the file to the teacher.
        case file
        /// Syncs part of the answers, goes offline, answers the rest and submits before closing; syncs after it.
        case offlineBeforeClosing
        /// Syncs some answers and never submits: the closing hands in what the server holds; what they answer after
        /// their last sync arrives after closing and does not count.
        case handedInAtClosing
    }

    struct Exam {
        var items: [Item]
        var pooled: [String]?
        var select: Int
        var shuffle: Bool
        var timeLimit: Int?
        /// The question whose key version 2 corrects, and its new key.
        var fixed: (id: String, key: [Any])

        func document(version: Int) -> [String: Any] {
            var questions: [[String: Any]] = []
            for item in items {
                var question: [String: Any] = ["id": item.id, "type": item.kind.rawValue, "prompt": "Question \(item.id)", "points": item.points]
                if !item.choices.isEmpty { question["choices"] = item.choices.map { ["id": $0, "text": "Option \($0) of \(item.id)"] } }
                question["answer_key"] = version >= 2 && item.id == fixed.id ? fixed.key : item.key
                if item.kind == .numeric { question["tolerance"] = 0.01 }
                questions.append(question)
            }
            var document: [String: Any] = ["id": "exam-day", "title": "Exam day", "questions": questions, "shuffle_choices": shuffle]
            if let pooled {
                let rest = items.map(\.id).filter { !pooled.contains($0) }
                document["sections"] = [
                    ["id": "pool", "title": "Pool", "select": select, "shuffle": true, "questions": pooled],
                    ["id": "rest", "title": "The rest", "questions": rest],
                ]
            }
            if let timeLimit { document["time_limit_seconds"] = timeLimit }
            return document
        }

        /// Whether students' maxima can differ: a pool whose questions are worth different points.
        var unevenMaxima: Bool {
            guard let pooled else { return false }
            return Set(items.filter { pooled.contains($0.id) }.map(\.points)).count > 1 && select < pooled.count
        }

        func item(_ id: String) -> Item? { items.first { $0.id == id } }

        /// The key in force after the fix.
        func key(of item: Item) -> [Any] { item.id == fixed.id ? fixed.key : item.key }
    }

    static func exam(_ dice: inout Dice) -> Exam {
        let idStyles: [[String]] = [
            ["a", "b", "c", "d", "e"], ["e", "d", "c", "b", "a"], ["1", "2", "3", "4", "5"], ["red", "blue", "green", "gold", "grey"],
        ]
        var items: [Item] = []
        let count = 6 + dice.below(3)
        for index in 1...count {
            let kind: Kind = [.single, .single, .multiple, .trueFalse, .numeric][dice.below(5)]
            let points = Double(1 + dice.below(3))
            let ids = Array(idStyles[dice.below(idStyles.count)].prefix(3 + dice.below(3)))
            switch kind {
            case .single: items.append(Item(id: "q\(index)", kind: kind, points: points, choices: ids, key: [ids[dice.below(ids.count)]]))
            case .multiple:
                let picked = ids.filter { _ in dice.chance(50) }
                items.append(Item(id: "q\(index)", kind: kind, points: points, choices: ids, key: picked.isEmpty ? [ids[0]] : picked))
            case .trueFalse: items.append(Item(id: "q\(index)", kind: kind, points: points, choices: [], key: [dice.chance(50)]))
            case .numeric: items.append(Item(id: "q\(index)", kind: kind, points: points, choices: [], key: [Double(dice.below(100))]))
            }
        }
        let pooled = dice.chance(70) ? Array(items.prefix(3).map(\.id)) : nil
        // The fix: a single-choice question's key moves to another choice (or a true/false flips).
        let candidates = items.filter { $0.kind == .single || $0.kind == .trueFalse }
        let target = candidates.isEmpty ? items[0] : candidates[dice.below(candidates.count)]
        let fixedKey: [Any]
        switch target.kind {
        case .single: fixedKey = [target.choices.first { $0 != target.key.first as? String } ?? target.choices[0]]
        case .trueFalse: fixedKey = [!(target.key.first as? Bool ?? true)]
        case .multiple: fixedKey = [target.choices[0]]
        case .numeric: fixedKey = [(target.key.first as? Double ?? 0) + 1]
        }
        return Exam(
            items: items,
            pooled: pooled,
            select: 2,
            shuffle: dice.chance(80),
            timeLimit: dice.chance(50) ? 3600 : nil,
            fixed: (target.id, fixedKey)
        )
    }

    /// One question as the student's vault showed it, and what they typed.
    struct Given {
        var id: String
        /// The choice ids in the order the student saw them.
        var shown: [String]
        /// What went on `vault answer`'s standard input; nil: left blank.
        var typed: String?
        /// The answer as the model reads the typed letters: choice ids, a bool or a number.
        var meant: Any?
    }

    /// The model's score of one student's answers that count: each question's points when the answer is the key (all
    /// or nothing for several choices, within the tolerance for a number), else 0; the maximum is the questions shown.
    static func modelScore(_ exam: Exam, given: [Given], counted: Set<String>) -> (score: Double, max: Double) {
        var score = 0.0
        var max = 0.0
        for answer in given {
            guard let item = exam.item(answer.id) else { continue }
            max += item.points
            guard counted.contains(answer.id), let meant = answer.meant else { continue }
            let key = exam.key(of: item)
            let right: Bool
            switch item.kind {
            case .single: right = (meant as? [String]) == (key as? [String])
            case .multiple: right = Set(meant as? [String] ?? []) == Set(key.compactMap { $0 as? String })
            case .trueFalse: right = (meant as? Bool) == (key.first as? Bool)
            case .numeric: right = abs((meant as? Double ?? .nan) - (key.first as? Double ?? .nan)) <= 0.01 + 1e-9
            }
            if right { score += item.points }
        }
        return (score, max)
    }

    /// What a student types for each shown question, by the letters beside the choices (a, b, c by position).
    static func answers(_ shown: [[String: Any]], dice: inout Dice) -> [Given] {
        shown.map { question in
            let id = question["id"] as? String ?? ""
            let type = question["type"] as? String ?? ""
            let choices = (question["choices"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            let letters = (0..<choices.count).map { String(UnicodeScalar(UInt8(97 + $0))) }
            if dice.chance(10) { return Given(id: id, shown: choices, typed: nil, meant: nil) }
            switch type {
            case Kind.single.rawValue:
                let position = dice.below(choices.count)
                return Given(id: id, shown: choices, typed: letters[position], meant: [choices[position]])
            case Kind.multiple.rawValue:
                var positions = (0..<choices.count).filter { _ in dice.chance(50) }
                if positions.isEmpty { positions = [dice.below(choices.count)] }
                return Given(
                    id: id,
                    shown: choices,
                    typed: positions.map { letters[$0] }.joined(separator: ","),
                    meant: positions.map { choices[$0] }
                )
            case Kind.trueFalse.rawValue:
                let value = dice.chance(50)
                return Given(id: id, shown: [], typed: value ? "true" : "false", meant: value)
            default:
                let value = Double(dice.below(100))
                return Given(id: id, shown: [], typed: String(Int(value)), meant: value)
            }
        }
    }

    // MARK: The day

    @Test("the exam day, seeded: every score on the roster, in vault results and in the gradebook files equals the model's", arguments: cases)
    func examDay(_ store: Store, _ seed: UInt64) async throws {
        var dice = Dice(state: seed)
        let exam = Self.exam(&dice)
        let tag = "seed \(seed) (\(store.rawValue)); replay with EXAM_DAY_SEED=\(seed)"
        let database: String? = store == .postgres ? try await PostgresCluster.shared().createDatabase(prefix: "day\(seed)") : nil
        let server = try ServerProcess(database: database)
        defer { _ = server.stop() }
        func publish(version: Int) throws {
            let file = server.directory.file("exam-v\(version).json")
            try JSONSerialization.data(withJSONObject: exam.document(version: version), options: [.sortedKeys]).write(to: URL(fileURLWithPath: file))
            let published = try server.admin(["publish", file])
            #expect(published.status == 0, "\(tag): \(published.stderr)")
        }
        try publish(version: 1)

        struct Student {
            var name: String
            var day: Day
            var vault: CLIVault
            var given: [Given] = []
            /// The questions whose answers the server holds when the exam closes (those that count at closing).
            var synced: Set<String> = []
        }
        var students: [Student] = []
        let days = Day.allCases
        for index in 1...8 {
            let name = "s\(seed)-\(index)"
            let added = try server.admin(["user", "add", name, "--role", "student", "--password-iterations", "1000"], stdin: "\(name)-pw\n")
            #expect(added.status == 0, "\(tag): \(added.stderr)")
            let vault = try FairExamBinaryTests.vault(for: name, server: server)
            #expect(try vault.unlocked(["download", "exam-day"]).status == 0, "\(tag)")
            students.append(Student(name: name, day: days[(index - 1) % days.count], vault: vault))
        }

        // Each answers by the letters their own vault shows.
        for index in students.indices {
            let vault = students[index].vault
            // A timed exam's questions are seen once its clock starts (as `vault take` asks); without --start, the
            // JSON says it is not started and shows none.
            if exam.timeLimit != nil {
                let unstarted = try vault.unlocked(["show", "exam-day", "--json"]).json
                #expect(unstarted?["attempt_state"] as? String == "not_started" && (unstarted?["questions"] as? [Any])?.isEmpty == true, "\(tag)")
            }
            let shown = try #require(
                try vault.unlocked(["show", "exam-day", "--json"] + (exam.timeLimit != nil ? ["--start"] : [])).json?["questions"]
                    as? [[String: Any]],
                "\(tag)"
            )
            let given = Self.answers(shown, dice: &dice)
            students[index].given = given
            let half = given.count / 2
            for (position, answer) in given.enumerated() {
                if let typed = answer.typed {
                    let saved = try vault.answer("exam-day", answer.id, typed)
                    #expect(saved.status == 0, "\(tag): \(students[index].name) \(answer.id) \(typed): \(saved.stderr)")
                }
                // The partly synced: the first half goes up before the vault goes offline.
                if position == half - 1, [.offlineBeforeClosing, .handedInAtClosing].contains(students[index].day) {
                    #expect(try vault.unlocked(["sync"]).status == 0, "\(tag)")
                    students[index].synced = Set(given.prefix(half).filter { $0.typed != nil }.map(\.id))
                }
            }
            switch students[index].day {
            case .online:
                #expect(try vault.unlocked(["submit", "exam-day"]).status == 0, "\(tag)")
                let synced = try vault.unlocked(["sync"])
                #expect(synced.status == 0, "\(tag): \(synced.stdout) \(synced.stderr)")
            case .file:
                #expect(try vault.unlocked(["submit", "exam-day"]).status == 0, "\(tag)")
                let file = vault.root.file("hand-in.vault")
                let written = try vault.unlocked(["hand-in", "exam-day", "--out", file])
                #expect(written.status == 0, "\(tag): \(written.stderr)")
                let imported = try server.admin(["import", file])
                #expect(imported.status == 0, "\(tag): \(imported.stdout) \(imported.stderr)")
            case .offlineBeforeClosing:
                #expect(try vault.unlocked(["submit", "exam-day"]).status == 0, "\(tag)")
            case .handedInAtClosing: break
            }
        }

        // Closing: the server hands in the attempts it holds answers of.
        #expect(try server.admin(["close", "exam-day"]).status == 0, "\(tag)")
        // Back online after closing: the offline hand-ins made before it arrive, and so do the answers given after the
        // last sync of those who never handed in (kept for the teacher, not counted).
        for student in students where [.offlineBeforeClosing, .handedInAtClosing].contains(student.day) {
            let synced = try student.vault.unlocked(["sync", "--json"])
            #expect([0, 3].contains(synced.status), "\(tag): \(student.name) \(synced.stdout) \(synced.stderr)")
            // Told the truth: a hand-in made before closing counts every answer (none "replaced"); answers given after
            // the last sync of one who never handed in are the ones kept and not counted.
            let late = student.given.dropFirst(student.given.count / 2).filter { $0.typed != nil }.count
            let kept = student.day == .offlineBeforeClosing ? 0 : student.synced.isEmpty ? nil : late
            if let kept { #expect(synced.json?["superseded"] as? Int == kept, "\(tag): \(student.name) (\(student.day)) \(synced.stdout)") }
        }

        // The key is fixed in version 2 and every hand-in regraded.
        try publish(version: 2)
        let regraded = try server.admin(["regrade", "exam-day", "--json"])
        #expect(regraded.status == 0, "\(tag): \(regraded.stderr)")
        #expect((regraded.json?["skipped"] as? [Any])?.isEmpty ?? true, "\(tag): \(regraded.stdout)")
        #expect(try server.admin(["release", "exam-day"]).status == 0, "\(tag)")

        // What the model says each student scores (one the server never held an answer of has no hand-in at all).
        var expected: [String: (score: Double, max: Double)] = [:]
        for student in students where !(student.day == .handedInAtClosing && student.synced.isEmpty) {
            let counted: Set<String> =
                switch student.day {
                case .online, .file, .offlineBeforeClosing: Set(student.given.filter { $0.typed != nil }.map(\.id))
                case .handedInAtClosing: student.synced
                }
            expected[student.name] = Self.modelScore(exam, given: student.given, counted: counted)
        }

        // The roster.
        let roster = try server.admin(["roster", "exam-day", "--json"])
        #expect(roster.status == 0, "\(tag): \(roster.stderr)")
        let rows = try #require(roster.json?["students"] as? [[String: Any]], "\(tag)")
        for student in students {
            let row = rows.first { $0["user"] as? String == student.name }
            guard let want = expected[student.name] else {
                #expect(row?["score"] == nil, "\(tag): \(student.name) never sent an answer: \(String(describing: row))")
                continue
            }
            #expect(
                row?["score"] as? Double == want.score && row?["max_score"] as? Double == want.max,
                "\(tag): roster \(student.name) (\(student.day)) \(String(describing: row)) wants \(want)"
            )
            let flags = row?["flags"] as? [String] ?? []
            #expect(!flags.contains("after_closing") && !flags.contains("over_time"), "\(tag): \(student.name) \(flags)")
        }

        // Each student's own results, after a sync brings them.
        for student in students where student.day != .handedInAtClosing {
            #expect([0, 3].contains(try student.vault.unlocked(["sync"]).status), "\(tag)")
            let results = try student.vault.unlocked(["results", "exam-day", "--json"])
            let result = (results.json?["results"] as? [[String: Any]])?.first
            let want = try #require(expected[student.name])
            #expect(
                result?["score"] as? Double == want.score && result?["max_score"] as? Double == want.max,
                "\(tag): vault results \(student.name) (\(student.day)) \(results.stdout) wants \(want)"
            )
        }

        // The gradebook files: the per-question file's score and maximum; Moodle's one column, as points or, where
        // students' maxima differ, each student's percentage of their own maximum.
        let csv = try server.admin(["export", "exam-day", "--format", "csv"])
        let csvLines = csv.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let header = csvLines.first?.components(separatedBy: ",") ?? []
        let scoreColumn = try #require(header.firstIndex(of: "\"score\""), "\(tag): \(header)")
        let maxColumn = try #require(header.firstIndex(of: "\"max_score\""), "\(tag)")
        let moodle = try server.admin(["export", "exam-day", "--format", "moodle"])
        let moodleLines = moodle.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(moodleLines.first?.contains(exam.unevenMaxima ? "percent" : "(Real)") == true, "\(tag): \(moodleLines.first ?? "")")
        for student in students {
            guard let want = expected[student.name] else { continue }
            let cells = csvLines.first { $0.hasPrefix("\"\(student.name)\",") }?.components(separatedBy: ",") ?? []
            #expect(
                cells.count > maxColumn && Double(cells[scoreColumn]) == want.score && Double(cells[maxColumn]) == want.max,
                "\(tag): csv \(student.name) \(cells) wants \(want)"
            )
            let cell = moodleLines.first { $0.hasPrefix("\"\(student.name)\",") }?.components(separatedBy: ",").last.flatMap(Double.init)
            let wanted = exam.unevenMaxima ? (want.score / want.max * 100 * 100).rounded() / 100 : want.score
            #expect(cell == wanted, "\(tag): moodle \(student.name) \(String(describing: cell)) wants \(wanted)")
        }
    }
}

import Foundation
import Testing
import VaultCore
import VaultTerminal
import VaultTestSupport

/// The take screen in the student's language, through the real binary on a real pseudo-terminal, with the catalogs
/// compiled from po/ by scripts/catalogs.
@Suite(.ownThreads)
struct LanguageCommandTests {
    /// A timed test whose every word is Greek (no ASCII word): whatever English a transcript holds came from the vault.
    static let document = """
        {"id":"glossa","title":"Δοκιμή","time_limit_seconds":600,"questions":[\
        {"id":"q1","type":"true_false","prompt":"Ο ήλιος είναι αστέρι."},\
        {"id":"q2","type":"single_choice","prompt":"Διάλεξε χρώμα.","choices":[{"id":"a","text":"Κόκκινο"},{"id":"b","text":"Μπλε"}]},\
        {"id":"q3","type":"essay","prompt":"Γράψε γιατί."}]}
        """

    /// A vault signed in with `glossa` downloaded.
    func prepared() throws -> (CLIVault, ServerProcess) {
        let (vault, server) = try CLIFixtures.downloaded([])
        let path = vault.root.file("glossa.json")
        try Data(Self.document.utf8).write(to: URL(fileURLWithPath: path))
        try server.admin(["publish", path])
        #expect(try vault.unlocked(["download", "glossa"]).status == 0)
        return (vault, server)
    }

    /// The whole test in screen-reader mode (append-only): start, a typo, help, an answer, an essay, review, submit.
    func spokenTranscript(_ vault: CLIVault, environment: [String: String]) throws -> String {
        let screen = try PseudoTerminal(
            "vault",
            ["take", "glossa", "--vault", vault.path, "--password-stdin"],
            environment: ["ACCESSIBLE": "1", "VAULT_LOCALEDIR": try Catalogs.directory()].merging(environment) { $1 }
        )
        screen.send("pw-1\n")
        var transcript = try screen.wait(for: "[y/N]")
        screen.send("y\n")
        transcript += try screen.wait(for: "Ο ήλιος είναι αστέρι.")
        screen.send("zz\nt\n")
        transcript += try screen.wait(for: "Διάλεξε χρώμα.")
        screen.send("?\nb\n")
        transcript += try screen.wait(for: "Γράψε γιατί.")
        screen.send("Επειδή λάμπει.\n.\n:r\n:s\n")
        transcript += try screen.wait(for: "[y/N]")
        screen.send("y\n")
        #expect(screen.waitForExit() == 0)
        return transcript + screen.remainingOutput
    }

    /// Lines a student reads: the password echo and blank lines left out, the terminal's CR LF as one break.
    static func lines(_ transcript: String) -> [String] {
        transcript.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    @Test("--help in the student's language: `show` in Spanish and `take` in Persian have no English sentence and no English heading")
    func helpInTheStudentsLanguage() throws {
        let english = try Binaries.run("vault", ["show", "--help"]).stdout + (try Binaries.run("vault", ["take", "--help"]).stdout)
        let sentences = [
            "OVERVIEW:", "OPTIONS:", "ARGUMENTS:", "The assessment id.", "Show help information.", "Print one JSON document",
            "Read the vault password", "The questions, with the answers", "Type an answer and press Enter", "Start a timed test's clock",
        ]
        for sentence in sentences { #expect(english.contains(sentence), "the English help lacks \(sentence)") }
        for (language, command) in [("es", "show"), ("fa", "take")] {
            let help = try Binaries.run("vault", ["--lang", language, command, "--help"])
            #expect(help.status == 0)
            for sentence in sentences { #expect(!help.stdout.contains(sentence), "\(language) \(command) --help: \(sentence)\n\(help.stdout)") }
        }
    }

    @Test("the pseudo-language: every line of the take screen comes from the catalog (no English word left) and fits 80 columns")
    func pseudoLanguage() throws {
        let (vault, server) = try prepared()
        defer { withExtendedLifetime(server) {} }
        let transcript = try spokenTranscript(vault, environment: ["VAULT_LANG": "qps"])
        #expect(transcript.contains("⟦"), "the pseudo-language was not used: \(transcript)")
        if ProcessInfo.processInfo.environment["VAULT_SHOW_TRANSCRIPT"] != nil { print(transcript) }
        for line in Self.lines(transcript) {
            // What the student types stays ASCII: commands in backticks, [y/N], single letters and keys (t, f, :s, #N).
            let spoken = line.replacingOccurrences(of: #"`[^`]*`"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: "[y/N]", with: "")
            let english = spoken.range(of: #"[A-Za-z]{3,}"#, options: .regularExpression).map { String(spoken[$0]) }
            #expect(english == nil, "English left untranslated (\(english ?? "")): \(line)")
            #expect(DisplayWidth.of(line) <= 80, "past 80 columns: \(line)")
        }
        let show = try #require(try vault.unlocked(["show", "glossa", "--json"]).json)
        #expect(show["attempt_state"] as? String == "submitted", "--json stays English and the attempt is handed in")
    }

    /// English words in a line a student reads; what is not words (commands in backticks, [y/N], the server's
    /// address, paths, key fingerprints, dates the pseudo-language leaves English, setting names such as
    /// cache.max_bytes) is left out first.
    static func englishWords(_ line: String, values: [String]) -> [String] {
        var spoken = line
        for value in values { spoken = spoken.replacingOccurrences(of: value, with: "") }
        for pattern in [
            #"`[^`]*`"#, #"\[y/N\]"#, #"https?://\S+"#, #"/\S+"#, #"\brcpt-\S+"#, #"\b[0-9a-f]{4}(-[0-9a-f]{4}){3,}\b"#, #"\b[0-9a-f]{16,}\b"#,
            #"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d+ [A-Z][a-z]{2}\b"#, #"\b[a-z]+(\.[a-z_]+)+\b"#,
        ] {
            spoken = spoken.replacingOccurrences(of: pattern, with: "", options: .regularExpression)
        }
        var words: [String] = []
        var rest = spoken[...]
        while let range = rest.range(of: #"[A-Za-z]{3,}"#, options: .regularExpression) {
            words.append(String(rest[range]))
            rest = rest[range.upperBound...]
        }
        return words
    }

    @Test("the whole story in the pseudo-language: init to results, every other command and the common errors: no English word in a human line")
    func pseudoStory() throws {
        let server = try ServerProcess()
        defer { withExtendedLifetime(server) {} }
        let vault = CLIVault()
        let environment = ["VAULT_LANG": "qps", "VAULT_LOCALEDIR": try Catalogs.directory()]
        let document = vault.root.file("glossa.json")
        try Data(Self.document.utf8).write(to: URL(fileURLWithPath: document))
        try server.admin(["publish", document])
        // What a student meets after the story too: every other command she reads, and the errors of a wrong
        // password, a typo in an id, a wrong start code and a missing vault.
        let steps: [(String, [String], String, Set<Int32>)] = [
            ("init", ["init", "--kdf-iterations", "1000", "--new-password-stdin"], "pw-1\n", [0]),
            (
                "login", ["login", "--server", server.url, "--user", "demo", "--password-stdin", "--server-password-stdin"], "pw-1\ndemo-password\n",
                [0]
            ),
            ("catalog", ["catalog"], "pw-1\n", [0]),
            ("download", ["download", "glossa"], "pw-1\n", [0]),
            ("list", ["list"], "pw-1\n", [0]),
            ("answer", ["answer", "glossa", "q1"], "pw-1\ntrue\n", [0]),
            ("take", ["take", "glossa", "--yes", "--non-interactive"], "pw-1\nzz\nt\nb\nΕπειδή λάμπει.\n.\n:s\ny\n", [0]),
            ("show", ["show", "glossa"], "pw-1\n", [0]),
            ("status", ["status"], "pw-1\n", [0, 3]),
            ("sync", ["sync"], "pw-1\n", [0]),
            ("results", ["results"], "pw-1\n", [0]),
            ("receipts", ["receipts"], "pw-1\n", [0]),
            ("storage", ["storage"], "pw-1\n", [0]),
            ("dead-letters", ["dead-letters"], "pw-1\n", [0]),
            ("config", ["config", "list"], "pw-1\n", [0]),
            ("verify", ["verify"], "pw-1\n", [0]),
            ("evict", ["evict", "--synced"], "pw-1\n", [0]),
            ("wrong password", ["status"], "not-the-password\n", [77]),
            ("unknown id", ["take", "glosa"], "pw-1\n", [66]),
            ("no vault", ["status", "--vault", vault.root.file("elsewhere")], "pw-1\n", [66]),
        ]
        var content = [vault.path, server.url, "demo", "glossa", "glosa", "vault-cli"]
        for (name, arguments, input, statuses) in steps {
            let result = try vault.run(
                arguments + (arguments.contains("--vault") ? [] : ["--vault", vault.path]) + (name == "init" ? [] : ["--password-stdin"]),
                stdin: input,
                environment: environment
            )
            #expect(statuses.contains(result.status), "\(name): \(result.status) \(result.stderr)")
            let text = result.stdout + result.stderr
            #expect(!text.isEmpty, "\(name) said nothing")
            if ProcessInfo.processInfo.environment["VAULT_SHOW_TRANSCRIPT"] != nil { print("$ vault \(name)\n" + text) }
            if name == "login" {
                // The server's own content (the demo's English titles) is not the vault's to translate.
                let offered = try vault.run(["catalog", "--json", "--vault", vault.path, "--password-stdin"], stdin: "pw-1\n").json
                for entry in offered?["assessments"] as? [[String: Any]] ?? [] {
                    content += [entry["title"] as? String, entry["id"] as? String].compactMap { $0 }
                }
            }
            for line in text.split(separator: "\n").map(String.init) {
                // "vault:" before an error is the program's name, as `ls:` is.
                let spoken = line.hasPrefix("vault: ") ? String(line.dropFirst(7)) : line
                let english = Self.englishWords(spoken, values: content)
                #expect(english.isEmpty, "\(name): English left untranslated \(english): \(line)")
            }
        }
    }

    @Test(
        "choosing the language: --lang, then VAULT_LANG, then `vault config set lang`, then the system's; --json and exit codes stay; a bad code is refused"
    )
    func choosing() throws {
        let (vault, server) = try CLIFixtures.downloaded([])
        defer { withExtendedLifetime(server) {} }
        let catalogs = try Catalogs.directory()
        func status(_ extra: [String] = [], environment: [String: String] = [:]) throws -> Binaries.Result {
            try vault.run(
                ["status", "--vault", vault.path, "--password-stdin"] + extra,
                stdin: "pw-1\n",
                environment: ["VAULT_LOCALEDIR": catalogs].merging(environment) { $1 }
            )
        }
        #expect(try status(environment: ["LANG": "fr_FR.UTF-8"]).stdout.contains("Connexion (dernier état)"), "the system's language")
        #expect(try vault.run(["config", "set", "lang", "sw", "--vault", vault.path, "--password-stdin"], stdin: "pw-1\n").status == 0)
        #expect(
            try status(environment: ["LANG": "fr_FR.UTF-8"]).stdout.contains("Muunganisho (mara ya mwisho)"),
            "the vault's choice over the system's"
        )
        #expect(try status(environment: ["VAULT_LANG": "pt_BR"]).stdout.contains("Conexão (última vez)"), "VAULT_LANG over the vault's choice")
        #expect(try status(["--lang", "es"], environment: ["VAULT_LANG": "pt_BR"]).stdout.contains("Conexión (la última vez)"), "--lang over all")
        let json = try status(["--json"])
        #expect(json.json?["connectivity"] as? String != nil && !json.stdout.contains("Muunganisho"), "--json stays English: \(json.stdout)")
        let refused = try vault.run(["config", "set", "lang", "../../etc", "--vault", vault.path, "--password-stdin"], stdin: "pw-1\n")
        #expect(refused.status == 64 && refused.stderr.contains("es, fr, pt_BR"), "\(refused.stderr)")
        #expect(try status().stdout.contains("Muunganisho"), "the refused value changed nothing")
        #expect(try status(["--lang", "xx!"]).status == 64, "--lang with something that is not a language")
        #expect(try vault.run(["config", "set", "lang", "C", "--vault", vault.path, "--password-stdin"], stdin: "pw-1\n").status == 0)
        #expect(
            try status(environment: ["LANG": "fr_FR.UTF-8"]).stdout.contains("Connection (last seen)"),
            "a saved C is a choice of English that the system's language does not override"
        )
        #expect(try vault.run(["config", "unset", "lang", "--vault", vault.path, "--password-stdin"], stdin: "pw-1\n").status == 0)
        #expect(try status().stdout.contains("Connection (last seen)"), "English when nothing is chosen")
    }

    @Test("screen-reader mode says the same things in every language: each English sentence translated, the content and the answers intact")
    func everyLanguageSaysTheSame() throws {
        let (english, englishServer) = try prepared()
        defer { withExtendedLifetime(englishServer) {} }
        let reference = Self.lines(try spokenTranscript(english, environment: [:]))
        #expect(reference.contains { $0.contains("3 questions. Time limit: 10 minutes") }, "\(reference)")
        let sentences = reference.filter { $0.range(of: #"[A-Za-z]{3,} [A-Za-z]{3,}"#, options: .regularExpression) != nil }
        for language in Catalogs.languages {
            let (vault, server) = try prepared()
            defer { withExtendedLifetime(server) {} }
            let lines = Self.lines(try spokenTranscript(vault, environment: ["VAULT_LANG": language]))
            let text = lines.joined(separator: "\n")
            for sentence in sentences { #expect(!text.contains(sentence), "\(language): still English: \(sentence)") }
            // The content and the student's own words, whatever the language around them.
            for content in ["Ο ήλιος είναι αστέρι.", "Διάλεξε χρώμα.", "Κόκκινο", "Μπλε", "Γράψε γιατί.", "Επειδή λάμπει."] {
                #expect(text.contains(content), "\(language): \(content) is missing")
            }
            for line in lines { #expect(DisplayWidth.of(line) <= 80, "\(language): past 80 columns: \(line)") }
            let show = try #require(try vault.unlocked(["show", "glossa", "--json"]).json)
            #expect(show["attempt_state"] as? String == "submitted", "\(language): not handed in")
            let answers = (show["questions"] as? [[String: Any]])?.compactMap { $0["answer"] as? String }
            #expect(answers?.contains("Επειδή λάμπει.") == true, "\(language): the essay was not kept")
        }
    }

    @Test("right to left: in Persian and Arabic every line of the question screen is marked, ids and commands isolated, Persian digits on the clock")
    func rightToLeft() throws {
        for (language, clock) in [("fa", "\u{2068}۰۹:"), ("ar", "\u{2068}09:")] {
            let (vault, server) = try prepared()
            defer { withExtendedLifetime(server) {} }
            let screen = try PseudoTerminal(
                "vault",
                ["take", "glossa", "--vault", vault.path, "--password-stdin", "--lang", language],
                environment: ["VAULT_LOCALEDIR": try Catalogs.directory()]
            )
            screen.send("pw-1\n")
            var output = try screen.wait(for: "[y/N]")
            screen.send("y\n")
            output += try screen.wait(for: "αστέρι.")
            screen.send("t\n")
            output += try screen.wait(for: "Κόκκινο")
            screen.send(":q\n")
            _ = screen.waitForExit()
            output += screen.remainingOutput
            // The clock: "time left 09:59" in the language, in its digits (Persian ۰-۹), isolated.
            #expect(output.contains(clock), "\(language): no clock in its digits: \(output)")
            // Every line a sentence begins with the right-to-left mark; the choice lines too.
            for line in output.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n") where line.contains("Κόκκινο") {
                #expect(line.hasPrefix("\u{200F}"), "\(language): a choice line is not marked: \(line)")
            }
            // The command to come back with is copied as shown: nothing invisible between its backticks.
            let back = try #require(output.range(of: #"`vault take [^`]*`"#, options: .regularExpression), "\(language): \(output)")
            #expect(output[back] == "`vault take glossa`", "\(language): \(output[back].unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("what a bidi-aware terminal shows (GNU FriBidi's order): Persian lines right to left, ids, commands and the clock in their own order")
    func bidiTerminal() throws {
        let (vault, server) = try prepared()
        defer { withExtendedLifetime(server) {} }
        let environment = ["VAULT_LANG": "fa", "VAULT_LOCALEDIR": try Catalogs.directory()]
        // list: every line a right-to-left paragraph, the id column on the right of each, read left to right (the
        // table pads every line alike: TextTableTests).
        let list = try vault.run(["list", "--vault", vault.path, "--password-stdin"], stdin: "pw-1\n", environment: environment)
        let rows = try list.stdout.split(separator: "\n").map { try BidiView.show(String($0)) }
        #expect(rows.count == 2 && rows.allSatisfy(\.rightToLeft), "\(rows)")
        #expect(rows.last?.visual.trimmingCharacters(in: .whitespaces).hasSuffix("glossa") == true, "the id on the right: \(rows)")
        // A sentence wrapped on a narrow terminal stays right to left on every line it takes, an error's too.
        let narrow = environment.merging(["COLUMNS": "40"]) { $1 }
        let storage = try vault.run(["storage", "--vault", vault.path, "--password-stdin"], stdin: "pw-1\n", environment: narrow)
        let refused = try vault.run(["status", "--vault", vault.path, "--password-stdin"], stdin: "not-it\n", environment: narrow)
        #expect(refused.status == 77)
        for line in (storage.stdout + refused.stderr).split(separator: "\n") where !line.allSatisfy(\.isWhitespace) {
            #expect(try BidiView.show(String(line)).rightToLeft, "a line laid out left to right: \(line)")
        }
        // The take screen: the clock's digits in order, every question line right to left, the command intact.
        let screen = try PseudoTerminal(
            "vault",
            ["take", "glossa", "--vault", vault.path, "--password-stdin"],
            environment: environment
        )
        screen.send("pw-1\n")
        var output = try screen.wait(for: "[y/N]")
        screen.send("y\n")
        output += try screen.wait(for: "αστέρι.")
        screen.send(":q\n")
        _ = screen.waitForExit()
        output += screen.remainingOutput
        // A terminal starts a line again at CR and at LF: each piece is a line as drawn (escape sequences left out).
        let shown = try output.split(whereSeparator: \.isNewline)
            .map { String($0).replacingOccurrences(of: "\u{1B}(\\[[0-9;?]*[A-Za-z]|[78])", with: "", options: .regularExpression) }
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map { try BidiView.show($0) }
        if ProcessInfo.processInfo.environment["VAULT_SHOW_TRANSCRIPT"] != nil { print(shown.map(\.visual).joined(separator: "\n")) }
        #expect(shown.contains { $0.rightToLeft && $0.visual.contains("۰۹:۵") }, "the clock reads 09:5x: \(shown.map(\.visual))")
        #expect(shown.contains { $0.rightToLeft && $0.visual.contains("`vault take glossa`") }, "\(shown.map(\.visual))")
        for line in shown where line.visual.contains("Κόκκινο") || line.visual.contains("ήλιος") {
            #expect(line.rightToLeft, "a question's line laid out right to left: \(line.visual)")
        }
    }
}

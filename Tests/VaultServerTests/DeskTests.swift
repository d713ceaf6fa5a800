import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import VaultAPI
import VaultCore
import VaultRules
import VaultServer
import VaultTestSupport
import ZIPFoundation

/// A browser's part for the desk: a cookie jar over the test client, and the forms' hidden fields.
struct DeskBrowser {
    let api: APIClient
    var cookies: [String: String] = [:]

    mutating func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        form: [String: String]? = nil,
        body: Data? = nil,
        headers: HTTPFields = [:]
    ) async throws
        -> APIClient.Reply
    {
        var headers = headers
        if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
        var body = body
        if let form {
            headers[.contentType] = "application/x-www-form-urlencoded"
            body = Data(DeskBrowser.encode(form).utf8)
        }
        let reply = try await api.send(method, path, body: body, headers: headers)
        for field in reply.headers where field.name == .setCookie {
            let pair = field.value.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
            let name = String(pair[0])
            let value = pair.count > 1 ? String(pair[1]) : ""
            if value.isEmpty || field.value.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        return reply
    }

    static func encode(_ form: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return form.sorted { $0.key < $1.key }.map {
            "\($0.key.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }.joined(separator: "&")
    }

    /// The value of a hidden field on a page.
    static func hidden(_ name: String, in page: APIClient.Reply) -> String? {
        let html = String(decoding: page.body, as: UTF8.self)
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    mutating func signIn(_ user: String, password: String? = nil) async throws -> APIClient.Reply {
        let page = try await send(.get, "/desk/login")
        let nonce = try #require(Self.hidden("nonce", in: page))
        return try await send(.post, "/desk/login", form: ["nonce": nonce, "user": user, "password": password ?? "\(user)-pw"])
    }
}

extension APIClient.Reply {
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// The two ways a desk test reaches the server: in process, and over a real socket on 127.0.0.1.
enum Reach: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case router, live
    var testDescription: String { rawValue }
    var setup: TestingSetup { self == .router ? .router : .live }
}

struct DeskTests {
    static let essay = "مرحبا <script>alert(1)</script> — the answer\nin two lines"

    @Test("the Assessments page's counts, read for every assessment at once, are each roster's counts", arguments: Backend.all)
    func overviewIsTheRosters(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            var other = Fixtures.quiz()
            other.id = "quiz-2"
            #expect(try await api.publish(other, teacher: teacher).status == .created)
            #expect(try await Self.handIn(api, student: "student", attempt: "o-1").status == .created)
            #expect(try await Self.handIn(api, student: "teacher", attempt: "o-2").status == .created, "a teacher trying it out")
            #expect(try await Self.handIn(api, student: "student", attempt: "o-3").status == .created, "a second attempt counts once")
            #expect(try await harness.storage.close(assessmentID: "quiz-2", at: Date(timeIntervalSince1970: 1_900_000_000)))
            let overview = try await harness.storage.assessmentOverview()
            let desk = TeacherDesk(storage: harness.storage, now: { Date() })
            for id in ["quiz-1", "quiz-2"] {
                let roster = try await desk.roster(id, scored: false)
                #expect(overview.counts(id) == (roster.handedInCount, roster.students.count), "\(id)")
                #expect(
                    ResponseRules.closesAt(notAfter: nil, closedAt: overview.closedAt[id]).map { Timestamp.string(epoch: $0) } == roster.closesAt
                )
            }
            #expect(overview.counts("quiz-1") == (2, 3) && overview.counts("quiz-2") == (0, 2))
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let page = try await browser.send(.get, "/desk").text
            #expect(page.contains(Timestamp.readable(epoch: 1_900_000_000)), "the closing shows")
        }
    }

    /// The student hands in a quiz with an essay; returns the attempt id.
    static func handIn(
        _ api: APIClient,
        student: String,
        attempt: String,
        essay: String = DeskTests.essay,
        startedAt: String? = nil,
        submittedAt: String = "2026-11-20T10:10:00.000Z"
    ) async throws
        -> APIClient.Reply
    {
        let token = try await api.token(student)
        let served = try await api.served("quiz-1", token: token)
        let items = [
            Fixtures.item(served, question: "q1", answer: .string("b"), attempt: attempt),
            Fixtures.item(served, question: "q6", answer: .string(essay), attempt: attempt),
        ]
        _ = try await api.batch(items, token: token)
        let submission = SubmissionRequest(
            attemptId: attempt,
            assessmentId: "quiz-1",
            assessmentVersion: served.version ?? 1,
            submittedAt: submittedAt,
            responseIds: items.map(\.id),
            startedAt: startedAt
        ).listing(items)
        return try await api.send(.post, APIPath.submissions, token: token, json: submission)
    }

    @Test(
        "the desk end to end: sign in, the roster live (downloaded, handed in, filters), grading an essay by question, release, both gradebook files, sign out",
        arguments: Backend.all,
        Reach.allCases
    )
    func deskFlow(backend: Backend, reach: Reach) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.storage.createUser(
            { () -> UserRecord in
                var record = try PasswordHasher.makeRecord(
                    name: "Zoë 東",
                    role: .student,
                    password: SecretBytes(Array("x-pw".utf8)),
                    iterations: 1_000
                )
                record.group = "7b"
                return record
            }(),
            now: Date()
        )
        try await harness.test(reach.setup) { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            var browser = DeskBrowser(api: api)

            let away = try await browser.send(.get, "/desk")
            #expect(away.status == .seeOther && away.headers[.location] == "/desk/login")
            let signedIn = try await browser.signIn("teacher")
            #expect(signedIn.status == .seeOther && signedIn.headers[.location] == "/desk")
            let cookie = try #require(signedIn.headers[values: .setCookie].first { $0.hasPrefix("vault_desk=") })
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/desk"))
            #expect(!cookie.contains("Secure"), "plain HTTP on loopback: no Secure flag")

            let list = try await browser.send(.get, "/desk")
            #expect(list.status == .ok && list.text.contains("/desk/a/quiz-1") && list.text.contains("0 of 3"))
            #expect(list.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            // The one script is the desk's own file: no inline script, no other origin.
            let policy = list.headers[.contentSecurityPolicy] ?? ""
            #expect(policy.contains("script-src 'self'") && policy.contains("connect-src 'self'") && !policy.contains("unsafe"))
            let script = try await browser.send(.get, "/desk/live.js")
            #expect(script.status == .ok && script.headers[.contentType]?.hasPrefix("text/javascript") == true && script.text.contains("DOMParser"))

            // The roster before anyone fetched the quiz, then live as the student syncs.
            var roster = try await browser.send(.get, "/desk/a/quiz-1?show=not-downloaded")
            #expect(roster.text.contains("Not downloaded (3)") && roster.text.contains("data-user=\"student\""))
            #expect(roster.text.contains("http-equiv=\"refresh\""))
            #expect(try await Self.handIn(api, student: "student", attempt: "a-1").status == .created)
            roster = try await browser.send(.get, "/desk/a/quiz-1")
            #expect(roster.text.contains("Not downloaded (2)") && roster.text.contains("Not handed in (2)"))
            #expect(roster.text.contains("version 1,"))
            let notDownloaded = try await browser.send(.get, "/desk/a/quiz-1?show=not-downloaded")
            #expect(!notDownloaded.text.contains("data-user=\"student\"") && notDownloaded.text.contains("data-user=\"student2\""))
            let group = try await browser.send(.get, "/desk/a/quiz-1?group=7b")
            #expect(group.text.contains("Zoë 東") && !group.text.contains("data-user=\"student2\""))
            // The gradebook links carry the group shown.
            #expect(group.text.contains("/desk/a/quiz-1/export?format=moodle&amp;group=7b"))
            let groupFile = try await browser.send(.get, "/desk/a/quiz-1/export?format=moodle&group=7b")
            #expect(groupFile.text.contains("Zoë 東") && !groupFile.text.contains("\"student\""))

            // The grading queue: the essay in full, escaped, right to left as written.
            let queue = try await browser.send(.get, "/desk/a/quiz-1/grade?question=q6")
            #expect(queue.text.contains("مرحبا &lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(!queue.text.contains("<script>"))
            #expect(queue.text.contains("dir=\"auto\""))
            let csrf = try #require(DeskBrowser.hidden("csrf", in: queue))
            // While the essay waits for the teacher the total is not final: Moodle's and Canvas's files leave it
            // empty (never a partial score that looks final) and the per-question file marks the essay pending.
            let early = try await browser.send(.get, "/desk/a/quiz-1/export?format=moodle")
            #expect(early.text.contains("\"student\",\"\",\r\n"), "\(early.text)")
            let earlyCanvas = try await browser.send(.get, "/desk/a/quiz-1/export?format=canvas")
            #expect(earlyCanvas.text.contains("\"student\",,,\"student\",\"\",\r\n"))
            let perQuestion = try await browser.send(.get, "/desk/a/quiz-1/export?format=csv")
            let studentRow = try #require(perQuestion.text.components(separatedBy: "\r\n").first { $0.hasPrefix("\"student\",") })
            #expect(studentRow.contains(",\"pending\","), "\(studentRow)")
            let tooMany = try await browser.send(.post, "/desk/a/quiz-1/grade", form: ["csrf": csrf, "question": "q6", "points:a-1": "7"])
            #expect(tooMany.status == .badRequest && tooMany.text.contains("from 0 to 1"))
            #expect(try await harness.storage.resultInputs(user: nil, assessmentID: "quiz-1").first?.grades["q6"] == nil)
            let saved = try await browser.send(.post, "/desk/a/quiz-1/grade", form: ["csrf": csrf, "question": "q6", "points:a-1": "0.5"])
            #expect(saved.status == .seeOther && saved.headers[.location]?.contains("saved=1") == true)
            #expect(try await harness.storage.resultInputs(user: nil, assessmentID: "quiz-1").first?.grades["q6"] == 0.5)
            // q5 (a short text with no accepted answers) was left blank: it earns 0 by itself and is not the teacher's
            // to grade (issue 67), so with the essay graded the total is final.
            let graded = try await browser.send(.get, "/desk/a/quiz-1/export?format=moodle")
            #expect(graded.text.contains("\"student\",\"\",1.5\r\n"), "\(graded.text)")
            let blank = try await browser.send(.post, "/desk/a/quiz-1/grade", form: ["csrf": csrf, "question": "q5", "points:a-1": "0"])
            #expect(blank.status == .seeOther)

            // Release, then the gradebook files.
            #expect(try await browser.send(.post, "/desk/a/quiz-1/release", form: ["csrf": csrf, "confirm": "yes"]).status == .seeOther)
            roster = try await browser.send(.get, "/desk/a/quiz-1")
            #expect(roster.text.contains("results released") && roster.text.contains("1.50 of 6"))
            let moodle = try await browser.send(.get, "/desk/a/quiz-1/export?format=moodle")
            #expect(moodle.headers[.contentType] == "text/csv; charset=utf-8")
            let lines = moodle.text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(lines.first == "\"Username\",\"Group\",\"Quiz (Real)\"")
            #expect(lines.contains("\"student\",\"\",1.5") && lines.contains("\"student2\",\"\",") && lines.contains("\"Zoë 東\",\"7b\","))
            let canvas = try await browser.send(.get, "/desk/a/quiz-1/export?format=canvas")
            #expect(canvas.text.hasPrefix("\"Student\",\"ID\",\"SIS User ID\",\"SIS Login ID\",\"Section\",\"Quiz (quiz-1)\"\r\n"))
            #expect(canvas.text.contains("\"student\",,,\"student\",\"\",1.5\r\n"))

            // Sign out: the session is gone.
            #expect(try await browser.send(.post, "/desk/logout", form: ["csrf": csrf]).status == .seeOther)
            #expect(try await browser.send(.get, "/desk").status == .seeOther)
        }
    }

    @Test("a sealed exam's start code in large type for the proctor, the same code the command line prints", arguments: Backend.all)
    func startCode(backend: Backend) async throws {
        var sealing = try await ServerHarness(backend)
        sealing.configuration.sealIterations = 1_000
        let harness = sealing
        try await harness.test { api in
            var quiz = Fixtures.quiz(id: "sealed-1")
            quiz.sealed = true
            quiz.opensAt = "2026-12-01T09:00:00.000Z"
            #expect(try await api.publish(quiz, teacher: try await api.token("teacher")).status == .created)
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let code = try #require(
                try await TeacherDesk(storage: harness.storage, now: { Date() }).startCode("sealed-1", sealIterations: 1_000)?.code
            )
            let page = try await browser.send(.get, "/desk/a/sealed-1/start-code")
            #expect(page.status == .ok && page.text.contains("<p class=\"code\"") && page.text.contains(">\(code)</p>"))
            let roster = try await browser.send(.get, "/desk/a/sealed-1")
            #expect(roster.text.contains("/desk/a/sealed-1/start-code"))
            let unsealed = try await browser.send(.get, "/desk/a/quiz-none/start-code")
            #expect(unsealed.status == .notFound && unsealed.text.contains("There is no assessment quiz-none"))
        }
    }

    @Test("a roster of more than 200 shows 200 rows a page, counts over everyone, scores on the rows shown", arguments: Backend.all)
    func paging(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        for index in 0..<205 {
            var record = try PasswordHasher.makeRecord(name: "s\(index)", role: .student, password: SecretBytes(Array("x".utf8)), iterations: 1_000)
            record.group = index < 5 ? "5a" : "big"
            try await harness.storage.createUser(record, now: Date())
        }
        try await harness.test { api in
            #expect(try await api.publish(Fixtures.quiz(), teacher: try await api.token("teacher")).status == .created)
            #expect(try await Self.handIn(api, student: "student", attempt: "a-1").status == .created)
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let first = try await browser.send(.get, "/desk/a/quiz-1")
            #expect(first.text.contains("Rows 1–200 of 207") && first.text.contains("Not handed in (206)"))
            #expect(first.text.components(separatedBy: "data-user=").count - 1 == 200)
            // The student who handed in sorts first (no group): their score is on page 1.
            #expect(first.text.contains("1 of 6 (1 to grade)"), "a blank short answer is not to grade")
            let second = try await browser.send(.get, "/desk/a/quiz-1?show=everyone&page=2")
            #expect(second.text.contains("Rows 201–207 of 207") && second.text.contains(">Previous</a>") && !second.text.contains(">Next</a>"))
            let group = try await browser.send(.get, "/desk/a/quiz-1?group=5a")
            #expect(!group.text.contains("Rows ") && group.text.components(separatedBy: "data-user=").count - 1 == 5)
            let past = try await browser.send(.get, "/desk/a/quiz-1?page=99")
            #expect(past.text.contains("Rows 201–207 of 207"), "a page past the end shows the last")
        }
    }

    /// Every desk page and form.
    static let pages = [
        "/desk", "/desk/a/quiz-1", "/desk/a/quiz-1/grade?question=q6", "/desk/a/quiz-1/start-code", "/desk/a/quiz-1/export?format=csv",
        "/desk/a/quiz-1/slips",
    ]
    static let forms = [
        "/desk/logout", "/desk/a/quiz-1/release", "/desk/a/quiz-1/close", "/desk/a/quiz-1/late", "/desk/a/quiz-1/grade", "/desk/a/quiz-1/packages",
    ]

    @Test(
        "a question's pictures on the desk's grading page: PNG as an image with its description, an SVG never as an image; the policy allows data: images only"
    )
    func picturesOnTheDesk() async throws {
        let harness = try await ServerHarness(.sqlite)
        try await harness.test { api in
            var quiz = Fixtures.quiz()
            let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!
            quiz.questions[5].media = [
                Media(name: "map.png", mimeType: "image/png", data: png.base64EncodedString(), alt: "a map of the river"),
                Media(name: "x.svg", mimeType: "image/svg+xml", data: Data("<svg onload=\"alert(1)\"/>".utf8).base64EncodedString(), alt: ""),
            ]
            #expect(try await api.publish(quiz, teacher: try await api.token("teacher")).status == .created)
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let page = try await browser.send(.get, "/desk/a/quiz-1/grade?question=q6")
            #expect(page.text.contains("<img src=\"data:image/png;base64,\(png.base64EncodedString())\" alt=\"a map of the river\">"), "\(page.text)")
            #expect(page.text.contains("Picture 1 of 2: a map of the river") && page.text.contains("Picture 2 of 2 (no description)"))
            #expect(!page.text.contains("data:image/svg"))
            let policy = page.headers[.contentSecurityPolicy] ?? ""
            #expect(policy.contains("img-src 'self' data:") && policy.contains("default-src 'none'"))
        }
    }

    @Test("the desk's Server page: an administrator sees the last hour as two SVG charts and the slowest routes; a teacher gets 403 and no link")
    func serverPage() async throws {
        let harness = try await ServerHarness(.sqlite)
        try await OwnershipTests.addTeachers(harness.storage)
        try await harness.test { api in
            #expect(try await api.publish(Fixtures.quiz(), teacher: try await api.token("teacher")).status == .created)
            var admin = DeskBrowser(api: api)
            _ = try await admin.signIn("ada")
            #expect(try await admin.send(.get, "/desk").text.contains("href=\"/desk/server\""))
            let page = try await admin.send(.get, "/desk/server")
            #expect(page.status == .ok, "\(page.text)")
            #expect(page.text.components(separatedBy: "<svg").count == 3 && page.text.contains("<rect class="), "\(page.text)")
            #expect(page.text.contains("Slowest routes") && page.text.contains("store: sqlite"), "\(page.text)")
            var teacher = DeskBrowser(api: api)
            _ = try await teacher.signIn("teacher")
            #expect(!(try await teacher.send(.get, "/desk").text.contains("/desk/server")))
            #expect(try await teacher.send(.get, "/desk/server").status == .forbidden)
        }
    }

    @Test(
        "the desk's packages button: one signed package per student of the group shown, in a zip whose note names the fingerprint to check",
        arguments: Backend.all
    )
    func packagesButton(backend: Backend) async throws {
        var harness = try await ServerHarness(backend)
        harness.configuration.sealIterations = 1_000
        var ana = try PasswordHasher.makeRecord(name: "ana", role: .student, password: SecretBytes(Array("ana-pw".utf8)), iterations: 1_000)
        ana.group = "7b"
        try await harness.storage.createUser(ana, now: Date())
        try await harness.test { api in
            #expect(try await api.publish(Fixtures.quiz(), teacher: try await api.token("teacher")).status == .created)
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let page = try await browser.send(.get, "/desk/a/quiz-1?group=7b")
            #expect(page.text.contains("action=\"/desk/a/quiz-1/packages\"") && page.text.contains("name=\"group\" value=\"7b\""))
            let csrf = try #require(DeskBrowser.hidden("csrf", in: page))
            let reply = try await browser.send(.post, "/desk/a/quiz-1/packages", form: ["csrf": csrf, "group": "7b"])
            #expect(reply.status == .ok && reply.headers[.contentType] == "application/zip")
            #expect(reply.headers[.contentDisposition]?.contains("quiz-1-packages-7b.zip") == true)
            let archive = try Archive(data: reply.body, accessMode: .read)
            var files: [String: Data] = [:]
            for entry in archive {
                var bytes = Data()
                _ = try archive.extract(entry) { bytes.append($0) }
                files[entry.path] = bytes
            }
            #expect(files.keys.sorted() == ["README.txt", "ana-quiz-1.vaultpkg"])
            let key = try ServerPublicKey(try JSONDecoder().decode(ServerKeyResponse.self, from: try await api.send(.get, APIPath.serverKey).body))
            #expect(String(decoding: files["README.txt"] ?? Data(), as: UTF8.self).contains(key.fingerprint))
            let package = try JSONDecoder().decode(AssessmentPackage.self, from: try #require(files["ana-quiz-1.vaultpkg"]))
            #expect(package.user == "ana" && package.assessmentId == "quiz-1")
            #expect(key.isValidSignature(try #require(Data(base64Encoded: package.signature)), for: try package.signedBytes))
            // The slip codes page (issue 68): Ana's code, the one that opens her package, derived again; never in the zip.
            #expect(package.slip != nil)
            let slips = try await browser.send(.get, "/desk/a/quiz-1/slips?group=7b")
            #expect(slips.status == .ok && slips.text.contains("ana"), "\(slips.text)")
            let code = try #require(slips.text.firstMatch(of: /<code>([A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4})<\/code>/)?.1).description
            #expect(try PackageSlip.open(package, code: code).slip == nil)
            #expect(throws: SealingError.wrongCode) { try PackageSlip.open(package, code: "AAAA-BBBB-CCCC") }
            for (_, bytes) in files { #expect(String(decoding: bytes, as: UTF8.self).range(of: code) == nil) }
            // Everyone: the test server's students as well.
            let everyone = try await browser.send(.post, "/desk/a/quiz-1/packages", form: ["csrf": csrf, "group": ""])
            #expect(Array(try Archive(data: everyone.body, accessMode: .read)).count > 2)
        }
    }

    @Test(
        "authorization: with no session every page sends you to sign in and every form is refused; a student gets 403 everywhere",
        arguments: Backend.all
    )
    func authorization(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            #expect(try await api.publish(Fixtures.quiz(), teacher: try await api.token("teacher")).status == .created)
            var nobody = DeskBrowser(api: api)
            for page in Self.pages {
                let reply = try await nobody.send(.get, page)
                #expect(reply.status == .seeOther && reply.headers[.location] == "/desk/login", "\(page)")
            }
            for form in Self.forms {
                #expect(try await nobody.send(.post, form, form: ["csrf": "x"]).status == .unauthorized, "\(form)")
            }
            // A student cannot sign in to the desk, and a student's API token used as the cookie is refused too.
            var student = DeskBrowser(api: api)
            let refused = try await student.signIn("student")
            #expect(refused.status == .forbidden && student.cookies["vault_desk"] == nil)
            student.cookies["vault_desk"] = try await api.token("student")
            for page in Self.pages { #expect(try await student.send(.get, page).status == .forbidden, "\(page)") }
            let csrf = deskCSRF(student.cookies["vault_desk"]!)
            for form in Self.forms { #expect(try await student.send(.post, form, form: ["csrf": csrf]).status == .forbidden, "\(form)") }
            #expect(try await harness.storage.rosterFacts(assessmentID: "quiz-1", group: nil)?.closedAt == nil)
            #expect(try await harness.storage.rosterFacts(assessmentID: "quiz-1", group: nil)?.released == false)
            // A wrong password is the same sentence as an unknown name, and the throttle is the API's.
            var guesser = DeskBrowser(api: api)
            for _ in 0..<6 { #expect(try await guesser.signIn("teacher", password: "wrong").status == .unauthorized) }
            let throttled = try await guesser.signIn("teacher", password: "wrong")
            #expect(throttled.status == .tooManyRequests && throttled.headers[.retryAfter] != nil)
            #expect(try await api.send(.post, APIPath.token, json: TokenRequest(user: "teacher", password: "teacher-pw")).status == .tooManyRequests)
        }
    }

    @Test("CSRF: a form post without the session's token, with another session's, or from another origin changes nothing", arguments: Backend.all)
    func csrf(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            #expect(try await api.publish(Fixtures.quiz(), teacher: try await api.token("teacher")).status == .created)
            var teacher = DeskBrowser(api: api)
            _ = try await teacher.signIn("teacher")
            var other = DeskBrowser(api: api)
            _ = try await other.signIn("teacher")
            let theirs = try #require(DeskBrowser.hidden("csrf", in: try await other.send(.get, "/desk/a/quiz-1")))
            let mine = try #require(DeskBrowser.hidden("csrf", in: try await teacher.send(.get, "/desk/a/quiz-1")))
            #expect(mine != theirs)
            let altered = String(mine.dropLast()) + (mine.hasSuffix("0") ? "1" : "0")
            for form in [[:], ["csrf": ""], ["csrf": theirs], ["csrf": altered]] {
                let reply = try await teacher.send(.post, "/desk/a/quiz-1/close", form: form)
                #expect(reply.status == .forbidden && reply.text.contains("out of date"))
            }
            let crossSite = try await teacher.send(
                .post,
                "/desk/a/quiz-1/close",
                form: ["csrf": mine, "confirm": "yes"],
                headers: [.origin: "https://evil.example"]
            )
            #expect(crossSite.status == .forbidden)
            // A form the decoder cannot read (a name twice: which would count?, brackets that nest, a bad escape) is
            // refused with a sentence, whatever its token.
            for body in ["csrf=\(mine)&confirm=yes&confirm=no", "csrf=\(mine)&confirm[a][b]=yes&confirm=yes", "csrf=\(mine)&confirm=%zz"] {
                let unreadable = try await teacher.send(
                    .post,
                    "/desk/a/quiz-1/close",
                    body: Data(body.utf8),
                    headers: [.contentType: "application/x-www-form-urlencoded"]
                )
                #expect(unreadable.status == .badRequest && unreadable.text.contains("could not be read"), "\(body): \(unreadable.status)")
            }
            #expect(try await harness.storage.rosterFacts(assessmentID: "quiz-1", group: nil)?.closedAt == nil, "nothing changed")
            // A sign-in form posted without its own nonce (login CSRF) signs no one in.
            var forged = DeskBrowser(api: api)
            let noNonce = try await forged.send(.post, "/desk/login", form: ["user": "teacher", "password": "teacher-pw", "nonce": "abc"])
            #expect(noNonce.status == .forbidden && forged.cookies["vault_desk"] == nil)
            // The right token closes it.
            #expect(try await teacher.send(.post, "/desk/a/quiz-1/close", form: ["csrf": mine, "confirm": "yes"]).status == .seeOther)
            #expect(try await harness.storage.rosterFacts(assessmentID: "quiz-1", group: nil)?.closedAt != nil)
        }
    }

    @Test(
        "close and release ask first on their own page (what is still open, what waits for grading), can be undone, and each is recorded with who and when",
        arguments: Backend.all
    )
    func undoableActions(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            #expect(try await Self.handIn(api, student: "student", attempt: "a-1").status == .created)
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let roster = try await browser.send(.get, "/desk/a/quiz-1")
            let csrf = try #require(DeskBrowser.hidden("csrf", in: roster))
            #expect(roster.text.contains("href=\"/desk/a/quiz-1/close\"") && roster.text.contains("Nothing closed, reopened"))

            // Close: a post without the confirmation only leads to the question; the question says what is open.
            let unconfirmed = try await browser.send(.post, "/desk/a/quiz-1/close", form: ["csrf": csrf])
            #expect(unconfirmed.status == .seeOther && unconfirmed.headers[.location] == "/desk/a/quiz-1/close")
            #expect(try await harness.storage.rosterFacts(assessmentID: "quiz-1", group: nil)?.closedAt == nil)
            let asked = try await browser.send(.get, "/desk/a/quiz-1/close")
            #expect(
                asked.text.contains("Close \u{201C}") && asked.text.contains("not handed in") && asked.text.contains("You can reopen"),
                "\(asked.text)"
            )
            #expect(try await browser.send(.post, "/desk/a/quiz-1/close", form: ["csrf": csrf, "confirm": "yes"]).status == .seeOther)
            #expect(try await harness.storage.rosterFacts(assessmentID: "quiz-1", group: nil)?.closedAt != nil)
            var page = try await browser.send(.get, "/desk/a/quiz-1")
            #expect(page.text.contains("Closed by teacher") && page.text.contains("Reopen the exam"), "\(page.text)")

            // Reopen: open again, recorded.
            #expect(try await browser.send(.post, "/desk/a/quiz-1/reopen", form: ["csrf": csrf]).status == .seeOther)
            #expect(try await harness.storage.rosterFacts(assessmentID: "quiz-1", group: nil)?.closedAt == nil)
            page = try await browser.send(.get, "/desk/a/quiz-1")
            #expect(page.text.contains("Reopened by teacher") && page.text.contains("The exam is open again") == false)

            // Release: the essay still waits for grading (the short answer without a key was left blank: 0, not
            // waiting), and the question says so.
            let release = try await browser.send(.get, "/desk/a/quiz-1/release")
            #expect(
                release.text.contains("1 answer is still waiting for grading") && release.text.contains("1 of 2 students has not"),
                "\(release.text)"
            )
            #expect(try await browser.send(.post, "/desk/a/quiz-1/release", form: ["csrf": csrf]).status == .seeOther)
            #expect(
                try await TeacherDesk(storage: harness.storage, now: { Date() }).roster("quiz-1").released == false,
                "not without the confirmation"
            )
            #expect(try await browser.send(.post, "/desk/a/quiz-1/release", form: ["csrf": csrf, "confirm": "yes"]).status == .seeOther)
            #expect(try await TeacherDesk(storage: harness.storage, now: { Date() }).roster("quiz-1").released)
            #expect(try await browser.send(.post, "/desk/a/quiz-1/hide-results", form: ["csrf": csrf]).status == .seeOther)
            #expect(try await TeacherDesk(storage: harness.storage, now: { Date() }).roster("quiz-1").released == false)

            // Every action, oldest first, with who.
            let history = try await harness.storage.actions(assessmentID: "quiz-1")
            #expect(history.map(\.kind) == [.closed, .reopened, .released, .resultsHidden] && history.allSatisfy { $0.actor == "teacher" })
            page = try await browser.send(.get, "/desk/a/quiz-1")
            #expect(page.text.contains("Results released by teacher") && page.text.contains("Results hidden by teacher"))
            #expect(try await harness.storage.apply(.reopen, assessmentID: "nope", by: "teacher", at: Date()) == false)
            #expect(try await harness.storage.actions(assessmentID: "nope").isEmpty)
        }
    }

    @Test(
        "exam day: a student who synced one answer shows as answering, 1 of 6, with when they were last seen; handed in once they hand in",
        arguments: Backend.all
    )
    func answeringNow(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let (_, token, served) = try await api.quizServed()
            let desk = TeacherDesk(storage: harness.storage, now: { Date() })
            var row = try #require(try await desk.roster("quiz-1").students.first { $0.user == "student" })
            #expect(row.state == .downloaded && row.lastSeenAt != nil)
            _ = try await api.batch([Fixtures.item(served, question: "q1", answer: .string("b"), attempt: "live-1")], token: token)
            row = try #require(try await desk.roster("quiz-1").students.first { $0.user == "student" })
            #expect(row.state == .answering && row.answered == 1 && row.questions == 6 && row.stateText == "answering, 1 of 6 answers in", "\(row)")
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let page = try await browser.send(.get, "/desk/a/quiz-1?show=answering")
            #expect(page.text.contains("answering, 1 of 6 answers in") && page.text.contains("Answering now (1)"), "\(page.text)")
            // A count for each state: student2 has not downloaded; nobody is downloaded-not-started or handed in.
            #expect(
                page.text.contains("Not downloaded (1)") && page.text.contains("Downloaded, not started (0)") && page.text.contains("Handed in (0)")
            )
            #expect(page.text.contains("data-user=\"student\"") && !page.text.contains("data-user=\"student2\""))
            // A second answer to the same question replaces the first: still one in.
            _ = try await api.batch([Fixtures.item(served, question: "q1", answer: .string("c"), attempt: "live-1")], token: token)
            #expect(try await desk.roster("quiz-1").students.first { $0.user == "student" }?.answered == 1)
            // Handed in (another attempt, as a second device would): handed in, the attempt left behind is not "answering".
            #expect(try await Self.handIn(api, student: "student", attempt: "live-2").status == .created)
            row = try #require(try await desk.roster("quiz-1").students.first { $0.user == "student" })
            #expect(row.state == .handedIn && row.answered == nil, "\(row)")
            let after = try await browser.send(.get, "/desk/a/quiz-1?show=handed-in")
            #expect(after.text.contains("Handed in (1)") && after.text.contains("Answering now (0)") && after.text.contains("data-user=\"student\""))
            // Answering a later attempt now: still counted as handed in, and the handed-in filter lists them (a count is
            // the rows its filter lists: "1 of 2 handed in" above a "Handed in" list that was empty, issue 69).
            _ = try await api.batch([Fixtures.item(served, question: "q1", answer: .string("b"), attempt: "live-3")], token: token)
            let later = try await desk.roster("quiz-1").students.first { $0.user == "student" }
            #expect(later?.state == .answering, "\(String(describing: later))")
            let again = try await browser.send(.get, "/desk/a/quiz-1?show=handed-in")
            #expect(
                again.text.contains("1 of 2 handed in") && again.text.contains("Handed in (1)") && again.text.contains("Answering now (1)")
                    && again.text.contains("data-user=\"student\""),
                "\(again.text)"
            )
        }
    }

    @Test(
        "exam day, a timed test: the roster says when each attempt's clock started on the device and the time left (with extra time); the first start the server hears stands; an older client's attempt has none",
        arguments: Backend.all
    )
    func startedAndTimeLeft(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            var quiz = Fixtures.quiz()
            quiz.timeLimitSeconds = 20 * 60
            #expect(try await api.publish(quiz, teacher: teacher).status == .created)
            try await harness.storage.setAccommodation(assessmentID: "quiz-1", user: "student2", extraMinutes: 10)
            let token = try await api.token("student")
            let token2 = try await api.token("student2")
            let served = try await api.served("quiz-1", token: token)
            let now = Date()
            func item(_ question: String, attempt: String, started: Date?, at time: String = "2026-11-20T10:00:00.000Z") -> ResponseItem {
                var item = Fixtures.item(served, question: question, answer: .string("b"), attempt: attempt, at: time)
                item.attemptStartedAt = started.map(Timestamp.string)
                return item
            }
            // student started 5 minutes ago: 15 minutes left. student2 started 25 minutes ago with 10 extra: 5 left.
            _ = try await api.batch([item("q1", attempt: "t-1", started: now - 300)], token: token)
            _ = try await api.batch([item("q1", attempt: "t-2", started: now - 1_500)], token: token2)
            // A later item of the same attempt naming another start changes nothing: the first stands.
            _ = try await api.batch([item("q1", attempt: "t-1", started: now, at: "2026-11-20T10:05:00.000Z")], token: token)
            let desk = TeacherDesk(storage: harness.storage, now: { now })
            let rows = Dictionary(uniqueKeysWithValues: try await desk.roster("quiz-1").students.map { ($0.user, $0) })
            let first = try #require(rows["student"])
            #expect(first.state == .answering && first.answered == 1 && first.timeLeftSeconds.map { (899...900).contains($0) } == true, "\(first)")
            #expect(first.startedAt.flatMap(Timestamp.date).map { abs($0.timeIntervalSince(now - 300)) < 0.01 } == true, "\(first)")
            #expect(first.stateText == "answering, 1 of 6 answers in, 15 min left" || first.stateText == "answering, 1 of 6 answers in, 14 min left")
            let second = try #require(rows["student2"])
            #expect(second.timeLeftSeconds.map { (299...300).contains($0) } == true, "\(second)")
            // Past the limit: "time is up".
            let later = TeacherDesk(storage: harness.storage, now: { now + 3_600 })
            #expect(try await later.roster("quiz-1").students.first { $0.user == "student" }?.stateText == "answering, 1 of 6 answers in, time is up")
            // On the desk page, with when it started.
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let page = try await browser.send(.get, "/desk/a/quiz-1")
            #expect(page.text.contains("min left; started "), "\(page.text)")
        }
        // An older client sends no start: answering, with no start and no time left.
        let older = try await ServerHarness(backend)
        try await older.test { api in
            let teacher = try await api.token("teacher")
            var quiz = Fixtures.quiz()
            quiz.timeLimitSeconds = 600
            #expect(try await api.publish(quiz, teacher: teacher).status == .created)
            let token = try await api.token("student")
            let served = try await api.served("quiz-1", token: token)
            _ = try await api.batch([Fixtures.item(served, question: "q1", answer: .string("b"), attempt: "old-1")], token: token)
            let row = try #require(
                try await TeacherDesk(storage: older.storage, now: { Date() }).roster("quiz-1").students.first { $0.user == "student" }
            )
            #expect(row.state == .answering && row.startedAt == nil && row.timeLeftSeconds == nil && row.stateText == "answering, 1 of 6 answers in")
        }
    }

    @Test(
        "one student's answer sheet: every question with the answer escaped, a points box where the teacher gives them, feedback the student gets with the results, extra time; bad values change nothing",
        arguments: Backend.all
    )
    func answerSheet(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            #expect(try await Self.handIn(api, student: "student", attempt: "sheet-1").status == .created)
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let roster = try await browser.send(.get, "/desk/a/quiz-1")
            #expect(roster.text.contains("<a href=\"/desk/a/quiz-1/student?user=student\">student</a>"), "\(roster.text)")
            var page = try await browser.send(.get, "/desk/a/quiz-1/student?user=student")
            #expect(page.status == .ok && page.text.contains("Question q1") && page.text.contains("Question q6"), "\(page.text)")
            #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !page.text.contains("<script>alert"))
            // q1 is scored automatically (no box); the essay q6 waits for the teacher (a box, empty).
            #expect(!page.text.contains("name=\"points:q1\"") && page.text.contains("name=\"points:q6\""))
            #expect(page.text.contains("(waiting for you)"))
            let csrf = try #require(DeskBrowser.hidden("csrf", in: page))

            // Out of range: nothing saved, and said in words.
            let tooMany = try await browser.send(
                .post,
                "/desk/a/quiz-1/student",
                form: ["csrf": csrf, "user": "student", "attempt": "sheet-1", "points:q6": "99", "feedback:q6": "Nice."]
            )
            #expect(tooMany.status == .badRequest && tooMany.text.contains("Nothing was saved"), "\(tooMany.text)")
            #expect(try await harness.storage.resultInputs(user: "student", assessmentID: "quiz-1").first?.feedback.isEmpty == true)

            let saved = try await browser.send(
                .post,
                "/desk/a/quiz-1/student",
                form: [
                    "csrf": csrf, "user": "student", "attempt": "sheet-1", "points:q6": "0,5", "feedback:q6": "  Clear, but say why.  ",
                    "feedback:q1": "Right.",
                ]
            )
            #expect(saved.status == .seeOther, "\(saved.text)")
            page = try await browser.send(.get, saved.headers[.location] ?? "")
            #expect(page.text.contains("value=\"0.50\""), "\(page.text)")
            #expect(page.text.contains(">Clear, but say why.</textarea>") && page.text.contains("(graded by you)"))

            // The student reads the points and the feedback with the results, once released.
            _ = try await TeacherDesk(storage: harness.storage, now: { Date() }).release("quiz-1")
            let results = try await api.send(.get, APIPath.results, token: try await api.token("student")).decode(ResultsResponse.self).results
            let q6 = try #require(results.first?.questions.first { $0.questionId == "q6" })
            #expect(q6.points == 0.5 && q6.feedback == "Clear, but say why.", "\(q6)")
            #expect(results.first?.questions.first { $0.questionId == "q1" }?.feedback == "Right.")
            // Emptied, the feedback is gone.
            _ = try await browser.send(
                .post,
                "/desk/a/quiz-1/student",
                form: ["csrf": csrf, "user": "student", "attempt": "sheet-1", "feedback:q1": ""]
            )
            #expect(try await harness.storage.resultInputs(user: "student", assessmentID: "quiz-1").first?.feedback["q1"] == nil)

            // Extra time: saved for this student and assessment; out of range or not a student is refused.
            #expect(
                try await browser.send(.post, "/desk/a/quiz-1/extra-time", form: ["csrf": csrf, "user": "student", "minutes": "15"]).status
                    == .seeOther
            )
            #expect(try await harness.storage.extraMinutes(assessmentID: "quiz-1", user: "student") == 15)
            let badExtra = try await browser.send(.post, "/desk/a/quiz-1/extra-time", form: ["csrf": csrf, "user": "student", "minutes": "-3"])
            #expect(badExtra.status == .badRequest && badExtra.text.contains("from 0 to 1440"))
            let notStudent = try await browser.send(.post, "/desk/a/quiz-1/extra-time", form: ["csrf": csrf, "user": "teacher", "minutes": "5"])
            #expect(notStudent.status == .badRequest && notStudent.text.contains("There is no student teacher"))
            // Without the form's token nothing is saved.
            let forged = try await browser.send(.post, "/desk/a/quiz-1/extra-time", form: ["user": "student", "minutes": "60"])
            let unchanged = try await harness.storage.extraMinutes(assessmentID: "quiz-1", user: "student")
            #expect(forged.status != .seeOther && unchanged == 15)
            // A student with nothing handed in: the page says so, and still offers extra time.
            page = try await browser.send(.get, "/desk/a/quiz-1/student?user=student2")
            #expect(page.text.contains("student2 has not handed in") && page.text.contains("name=\"minutes\""))
            #expect(try await browser.send(.get, "/desk/a/quiz-1/student?user=nobody").status == .badRequest)
        }
    }

    @Test(
        "a class list of 30 becomes 30 accounts: passwords from the file or made and shown once, groups kept, existing names left alone, a bad line adds nobody",
        arguments: Backend.all
    )
    func classList(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let form = try await browser.send(.get, "/desk/students")
            let csrf = try #require(DeskBrowser.hidden("csrf", in: form))
            #expect(form.text.contains("<label for=\"list\">"))
            // A bad line (a password too short on line 3): nobody is added.
            let bad = try await browser.send(.post, "/desk/students", form: ["csrf": csrf, "list": "name,group,password\nana,7b\nbo,7b,short\n"])
            #expect(bad.status == .badRequest && bad.text.contains("Line 3") && bad.text.contains("Nothing was added"), "\(bad.text)")
            #expect(try await harness.storage.user(named: "ana") == nil)

            var lines = ["name,group,password"]
            for number in 1...27 { lines.append("pupil\(number),\(number % 2 == 0 ? "7a" : "7b"),") }
            lines.append("\"Doe, Jane\",7a,jane-secret-1")
            lines.append("Zoë 東,,")
            lines.append("student,7a,")  // exists already: left alone
            lines.append("\"O\"\"Neil\",7b,")
            let reply = try await browser.send(.post, "/desk/students", form: ["csrf": csrf, "list": lines.joined(separator: "\r\n")])
            #expect(reply.status == .ok && reply.text.contains("Added 30 students. 1 already had an account"), "\(reply.text)")
            #expect(reply.text.contains("only time they are shown") && reply.text.contains("from your list"))
            for name in (1...27).map({ "pupil\($0)" }) + ["Doe, Jane", "Zoë 東", "O\"Neil"] {
                let user = try await harness.storage.user(named: name)
                #expect(user?.role == .student, "\(name)")
            }
            let pupil2 = try await harness.storage.user(named: "pupil2")
            let zoe = try await harness.storage.user(named: "Zoë 東")
            #expect(pupil2?.group == "7a" && zoe != nil && zoe?.group == nil)
            // A generated password, read off the page, signs the student in; the file's password too.
            let row = try #require(reply.text.range(of: "<td class=\"who\" data-label=\"Student\">pupil5</td>"))
            let rest = reply.text[row.upperBound...]
            let code = try #require(
                rest.range(of: "<code>").flatMap { start in rest.range(of: "</code>").map { rest[start.upperBound..<$0.lowerBound] } }
            )
            #expect(code.count == 14 && code.filter { $0 == "-" }.count == 2, "\(code)")
            #expect(try await api.send(.post, APIPath.token, json: TokenRequest(user: "pupil5", password: String(code))).status == .ok)
            #expect(try await api.send(.post, APIPath.token, json: TokenRequest(user: "Doe, Jane", password: "jane-secret-1")).status == .ok)
            // The existing student's password is unchanged.
            #expect(try await api.send(.post, APIPath.token, json: TokenRequest(user: "student", password: "student-pw")).status == .ok)
            // A student cannot add anyone.
            var pupil = DeskBrowser(api: api)
            let denied = try await pupil.signIn("student")
            #expect(denied.status == .forbidden || denied.status == .seeOther)
            #expect(try await pupil.send(.get, "/desk/students").status != .ok)
        }
    }

    @Test(
        "publishing a file on the desk: the import report first (what is left out and why), then publish; a file that is not a revision replaces only when asked; another teacher's id is taken; bad files change nothing",
        arguments: Backend.all
    )
    func publishFile(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.storage.createUser(
            PasswordHasher.makeRecord(name: "teacher2", role: .teacher, password: SecretBytes(Array("teacher2-pw".utf8)), iterations: 1_000),
            now: Date()
        )
        try await harness.test { api in
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let page = try await browser.send(.get, "/desk/publish")
            #expect(page.status == .ok && page.text.contains("<input type=\"file\" id=\"file\"") && page.text.contains("src=\"/desk/upload.js\""))
            #expect(page.text.contains("<noscript>") && page.text.contains("vault-server publish FILE --owner teacher"))
            let csrf = try #require(page.text.range(of: "data-csrf=\"").map { String(page.text[$0.upperBound...].prefix { $0 != "\"" }) })
            let script = try await browser.send(.get, "/desk/upload.js")
            #expect(script.status == .ok && script.text.contains("X-Desk-CSRF"))
            let gift = Data(
                """
                ::Capital::What is the capital of France? {=Paris ~London ~Rome}

                ::Two::2 + 2 = {#4}

                ::Note::Only a description, no answers.
                """.utf8
            )
            func post(_ path: String, _ data: Data, token: String? = nil, type: String = "application/octet-stream") async throws -> APIClient.Reply {
                var headers: HTTPFields = [.contentType: type]
                if let token = token ?? Optional(csrf), !token.isEmpty { headers[HTTPField.Name("X-Desk-CSRF")!] = token }
                return try await browser.send(.post, path, body: data, headers: headers)
            }
            // Without the page's token, or sent some other way: refused, nothing read.
            #expect(try await post("/desk/publish/check?name=capitals.gift", gift, token: "").status == .forbidden)
            #expect(try await post("/desk/publish/check?name=capitals.gift", gift, type: "text/plain").status == .unsupportedMediaType)
            // The report: what would be published, and what is left out and why; nothing changes yet.
            let report = try await post("/desk/publish/check?name=capitals.gift", gift)
            #expect(report.status == .ok, "\(report.text)")
            #expect(report.text.contains("Would publish <strong>capitals</strong> as <code>capitals</code>: 2 questions, 2 points"), "\(report.text)")
            #expect(report.text.contains("Left out (1)") && report.text.contains("Note") && report.text.contains("id=\"publish-now\""))
            #expect(try await harness.storage.served(id: "capitals") == nil)
            // Publish: the assessment's page is named next, and it says so.
            let published = try await post("/desk/publish/commit?name=capitals.gift", gift)
            #expect(published.status == .ok && published.headers[HTTPField.Name("X-Desk-Next")!] == "/desk/a/capitals?notice=published")
            #expect(try await harness.storage.served(id: "capitals")?.version == 1)
            #expect(try await browser.send(.get, "/desk/a/capitals?notice=published").text.contains("Published: students get this version"))
            // Another file under the same id, not a revision of it: shown, refused unless "Replace it" is ticked.
            let other = Data("::Sky::The sky is blue. {T}\n".utf8)
            let warned = try await post("/desk/publish/check?name=other.gift&id=capitals&title=Sky", other)
            #expect(warned.text.contains("this file is not a revision of it") && warned.text.contains("id=\"replace\""), "\(warned.text)")
            let refused = try await post("/desk/publish/commit?name=other.gift&id=capitals&title=Sky", other)
            #expect(refused.status == .conflict && refused.text.contains("Nothing was published"))
            #expect(try await harness.storage.served(id: "capitals")?.version == 1)
            let replaced = try await post("/desk/publish/commit?name=other.gift&id=capitals&title=Sky&replace=1", other)
            #expect(replaced.status == .ok && replaced.headers[HTTPField.Name("X-Desk-Next")!] == "/desk/a/capitals?notice=published")
            #expect(try await harness.storage.served(id: "capitals")?.version == 2)
            // Files that cannot be read: a sentence, nothing published.
            let garbage = try await post("/desk/publish/check?name=junk.bin&id=junk", Data([0, 0xFF, 0xFE, 0x41]))
            #expect(garbage.status == .unprocessableContent && garbage.text.contains("role=\"alert\">junk.bin: "), "\(garbage.text)")
            let huge = try await post("/desk/publish/check?name=huge.gift&id=huge", Data(repeating: 0x41, count: 13 * 1024 * 1024))
            #expect(huge.status == .contentTooLarge && huge.text.contains("larger than any assessment may be"))
            #expect(try await harness.storage.served(id: "junk") == nil)
            #expect(try await harness.storage.served(id: "huge") == nil)

            // Another teacher: the id is taken, and nothing of the assessment is shown.
            var colleague = DeskBrowser(api: api)
            _ = try await colleague.signIn("teacher2")
            let theirs = try await colleague.send(.get, "/desk/publish")
            let theirToken = try #require(theirs.text.range(of: "data-csrf=\"").map { String(theirs.text[$0.upperBound...].prefix { $0 != "\"" }) })
            let taken = try await colleague.send(
                .post,
                "/desk/publish/commit?name=capitals.gift",
                body: gift,
                headers: [.contentType: "application/octet-stream", HTTPField.Name("X-Desk-CSRF")!: theirToken]
            )
            #expect(taken.status == .conflict && taken.text.contains("taken by another teacher&#39;s assessment"), "\(taken.status) \(taken.text)")
            #expect(!taken.text.contains("Sky"))
            #expect(try await harness.storage.served(id: "capitals")?.version == 2)
            // A student has no publish page.
            var pupil = DeskBrowser(api: api)
            _ = try await pupil.signIn("student")
            #expect(try await pupil.send(.get, "/desk/publish").status != .ok)
        }
    }

    @Test(
        "closing hands in what is open (issue 53): 4 students answered and synced, never handed in: closing hands them in with their answers, marked, gradable; answers after closing kept, not counted; the vault's own hand-in gets that receipt; Reopen gives back those nobody graded",
        arguments: Backend.all
    )
    func closingHandsInOpenAttempts(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        let names = ["c1", "c2", "c3", "c4"]
        for name in names {
            try await harness.storage.createUser(
                try PasswordHasher.makeRecord(name: name, role: .student, password: SecretBytes(Array("\(name)-pw".utf8)), iterations: 1_000),
                now: Date()
            )
        }
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            var tokens: [String: String] = [:]
            var sent: [String: [ResponseItem]] = [:]
            var served: Assessment?
            for (index, name) in names.enumerated() {
                let token = try await api.token(name)
                tokens[name] = token
                let document = try await api.served("quiz-1", token: token)
                served = document
                // Each answers 1 to 4 questions and syncs; nobody hands in.
                let items = ["q1", "q3", "q6", "q5"].prefix(index + 1).map { question in
                    Fixtures.item(
                        document,
                        question: question,
                        answer: question == "q1" ? .string("b") : question == "q3" ? .bool(true) : .string("my answer"),
                        attempt: "open-\(name)"
                    )
                }
                sent[name] = Array(items)
                let results = try await api.batch(Array(items), token: token)
                #expect(results.allSatisfy { $0.status == .accepted }, "\(results)")
            }
            // student handed in already: closing leaves their hand-in as it is.
            #expect(try await Self.handIn(api, student: "student", attempt: "done-1").status == .created)

            let desk = TeacherDesk(storage: harness.storage, now: { Date() })
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            // The confirmation says how many closing hands in.
            let asked = try await browser.send(.get, "/desk/a/quiz-1/close")
            #expect(asked.text.contains("4 attempts have answers on the server and are not handed in"), "\(asked.text)")
            let closing = try #require(DeskBrowser.hidden("csrf", in: asked))
            #expect(try await browser.send(.post, "/desk/a/quiz-1/close", form: ["csrf": closing, "confirm": "yes"]).status == .seeOther)

            var roster = try await desk.roster("quiz-1")
            for name in names {
                let row = try #require(roster.students.first { $0.user == name })
                #expect(row.state == .handedIn && row.flags.contains(.handedInAtClosing) && row.via == .closing, "\(row)")
                #expect(!row.flags.contains(.timeMissing) && !row.flags.contains(.afterClosing), "\(row.flags)")
            }
            #expect(roster.students.first { $0.user == "student" }?.flags.contains(.handedInAtClosing) == false)
            #expect(try await desk.close("quiz-1").handedIn == 0, "closing again hands in nothing twice")
            let page = try await browser.send(.get, "/desk/a/quiz-1")
            #expect(page.text.contains("handed in at closing"))
            // Gradable: c3's essay is in the grading queue.
            let queue = try await desk.queue("quiz-1", question: "q6")
            #expect(Set(queue.entries.filter { $0.answer != nil }.map(\.user)) == ["student", "c3", "c4"], "\(queue.entries.map(\.user))")

            // c4 answers again after closing (offline, on its vault): kept for the teacher, not counted.
            let document = try #require(served)
            let token4 = try #require(tokens["c4"])
            let late = Fixtures.item(document, question: "q1", answer: .string("a"), attempt: "open-c4", at: Timestamp.string(Date()))
            let lateResult = try await api.batch([late], token: token4)
            #expect(lateResult.first?.status == .superseded, "\(lateResult)")
            // c4's vault hands in its own set (with the later answer): it gets the closing's receipt, which says so.
            var mine = try #require(sent["c4"]).filter { $0.questionId != "q1" }
            mine.append(late)
            func handIn() async throws -> APIClient.Reply {
                let request = SubmissionRequest(
                    attemptId: "open-c4",
                    assessmentId: "quiz-1",
                    assessmentVersion: document.version ?? 1,
                    submittedAt: Timestamp.string(Date()),
                    responseIds: mine.map(\.id)
                ).listing(mine)
                return try await api.send(.post, APIPath.submissions, token: token4, json: request)
            }
            let reply = try await handIn()
            #expect(reply.status == .ok || reply.status == .created, "\(reply.status) \(reply.text)")
            let receipt = try reply.decode(SubmissionReceipt.self)
            #expect(receipt.notice?.contains("handed in for you") == true)
            let signed = try #require(receipt.signed)
            let statement = try JSONDecoder().decode(ReceiptStatement.self, from: Data(signed.statement.utf8))
            #expect(statement.handedInAtClosing == true && statement.responses.count == 4)
            let heldAtClosing = try #require(sent["c4"]?.first?.id)
            #expect(statement.responses.contains { $0.responseId == heldAtClosing }, "the answer held at closing counts")

            // c1 is graded; Reopen gives back c2, c3, c4 (nobody graded them), not c1 and not student's own hand-in.
            try await desk.grade("quiz-1", question: "q1", points: [try #require(roster.students.first { $0.user == "c1" }?.attemptId): 0.5])
            let reopenForm = try #require(DeskBrowser.hidden("csrf", in: page))
            #expect(try await browser.send(.post, "/desk/a/quiz-1/reopen", form: ["csrf": reopenForm]).status == .seeOther)
            roster = try await desk.roster("quiz-1")
            let states = Dictionary(uniqueKeysWithValues: roster.students.map { ($0.user, $0.state) })
            #expect(states["c1"] == .handedIn && states["c2"] == .answering && states["c3"] == .answering && states["c4"] == .answering, "\(states)")
            #expect(states["student"] == .handedIn)
            // c4's answers count as they stand now: its latest q1 ("a", given after closing) is current again.
            let held = try await harness.storage.heldAttempts(user: "c4", assessmentID: "quiz-1")
            #expect(held.first?.state == .inProgress && held.first?.answers.count == 4)
            #expect(held.first?.answers.first { $0.questionId == "q1" }?.answer == .string("a"))
            // And c4 hands in again as any student would.
            #expect(try await handIn().status == .created)
            try await Self.expectKeptScores(harness.storage, "quiz-1")
        }
    }

    @Test(
        "a hand-in made before closing that arrives after the closing's (issue 67): all five answers count, on time, no Accept; the history says the closing's was replaced; a grade on an unchanged answer carries, one on a changed answer goes",
        arguments: Backend.all,
        [false, true]
    )
    func ownHandInBeforeClosingWins(backend: Backend, graded: Bool) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            let token = try await api.token("student")
            let served = try await api.served("quiz-1", token: token)
            let attempt = "own-before-closing"
            func item(_ question: String, _ answer: JSONValue) -> ResponseItem {
                Fixtures.item(served, question: question, answer: answer, attempt: attempt, at: Timestamp.string(Date()))
            }
            // Two answers synced; then offline, q1 changed and three more given, and the hand-in made.
            let synced = [item("q6", .string("Because forces balance.")), item("q1", .string("a"))]
            #expect(try await api.batch(synced, token: token).allSatisfy { $0.status == .accepted })
            let offline = [item("q1", .string("b")), item("q3", .bool(true)), item("q4", .number(3.14)), item("q5", .string("Ada"))]
            let handedIn = Timestamp.string(Date())
            try await Task.sleep(for: .milliseconds(20))

            // The teacher closes: the server hands the attempt in with the two answers it holds.
            let desk = TeacherDesk(storage: harness.storage, now: { Date() })
            #expect(try await desk.close("quiz-1").handedIn == 1)
            if graded {
                _ = try await desk.grade("quiz-1", question: "q6", points: [attempt: 0.75])
                _ = try await desk.grade("quiz-1", question: "q1", points: [attempt: 0.25])
            }
            // Back online: the answers arrive after closing, then the hand-in made before it.
            _ = try await api.batch(offline, token: token)
            let listed = [synced[0]] + offline
            let request = SubmissionRequest(
                attemptId: attempt,
                assessmentId: "quiz-1",
                assessmentVersion: served.version ?? 1,
                submittedAt: handedIn,
                responseIds: listed.map(\.id)
            ).listing(listed)
            let reply = try await api.send(.post, APIPath.submissions, token: token, json: request)
            #expect(reply.status == .created, "\(reply.status) \(reply.text)")
            let receipt = try reply.decode(SubmissionReceipt.self)
            let statement = try JSONDecoder().decode(ReceiptStatement.self, from: Data(try #require(receipt.signed).statement.utf8))
            #expect(statement.handedInAtClosing != true && Set(statement.responses.map(\.responseId)) == Set(listed.map(\.id)))

            let row = try #require(try await desk.roster("quiz-1").students.first { $0.user == "student" })
            #expect(row.state == .handedIn && row.via == .sync, "\(row)")
            #expect(!row.flags.contains(.afterClosing) && !row.flags.contains(.handedInAtClosing), "no Accept needed: \(row.flags)")
            let input = try #require(try await harness.storage.resultInputs(user: "student", assessmentID: "quiz-1").first)
            #expect(input.answers.count == 5 && input.answers["q1"] == .string("b"), "\(input.answers)")
            // q6 did not change: its grade carries; q1 did: the teacher's 0.25 for "a" goes, and "b" is scored by the key.
            #expect(input.grades == (graded ? ["q6": 0.75] : [:]), "\(input.grades)")
            #expect(
                try await desk.history("quiz-1").contains { $0.kind == .closingReplaced && $0.subject == "student" },
                "the teacher's history says the closing's hand-in was replaced"
            )
            try await Self.expectKeptScores(harness.storage, "quiz-1")
            // The same hand-in again is a repeat with the same receipt, and replaces nothing.
            let again = try await api.send(.post, APIPath.submissions, token: token, json: request)
            #expect(again.status == .ok)
            #expect(try again.decode(SubmissionReceipt.self).receiptId == receipt.receiptId)
        }
    }

    @Test(
        "exam day accounts on the desk (issue 53): a teacher makes their student a new password (shown once; the old refused, sessions out), turns an account off and on; never a teacher's, nor a student not theirs (issue 68); throttled",
        arguments: Backend.all
    )
    func studentAccounts(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let old = try await api.token("student")
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let page = try await browser.send(.get, "/desk/students")
            let csrf = try #require(DeskBrowser.hidden("csrf", in: page))
            #expect(page.text.contains("Make a new password"))

            // Only the teacher's own students (issue 68): one who took none of their assessments is refused.
            let early = try await browser.send(.post, "/desk/students/account", form: ["csrf": csrf, "name": "student", "action": "disable"])
            #expect(early.status == .forbidden && early.text.contains("has not taken any assessment of yours"), "\(early.text)")
            #expect(try await harness.storage.user(named: "student")?.disabled == false)
            // Students who download the teacher's quiz are theirs now, and so is a classmate in the same group.
            #expect(try await api.publish(Fixtures.quiz(), teacher: try await api.token("teacher")).status == .created)
            _ = try await api.served("quiz-1", token: old)
            _ = try await api.served("quiz-1", token: try await api.token("student2"))
            for (name, group) in [("kai", "7b"), ("lin", "7b"), ("mo", "8a")] {
                var record = try PasswordHasher.makeRecord(
                    name: name,
                    role: .student,
                    password: SecretBytes(Array("\(name)-pw".utf8)),
                    iterations: 1_000
                )
                record.group = group
                try await harness.storage.createUser(record, now: Date())
            }
            _ = try await api.served("quiz-1", token: try await api.token("kai"))
            #expect(try await harness.storage.teaches(teacher: "teacher", student: "lin"), "a classmate of one who took it")
            #expect(try await !harness.storage.teaches(teacher: "teacher", student: "mo"), "another group")
            #expect(try await !harness.storage.teaches(teacher: "teacher", student: "teacher"), "never a teacher")

            let made = try await browser.send(.post, "/desk/students/account", form: ["csrf": csrf, "name": "student", "action": "password"])
            #expect(made.status == .ok && made.text.contains("the only time it is shown"), "\(made.text)")
            let password = try #require(made.text.firstMatch(of: /New password: <code>([^<]+)<\/code>/).map { String($0.1) })
            #expect(try await api.send(.get, APIPath.assessments, token: old).status == .unauthorized, "signed out everywhere")
            let refusedOld = try await api.send(.post, APIPath.token, json: TokenRequest(user: "student", password: "student-pw"))
            #expect(refusedOld.status == .unauthorized)
            let renewed = try await api.send(.post, APIPath.token, json: TokenRequest(user: "student", password: password))
            #expect(renewed.status == .ok)
            let session = try renewed.decode(TokenResponse.self).token

            let off = try await browser.send(.post, "/desk/students/account", form: ["csrf": csrf, "name": "student", "action": "disable"])
            #expect(off.status == .ok && off.text.contains("turned off"))
            #expect(try await api.send(.get, APIPath.assessments, token: session).status == .unauthorized)
            let refused = try await api.send(.post, APIPath.token, json: TokenRequest(user: "student", password: password))
            #expect(refused.status == .forbidden && refused.errorCode == "account_disabled")
            let on = try await browser.send(.post, "/desk/students/account", form: ["csrf": csrf, "name": "student", "action": "enable"])
            #expect(on.status == .ok && on.text.contains("turned on again"))
            #expect(try await api.send(.post, APIPath.token, json: TokenRequest(user: "student", password: password)).status == .ok)

            // The student's device keys (issue 68): listed with how each came, revoked from the desk, sign-in by them refused.
            let laptop = DeviceKey()
            #expect(
                try await harness.storage.registerDeviceKey(user: "student", publicKey: laptop.publicKey, origin: .signIn, detail: nil, now: Date())
            )
            let listed = try await browser.send(.post, "/desk/students/account", form: ["csrf": csrf, "name": "student", "action": "keys"])
            let fingerprint = DeviceKey.fingerprint(publicKey: laptop.publicKey)
            #expect(
                listed.status == .ok && listed.text.contains(fingerprint) && listed.text.contains("signed in with the password")
                    && listed.text.contains("live"),
                "\(listed.text)"
            )
            // Asked first, listing what would end; asking changes nothing.
            let asked = try await browser.send(.post, "/desk/students/account", form: ["csrf": csrf, "name": "student", "action": "revoke-keys"])
            #expect(
                asked.status == .ok && asked.text.contains("Revoke every device key of student?") && asked.text.contains(fingerprint),
                "\(asked.text)"
            )
            #expect(try await harness.storage.deviceKeyRecords(user: "student").first?.revokedAt == nil)
            let ended = try await browser.send(
                .post,
                "/desk/students/account",
                form: ["csrf": csrf, "name": "student", "action": "revoke-keys", "confirm": "yes"]
            )
            #expect(ended.status == .ok && ended.text.contains("Revoked 1 device key of student"), "\(ended.text)")
            let record = try await harness.storage.deviceKeyRecords(user: "student").first
            #expect(record?.revokedAt != nil && record?.revokedBy == "teacher on the desk")
            let serverFingerprint = try await api.send(.get, APIPath.serverKey).decode(ServerKeyResponse.self).fingerprint
            let byKey = try await DeviceSignInTests.signed(api, user: "student", key: laptop, fingerprint: serverFingerprint)
            #expect(try await api.send(.post, APIPath.deviceToken, json: byKey).status == .unauthorized)
            // A new password that revokes the keys too, as the desk asks.
            let second = DeviceKey()
            #expect(
                try await harness.storage.registerDeviceKey(user: "student", publicKey: second.publicKey, origin: .signIn, detail: nil, now: Date())
            )
            let both = try await browser.send(
                .post,
                "/desk/students/account",
                form: ["csrf": csrf, "name": "student", "action": "password", "revoke_keys": "on"]
            )
            #expect(both.status == .ok && both.text.contains("device key is revoked too"), "\(both.text)")
            #expect(try await harness.storage.deviceKeys(user: "student").isEmpty)

            // A teacher's account, or nobody: nothing changes.
            let teacher = try await browser.send(.post, "/desk/students/account", form: ["csrf": csrf, "name": "teacher", "action": "disable"])
            #expect(teacher.status == .badRequest && teacher.text.contains("Only a student&#39;s account"), "\(teacher.text)")
            #expect(try await harness.storage.user(named: "teacher")?.disabled == false)
            // Throttled like sign-in: past the free actions in the window, the teacher waits.
            var last: APIClient.Reply?
            for _ in 0..<30 {
                last = try await browser.send(.post, "/desk/students/account", form: ["csrf": csrf, "name": "student2", "action": "enable"])
                if last?.status == .tooManyRequests { break }
            }
            #expect(last?.status == .tooManyRequests && last?.text.contains("Too many account changes") == true)
            #expect(try await harness.storage.user(named: "student")?.disabled == false)
        }
    }

    @Test(
        "regrading (issue 53): a corrected key republished as version 2; --dry-run lists exactly the students whose score changes (old, new) and changes nothing; applying changes those scores, never the teacher's points, with a history line; the attempts stay on version 1",
        arguments: Backend.all
    )
    func regrade(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.storage.createUser(
            try PasswordHasher.makeRecord(name: "c1", role: .student, password: SecretBytes(Array("c1-pw".utf8)), iterations: 1_000),
            now: Date()
        )
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            // student answers b (right by version 1's key), student2 and c1 answer a (wrong by it).
            for (name, choice) in [("student", "b"), ("student2", "a"), ("c1", "a")] {
                let token = try await api.token(name)
                let served = try await api.served("quiz-1", token: token)
                let items = [Fixtures.item(served, question: "q1", answer: .string(choice), attempt: "r-\(name)")]
                _ = try await api.batch(items, token: token)
                #expect(try await api.handIn(items, attempt: "r-\(name)", assessment: "quiz-1", token: token).status == .created)
            }
            let desk = TeacherDesk(storage: harness.storage, now: { Date() })
            // The teacher gave student2 half a point on q1 by hand: that stands whatever the key says.
            try await desk.grade("quiz-1", question: "q1", points: ["r-student2": 0.5])
            func scores() async throws -> [String: Double] { try await desk.scores("quiz-1") }
            let before = try await scores()
            #expect(before["student"] == 1 && before["student2"] == 0.5 && before["c1"] == 0, "\(before)")

            // Nothing to regrade while everyone is on the current version.
            #expect(try await desk.regrade("quiz-1", dryRun: true).changes.isEmpty)
            var corrected = Fixtures.quiz()
            corrected.questions[0] = Question(
                id: "q1",
                type: .singleChoice,
                prompt: "2x = 10. x = ?",
                choices: [Choice(id: "a", text: "2"), Choice(id: "b", text: "5")],
                answerKey: [.string("a")]
            )
            let published = try await api.publish(corrected, teacher: teacher)
            #expect(try published.decode(PublishResponse.self).version == 2)

            let dry = try await desk.regrade("quiz-1", dryRun: true)
            #expect(dry.currentVersion == 2 && dry.skipped.isEmpty)
            #expect(dry.changes.map(\.user) == ["c1", "student"], "exactly those whose score changes: \(dry.changes.map(\.user))")
            #expect(dry.changes.first { $0.user == "student" }.map { $0.old.score == 1 && $0.new.score == 0 } == true)
            #expect(dry.changes.first { $0.user == "c1" }.map { $0.old.score == 0 && $0.new.score == 1 } == true)
            #expect(dry.unchanged == ["r-student2"], "the teacher's points stand")
            #expect(try await scores() == before, "a dry run changes nothing")

            // The desk's page lists the same, then applies it as the signed-in teacher.
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let page = try await browser.send(.get, "/desk/a/quiz-1/regrade")
            #expect(
                page.text.contains("data-user=\"c1\"") && page.text.contains("data-user=\"student\"") && !page.text.contains("data-user=\"student2\"")
            )
            #expect(page.text.contains("2 students&#39; scores change") && page.text.contains("Regrade 2 scores"), "\(page.text)")
            #expect(try await scores() == before, "showing it changes nothing")
            let csrf = try #require(DeskBrowser.hidden("csrf", in: page))
            #expect(try await browser.send(.post, "/desk/a/quiz-1/regrade", form: ["csrf": csrf]).status == .seeOther)
            let after = try await scores()
            #expect(after["student"] == 0 && after["c1"] == 1 && after["student2"] == 0.5, "\(after)")
            try await Self.expectKeptScores(harness.storage, "quiz-1")
            // The attempts stay on version 1; a second regrade finds nothing to do.
            let inputs = try await harness.storage.resultInputs(user: nil, assessmentID: "quiz-1")
            #expect(inputs.allSatisfy { $0.record.assessmentVersion == 1 && $0.record.scoredVersion == 2 })
            #expect(try await desk.regrade("quiz-1", dryRun: true).changes.isEmpty)
            #expect(
                try await desk.history("quiz-1").contains { $0.kind == .regraded && $0.actor == "teacher" && $0.subject == "2 scores changed of 3" }
            )
            // The student's released results say the new score.
            try await desk.release("quiz-1")
            let token = try await api.token("c1")
            let results = try await api.send(.get, APIPath.results, token: token)
            #expect(results.status == .ok && results.text.contains("\"score\":1"), "\(results.text)")
        }
    }

    @Test("a closing set for later (close --at): the running server's sweeper hands in the open attempts when it comes", arguments: Backend.all)
    func closingLaterHandsIn(backend: Backend) async throws {
        var configured = try await ServerHarness(backend)
        configured.configuration.closingSweepInterval = .milliseconds(100)
        let harness = configured
        try await harness.test { api in
            let (_, token, served) = try await api.quizServed()
            _ = try await api.batch([Fixtures.item(served, question: "q1", answer: .string("b"), attempt: "later-1")], token: token)
            let desk = TeacherDesk(storage: harness.storage, now: { Date() })
            let closing = try await desk.close("quiz-1", at: Date().addingTimeInterval(1.5))
            #expect(closing.handedIn == 0)
            #expect(try await desk.roster("quiz-1").students.first { $0.user == "student" }?.state == .answering, "not before it closes")
            var row: Roster.Student?
            for _ in 0..<100 {
                row = try await desk.roster("quiz-1").students.first { $0.user == "student" }
                if row?.state == .handedIn { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(row?.state == .handedIn && row?.flags.contains(.handedInAtClosing) == true, "\(String(describing: row))")
            #expect(row?.submittedAt.flatMap(Timestamp.date).map { abs($0.timeIntervalSince(closing.at)) < 0.01 } == true, "dated at the closing")
        }
    }

    @Test(
        "closing with students offline: a new attempt after closing is refused, an offline attempt started before is kept and flagged, the student is told, the teacher accepts or zeroes it",
        arguments: Backend.all
    )
    func closing(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            // Both students downloaded before closing; the exam closes a minute ago.
            let studentToken = try await api.token("student")
            let lateToken = try await api.token("student2")
            let served = try await api.served("quiz-1", token: studentToken)
            _ = try await api.served("quiz-1", token: lateToken)
            let closedAt = Date().addingTimeInterval(-60)
            #expect(try await harness.storage.close(assessmentID: "quiz-1", at: closedAt))

            // student2 starts after closing: refused, in words.
            let after = Timestamp.string(Date())
            let refused = try await api.batch(
                [Fixtures.item(served, question: "q1", answer: .string("b"), attempt: "new-1", at: after)],
                token: lateToken
            )
            #expect(refused[0].status == .rejected && refused[0].message?.contains("This exam closed on") == true)
            #expect(refused[0].message?.contains("UTC") == true)

            // student answered offline before closing and hands in after it, not knowing: stored, flagged, told. (Had
            // they handed in before closing, it would be on time whenever it arrived: ownHandInBeforeClosingWins.)
            let reply = try await Self.handIn(
                api,
                student: "student",
                attempt: "offline-1",
                startedAt: "2026-11-20T09:55:00.000Z",
                submittedAt: Timestamp.string(Date())
            )
            #expect(reply.status == .created)
            let receipt = try reply.decode(SubmissionReceipt.self)
            #expect(receipt.notice?.contains("your teacher decides") == true)
            // A submission that says it started after closing is refused with its own code.
            let items = [Fixtures.item(served, question: "q3", answer: .bool(true), attempt: "offline-2")]
            _ = try await api.batch(items, token: lateToken)
            let startedLate = SubmissionRequest(
                attemptId: "offline-2",
                assessmentId: "quiz-1",
                assessmentVersion: 1,
                submittedAt: after,
                responseIds: items.map(\.id),
                startedAt: after
            ).listing(items)
            let closedReply = try await api.send(.post, APIPath.submissions, token: lateToken, json: startedLate)
            #expect(closedReply.status == .unprocessableContent && closedReply.errorCode == "assessment_closed")

            // Both refusals are on the teacher's roster (the latest: the refused hand-in), not only in student2's
            // dead letters; the desk counts and filters them.
            let desk = TeacherDesk(storage: harness.storage, now: { Date() })
            var roster = try await desk.roster("quiz-1")
            let refusedRow = try #require(roster.students.first { $0.user == "student2" })
            #expect(refusedRow.state == .refused && refusedRow.refusal == .afterClosing && refusedRow.refusedAt != nil, "\(refusedRow)")
            #expect(refusedRow.stateText == "refused: started after closing" && refusedRow.lastSeenAt == refusedRow.refusedAt)
            var refusedPage = DeskBrowser(api: api)
            _ = try await refusedPage.signIn("teacher")
            let shown = try await refusedPage.send(.get, "/desk/a/quiz-1?show=refused")
            #expect(shown.text.contains("Refused (1)") && shown.text.contains("refused: started after closing"), "\(shown.text)")
            #expect(shown.text.contains("data-user=\"student2\"") && !shown.text.contains("data-user=\"student\""))
            // Reopened, student2 hands in: handed in, the refusal is history.
            #expect(try await harness.storage.apply(.reopen, assessmentID: "quiz-1", by: "teacher", at: Date()))
            #expect(try await Self.handIn(api, student: "student2", attempt: "reopened-1").status == .created)
            #expect(try await desk.roster("quiz-1").students.first { $0.user == "student2" }?.state == .handedIn)
            #expect(try await harness.storage.close(assessmentID: "quiz-1", at: closedAt))
            roster = try await desk.roster("quiz-1")
            var row = try #require(roster.students.first { $0.user == "student" })
            #expect(roster.closed && row.flags.contains(.afterClosing) && row.lateDecision == nil && row.via == .sync)
            var lines: [String] = []
            try await desk.export("quiz-1", format: .moodle) { lines.append($0) }
            #expect(lines.contains("\"student\",\"\",\r\n"), "undecided: no score in the gradebook yet")

            // The desk's own form: Accept / Give 0 beside the flag, posted with the session's token.
            var browser = DeskBrowser(api: api)
            _ = try await browser.signIn("teacher")
            let page = try await browser.send(.get, "/desk/a/quiz-1")
            #expect(page.text.contains("arrived after closing") && page.text.contains("value=\"zeroed\""))
            let csrf = try #require(DeskBrowser.hidden("csrf", in: page))
            // Give 0 asks first (issue 53): the button leads to a page that says what happens, nothing changed yet.
            let asked = try await browser.send(.post, "/desk/a/quiz-1/late", form: ["csrf": csrf, "attempt": "offline-1", "decision": "zeroed"])
            #expect(
                asked.status == .ok && asked.text.contains("Give student&#39;s hand-in 0 points?") && asked.text.contains("undo"),
                "\(asked.text)"
            )
            #expect(try await desk.roster("quiz-1").students.first { $0.user == "student" }?.lateDecision == nil, "asking changes nothing")
            let zeroed = try await browser.send(
                .post,
                "/desk/a/quiz-1/late",
                form: ["csrf": csrf, "attempt": "offline-1", "decision": "zeroed", "confirm": "yes"]
            )
            #expect(zeroed.status == .seeOther)
            let decided = try await browser.send(.get, "/desk/a/quiz-1")
            #expect(decided.text.contains("(given 0)") && decided.text.contains("value=\"undecided\""))
            #expect(decided.text.contains("Late hand-in of student given 0 by teacher"), "the history names who and whom")
            roster = try await desk.roster("quiz-1")
            row = try #require(roster.students.first { $0.user == "student" })
            #expect(row.lateDecision == .zeroed && row.score == 0)
            // The page's kept score says the same: zeroed when read, nothing stored changed by the decision.
            let zeroedPage = try await desk.rosterPage("quiz-1", group: nil, page: 0, including: { $0.user == "student" })
            #expect(zeroedPage.rows.first?.score == 0 && zeroedPage.rows.first?.pending == 0)
            try await Self.expectKeptScores(harness.storage, "quiz-1")
            lines = []
            try await desk.export("quiz-1", format: .moodle) { lines.append($0) }
            #expect(lines.contains("\"student\",\"\",0\r\n"))
            // Undo: undecided again, then accepted.
            let undone = try await browser.send(.post, "/desk/a/quiz-1/late", form: ["csrf": csrf, "attempt": "offline-1", "decision": "undecided"])
            #expect(undone.status == .seeOther)
            #expect(try await desk.roster("quiz-1").students.first { $0.user == "student" }?.lateDecision == nil)
            #expect(try await browser.send(.get, "/desk/a/quiz-1").text.contains("Decision on the late hand-in of student undone by teacher"))
            try await desk.decideLate("quiz-1", attempt: "offline-1", decision: .accepted)
            #expect(try await desk.roster("quiz-1").students.first { $0.user == "student" }?.score == 1)
            await #expect(throws: TeacherDesk.Problem.self) { try await desk.decideLate("quiz-1", attempt: "nope", decision: .accepted) }
        }
    }

    @Test(
        "a district's roster and files read the class without its answers and score only what they show: the same page, the same files, whatever the chunk",
        arguments: Backend.all
    )
    func readsOnlyWhatItShows(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        for number in 3...8 {
            try await harness.storage.createUser(
                PasswordHasher.makeRecord(
                    name: "student\(number)",
                    role: .student,
                    password: SecretBytes(Array("student\(number)-pw".utf8)),
                    iterations: 1_000
                ),
                now: Date()
            )
        }
        try await harness.test { api in
            let teacher = try await api.token("teacher")
            #expect(try await api.publish(Fixtures.quiz(), teacher: teacher).status == .created)
            for (index, name) in (["student", "student2"] + (3...7).map { "student\($0)" }).enumerated() {
                #expect(try await Self.handIn(api, student: name, attempt: "class-\(index)").status == .created)
                if index % 2 == 0 {
                    #expect(try await harness.storage.grade(attemptID: "class-\(index)", questionID: "q6", points: Double(index % 3)))
                }
            }
            // Someone without a student account hands in too: the roster of everyone lists them, and so does every chunk.
            #expect(try await Self.handIn(api, student: "teacher", attempt: "class-teacher").status == .created)
            try await Self.expectKeptScores(harness.storage, "quiz-1")
            if backend == .sqlite {
                // Two hand-ins as a server before kept scores left them: the page scores those from their answers.
                let database = try Database(path: harness.directory.file("data") + "/server.db", encryption: .plaintext)
                try database.execute(
                    "UPDATE submissions SET score = NULL, max_score = NULL, pending = NULL WHERE attempt_id IN ('class-0', 'class-3')"
                )
            }
            let desk = TeacherDesk(storage: harness.storage, now: { Date() })
            let full = try #require(try await harness.storage.rosterFacts(assessmentID: "quiz-1", group: nil))
            let everything = RosterPlan.roster(full, group: nil, now: Date())
            // The page: three rows a page, scored from their own answers, equal to scoring with every answer read.
            for page in 0..<3 {
                let shown = try await desk.rosterPage("quiz-1", group: nil, page: page, pageSize: 3, including: { _ in true })
                let expected = Array(everything.students.dropFirst(page * 3).prefix(3))
                #expect(shown.rows == expected, "page \(page)")
                #expect(shown.rows.contains { $0.score != nil } || expected.allSatisfy { $0.score == nil })
            }
            // The files: the same lines read in chunks of 2 as with every answer at once.
            for format in GradebookCSV.Format.allCases {
                var whole: [String] = []
                try await GradebookCSV.write(full, roster: everything, format: format) { whole.append($0) }
                var chunked = desk
                chunked.exportChunk = 2
                var lines: [String] = []
                try await chunked.export("quiz-1", format: format) { lines.append($0) }
                #expect(lines == whole, "\(format)")
                #expect(lines.count == everything.students.count + 1)
            }
        }
    }
}

extension DeskTests {
    /// Every hand-in of the assessment keeps the score its answers and grades give now (what the roster page shows
    /// without reading answers), and has one.
    static func expectKeptScores(_ storage: any ServerStorage, _ assessment: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let facts = try #require(try await storage.rosterFacts(assessmentID: assessment, group: nil), sourceLocation: sourceLocation)
        #expect(!facts.results.isEmpty, sourceLocation: sourceLocation)
        for input in facts.results {
            let computed = Scoring.totals(for: input.record, document: input.document, answers: input.answers, grades: input.grades)
            let kept = input.record.totals?.for(input.record)
            #expect(
                kept == Scoring.Totals(score: computed.score, maxScore: computed.maxScore, pending: computed.pending),
                "\(input.record.attemptID)",
                sourceLocation: sourceLocation
            )
        }
    }
}

/// The form token a session's cookie value yields (the test derives it as the server does, to show that a valid
/// token does not help a student).
func deskCSRF(_ token: String) -> String { PasswordHasher.tokenHash("desk-csrf\u{0}" + token) }

struct StudentListTests {
    @Test("a class list: RFC 4180 quoting, a header skipped, blank lines ignored, every bad line named")
    func reading() throws {
        let list = try StudentList(csv: "name,group,password\r\n\"a, b\",\"7\"\"b\",longenough\n\nc\n")
        #expect(list.entries == [.init(name: "a, b", group: "7\"b", password: "longenough"), .init(name: "c", group: nil, password: nil)])
        #expect(throws: StudentList.Problem.empty) { try StudentList(csv: "name,group\n\n") }
        #expect(throws: StudentList.Problem.badLine(2, "c is in the list twice.")) { try StudentList(csv: "c\nc") }
        #expect(throws: StudentList.Problem.self) { try StudentList(csv: "a,b,c,d") }
        #expect(throws: StudentList.Problem.self) { try StudentList(csv: "bad\u{1B}name") }
        #expect(throws: StudentList.Problem.tooMany(max: StudentList.maxStudents)) {
            try StudentList(csv: (0...StudentList.maxStudents).map { "s\($0)" }.joined(separator: "\n"))
        }
        let passwords = try (0..<200).map { _ in try StudentList.newPassword() }
        #expect(Set(passwords).count == 200 && passwords.allSatisfy { $0.count == 14 && !$0.contains("0") && !$0.contains("l") })
    }
}

struct GradebookCSVTests {
    @Test("CSV cells: numbers as numbers (0 as 0), text quoted with quotes doubled, formula injection guarded, names in any script")
    func cells() {
        #expect(GradebookCSV.line([.number(0), .number(2.5), .number(3), .number(1.0 / 3), .empty]) == "0,2.5,3,0.33,\r\n")
        #expect(
            GradebookCSV.line([.text("=HYPERLINK(\"x\")"), .text("+1"), .text("-2"), .text("@SUM(A1)"), .text("\tx")])
                == "\"'=HYPERLINK(\"\"x\"\")\",\"'+1\",\"'-2\",\"'@SUM(A1)\",\"'\tx\"\r\n"
        )
        #expect(GradebookCSV.line([.text("Zoë 東 محمد"), .text("a,b\nc")]) == "\"Zoë 東 محمد\",\"a,b\nc\"\r\n")
    }
}

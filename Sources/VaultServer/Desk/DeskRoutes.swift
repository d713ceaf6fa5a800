import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Mustache
import NIOCore
import VaultAPI
import VaultCore
import VaultModel
import VaultRules

/// `/desk`: the teacher's pages. Sign in and out, the assessments, the roster of one (live), grading by question,
/// release, close, late decisions, the start code and the gradebook files. Everything a page does goes through
/// `TeacherDesk`, the same as the command line.
struct DeskRoutes<Storage: ServerStorage, C: Clock>: Sendable where C.Duration == Duration {
    let storage: Storage
    let configuration: ServerConfiguration
    /// The API's sign-in: the same throttle and password hashing (the desk is not a way around either).
    let signIn: SignIn<Storage, C>
    let pages: DeskPages
    /// The server page's record (the same one `vault-server status` reads).
    let activity: ServerActivity
    var hashing: PasswordHashingPool { signIn.hashing }
    /// Seconds between the roster's refreshes.
    static var refreshSeconds: Int { 10 }
    static var maxFormBytes: Int { 1024 * 1024 }

    var desk: TeacherDesk { TeacherDesk(storage: storage, now: configuration.now) }

    func register(on router: Router<VaultRequestContext>) {
        let open = router.group("desk").add(middleware: pages)
        open.get("live.js") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/javascript; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: DeskTemplates.live))
            )
        }
        open.get("desk.css") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/css; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: DeskTemplates.css)))
        }
        open.get("login") { request, _ in try loginPage(request, problem: nil, status: .ok) }
        open.post("login") { request, context in try await signIn(request, context: context) }

        let signedIn = router.group("desk").add(middleware: pages).add(middleware: DeskAuthenticator(storage: storage, now: configuration.now))
        signedIn.get { _, context in try await assessmentsPage(context) }
        signedIn.get("students") { _, context in
            try notOnAClassroom()
            return pages.html(
                pages.render(
                    "students",
                    DeskView.Students(title: "Add students", user: context.user, csrf: csrf(context), max: StudentList.maxStudents)
                )
            )
        }
        signedIn.post("students") { request, context in
            try notOnAClassroom()
            return try await addStudents(request, context: context)
        }
        // How the server is doing (issue 59): administrators only, the figures of `vault-server status`.
        signedIn.get("server") { _, context in
            guard context.role == .admin else {
                throw DeskError(.forbidden, heading: "Not for you", text: "Only an administrator can see the server's page.")
            }
            let status = activity.status(version: ProductVersion.current, store: await storage.storeFacts(), now: configuration.now())
            return pages.html(pages.render("server", DeskView.ServerPage(status, user: context.user, csrf: csrf(context))))
        }
        signedIn.post("students/account") { request, context in
            try notOnAClassroom()
            return try await studentAccount(request, context: context)
        }
        registerUpload(on: signedIn, open: open)
        signedIn.post("logout") { request, context in
            _ = try await form(request, context: context)
            if let hash = context.tokenHash { try await storage.revokeToken(hash: hash) }
            var response = Response.redirect(to: "/desk/login", type: .normal)
            response.setCookie(DeskSession.sessionCookie("", secure: DeskSession.isSecure(request, configuration: configuration), maxAge: 0))
            return response
        }
        // Every page of one assessment: only for its owner, its co-teachers and administrators; anyone else is told
        // it does not exist, exactly as for an id that does not.
        let assessment = signedIn.group("a/:id").add(middleware: DeskAssessmentAccess(storage: storage))
        assessment.get { request, context in try await rosterPage(request, context: context) }
        // Close and release ask first, on their own page, saying what will happen; both can be undone (reopen,
        // hide results), and every one of the four is recorded with who and when.
        assessment.get("release") { _, context in try await confirmPage(.release, context: context) }
        assessment.get("close") { _, context in try await confirmPage(.close(at: configuration.now()), context: context) }
        assessment.post("release") { request, context in try await changeState(.release, request, context: context) }
        assessment.post("close") { request, context in try await changeState(.close(at: configuration.now()), request, context: context) }
        assessment.post("reopen") { request, context in try await changeState(.reopen, request, context: context) }
        assessment.post("hide-results") { request, context in try await changeState(.hideResults, request, context: context) }
        // A late hand-in: Accept and Give 0 ask first, on their own page; Undo takes the decision back. Each is a
        // line of the page's history, naming the student.
        assessment.post("late") { request, context in
            let id = try context.parameters.require("id")
            let fields = try await form(request, context: context)
            let page = "/desk/a/\(Self.pathSegment(id))"
            guard let attempt = fields["attempt"], let choice = fields["decision"],
                choice == "undecided" || LateDecision(rawValue: choice) != nil
            else {
                throw DeskError(.badRequest, heading: "Not done", text: "Choose to accept the hand-in or give it 0.", back: page)
            }
            let decision = LateDecision(rawValue: choice)
            let record = try await storage.resultInputs(user: nil, assessmentID: id, attemptIDs: [attempt]).first?.record
            guard let record else {
                throw DeskError(.badRequest, heading: "Not done", text: TeacherDesk.Problem.notSubmitted(attempt).description, back: page)
            }
            if let decision, fields["confirm"] != "yes" {
                let view = DeskView.LateConfirm(
                    decision: decision,
                    student: record.user,
                    attempt: attempt,
                    keptApart: record.flags.contains(.revokedDevice),
                    csrf: csrf(context),
                    user: context.user,
                    idPath: Self.pathSegment(id)
                )
                return pages.html(pages.render("lateConfirm", view))
            }
            do {
                try await desk.decideLate(id, attempt: attempt, decision: decision, by: context.user ?? "a teacher")
            } catch let problem as TeacherDesk.Problem {
                throw DeskError(.badRequest, heading: "Not done", text: problem.description, back: page)
            }
            let apart = record.flags.contains(.revokedDevice) ? "apart_" : ""
            return Response.redirect(to: page + "?notice=\(apart)\(decision?.rawValue ?? "undecided")", type: .normal)
        }
        assessment.post("share") { request, context in
            let id = try context.parameters.require("id")
            let fields = try await form(request, context: context)
            let back = "/desk/a/\(Self.pathSegment(id))"
            var access: TeacherAccess?
            if let user = context.user { access = try await storage.teacherAccess(assessmentID: id, teacher: user) }
            guard Ownership.mayShare(role: context.role ?? .student, access: access) else {
                throw DeskError(
                    .forbidden,
                    heading: "Not done",
                    text: "Only the owner of this assessment or an administrator can share it.",
                    back: back
                )
            }
            let teacher = (fields["teacher"] ?? "").trimmingCharacters(in: .whitespaces)
            let remove = fields["action"] == "remove"
            switch try await storage.share(assessmentID: id, teacher: teacher, remove: remove) {
            case .shared: return Response.redirect(to: back + "?notice=shared", type: .normal)
            case .removed: return Response.redirect(to: back + "?notice=unshared", type: .normal)
            case .noTeacher, .noAssessment:
                throw DeskError(.badRequest, heading: "Not done", text: "There is no teacher with that user name; nothing was changed.", back: back)
            case .cannotRemoveOwner:
                throw DeskError(.badRequest, heading: "Not done", text: "The owner cannot be removed; nothing was changed.", back: back)
            }
        }
        // Packages by file (issue 57): one signed file per student of the page's group (or everyone), in one zip.
        assessment.post("packages") { request, context in try await packages(request, context: context) }
        // Their slip codes (issue 68), to print and cut: never on the stick, derived again, never stored.
        assessment.get("slips") { request, context in
            let id = try context.parameters.require("id")
            let group = request.uri.queryParameters.get("group").flatMap { $0.isEmpty ? nil : String($0) }
            let now = configuration.now()
            let maker = StudentPackages(storage: storage, sealIterations: configuration.sealIterations)
            let students = group == nil ? nil : Set(try await maker.students(assessmentID: id, user: nil, group: group, now: now))
            let slips = try await maker.slips(assessmentID: id, students: students, now: now)
            let view = DeskView.Slips(
                title: "Slip codes",
                user: context.user,
                id: id,
                idPath: Self.pathSegment(id),
                group: group,
                slips: slips.map { .init(name: $0.user, code: $0.code, until: Timestamp.readable($0.expiresAt)) },
                fingerprint: try await ReceiptIssuer(storage: storage).identity().publicKey.fingerprint
            )
            return pages.html(pages.render("slips", view))
        }
        assessment.get("grade") { request, context in try await gradePage(request, context: context) }
        // Regrading: what the current key changes, listed first; applied by the teacher, recorded in the history.
        assessment.get("regrade") { _, context in
            let id = try context.parameters.require("id")
            let outcome = try await desk.regrade(id, dryRun: true, by: context.user ?? "a teacher")
            let title = try await desk.consequences(id).title
            let view = DeskView.Regrade(outcome: outcome, rosterTitle: title, user: context.user, csrf: csrf(context), idPath: Self.pathSegment(id))
            return pages.html(pages.render("regrade", view))
        }
        assessment.post("regrade") { request, context in
            let id = try context.parameters.require("id")
            _ = try await form(request, context: context)
            try await desk.regrade(id, dryRun: false, by: context.user ?? "a teacher")
            return Response.redirect(to: "/desk/a/\(Self.pathSegment(id))?notice=regraded", type: .normal)
        }
        assessment.post("grade") { request, context in try await saveGrades(request, context: context) }
        assessment.get("student") { request, context in
            let id = try context.parameters.require("id")
            let user = request.uri.queryParameters.get("user").map { String($0) } ?? ""
            let sheet = try await desk.sheet(id, user: user, attempt: request.uri.queryParameters.get("attempt").map { String($0) })
            let notice: String? =
                switch request.uri.queryParameters.get("notice") {
                case "saved": "Saved. The student sees the points and feedback with their results once results are shown to them."
                case "extra": "Extra time saved: it applies to the student's next download of a timed test."
                default: nil
                }
            let view = DeskView.SheetPage(sheet: sheet, csrf: csrf(context), user: context.user, notice: notice, idPath: Self.pathSegment(id))
            return pages.html(pages.render("sheet", view))
        }
        assessment.post("student") { request, context in
            let id = try context.parameters.require("id")
            let fields = try await form(request, context: context)
            let user = fields["user"] ?? ""
            let back = "/desk/a/\(Self.pathSegment(id))/student?user=\(Self.querySegment(user))"
            guard let attempt = fields["attempt"] else {
                throw DeskError(.badRequest, heading: "Not done", text: "The form names no attempt.", back: back)
            }
            var points: [String: Double] = [:]
            var feedback: [String: String] = [:]
            for (name, value) in fields {
                if name.hasPrefix("points:") {
                    let text = value.trimmingCharacters(in: .whitespaces)
                    guard !text.isEmpty else { continue }
                    guard let number = Double(text.replacingOccurrences(of: ",", with: ".")) else {
                        throw DeskError(.badRequest, heading: "Not saved", text: "Points must be a number. Nothing was saved.", back: back)
                    }
                    points[String(name.dropFirst("points:".count))] = number
                } else if name.hasPrefix("feedback:") {
                    feedback[String(name.dropFirst("feedback:".count))] = value
                }
            }
            do {
                try await desk.saveSheet(id, attempt: attempt, points: points, feedback: feedback)
            } catch let problem as TeacherDesk.Problem {
                throw DeskError(.badRequest, heading: "Not saved", text: problem.description, back: back)
            }
            return Response.redirect(to: back + "&attempt=\(Self.querySegment(attempt))&notice=saved", type: .normal)
        }
        assessment.post("extra-time") { request, context in
            let id = try context.parameters.require("id")
            let fields = try await form(request, context: context)
            let user = fields["user"] ?? ""
            let back = "/desk/a/\(Self.pathSegment(id))/student?user=\(Self.querySegment(user))"
            guard let minutes = fields["minutes"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
                throw DeskError(.badRequest, heading: "Not saved", text: TeacherDesk.Problem.extraMinutesOutOfRange.description, back: back)
            }
            do {
                try await desk.setExtraTime(id, user: user, minutes: minutes)
            } catch let problem as TeacherDesk.Problem {
                throw DeskError(.badRequest, heading: "Not saved", text: problem.description, back: back)
            }
            return Response.redirect(to: back + "&notice=extra", type: .normal)
        }
        assessment.get("analysis") { request, context in
            let id = try context.parameters.require("id")
            let (title, analysis) = try await desk.analysis(id, attempts: Self.attempts(request))
            let view = DeskView.AnalysisPage(title: title, analysis: analysis, csrf: csrf(context), user: context.user, idPath: Self.pathSegment(id))
            return pages.html(pages.render("analysis", view))
        }
        assessment.get("analysis.csv") { request, context in
            let id = try context.parameters.require("id")
            let (_, analysis) = try await desk.analysis(id, attempts: Self.attempts(request))
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"\(Self.fileName(id))-item-analysis.csv\"",
                ],
                body: .init(byteBuffer: ByteBuffer(string: ItemAnalysisCSV.lines(analysis).joined()))
            )
        }
        assessment.get("start-code") { _, context in try await startCodePage(context) }
        assessment.get("export") { request, context in try await export(request, context: context) }
    }

    // MARK: Actions that can be undone

    /// The page that asks before closing or releasing: what it will do, and what is still open.
    func confirmPage(_ change: AssessmentChange, context: VaultRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let consequences = try await desk.consequences(id)
        let view = DeskView.Confirm(
            change: change,
            title: consequences.title,
            consequences: consequences,
            csrf: csrf(context),
            user: context.user,
            idPath: Self.pathSegment(id)
        )
        return pages.html(pages.render("confirm", view))
    }

    /// Close (asked first), release (asked first), reopen or hide results, as the signed-in teacher.
    func changeState(_ change: AssessmentChange, _ request: Request, context: VaultRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let fields = try await form(request, context: context)
        let page = "/desk/a/\(Self.pathSegment(id))"
        switch change {
        case .close, .release:
            guard fields["confirm"] == "yes" else {
                return Response.redirect(to: page + (change == .release ? "/release" : "/close"), type: .normal)
            }
        case .reopen, .hideResults:
            break
        }
        try await desk.change(id, change, by: context.user ?? "a teacher")
        return Response.redirect(to: page + "?notice=" + change.kind.rawValue, type: .normal)
    }

    // MARK: Students

    /// Adds the students of a pasted class list: every line checked first (a bad one adds nobody); names that exist
    /// already are left as they are and listed; generated passwords are shown on this page once and stored only as
    /// hashes.
    func addStudents(_ request: Request, context: VaultRequestContext) async throws -> Response {
        let fields = try await form(request, context: context)
        let list: StudentList
        do {
            list = try StudentList(csv: fields["list"] ?? "")
        } catch let problem as StudentList.Problem {
            throw DeskError(.badRequest, heading: "Nobody was added", text: problem.description, back: "/desk/students")
        }
        var added: [DeskView.NewStudent] = []
        var existing: [String] = []
        for entry in list.entries {
            // The name as written, or as its case-folded form (an account "kim" exists when "KIM" is added).
            var taken = false
            for name in Set([entry.name, AccountNames.key(entry.name)]) where !taken { taken = try await storage.user(named: name) != nil }
            if taken {
                existing.append(entry.name)
                continue
            }
            let password = try entry.password ?? StudentList.newPassword()
            var record = try await hashing.newRecord(name: entry.name, role: .student, password: SecretBytes(Array(password.utf8)))
            record.group = entry.group
            do {
                try await storage.createUser(record, now: configuration.now())
            } catch StorageError.userExists {
                existing.append(entry.name)
                continue
            }
            added.append(DeskView.NewStudent(name: entry.name, group: entry.group ?? "", password: entry.password == nil ? password : nil))
        }
        let view = DeskView.StudentsAdded(title: "Students added", user: context.user, csrf: csrf(context), added: added, existing: existing)
        return pages.html(pages.render("studentsAdded", view))
    }

    /// Exam day, a student's account: a new password (made here, shown once, every session signed out), turned off
    /// (its sessions signed out) or on again. A student's only, never a teacher's; each action counts against the
    /// teacher in the sign-in throttle (`accountActions` free in its window), so the desk cannot be used to take over
    /// accounts in bulk.
    func studentAccount(_ request: Request, context: VaultRequestContext) async throws -> Response {
        let fields = try await form(request, context: context)
        let back = "/desk/students"
        let name = (fields["name"] ?? "").trimmingCharacters(in: .whitespaces)
        guard let action = fields["action"].flatMap(DeskView.AccountAction.init(rawValue:)) else {
            throw DeskError(.badRequest, heading: "Nothing was changed", text: "Choose what to do with the account.", back: back)
        }
        let teacher = context.user ?? "a teacher"
        if let wait = await signIn.throttle.begin([.user("desk-account:" + teacher, free: Self.accountActions)]) {
            let refusal = APIError.tooManySignIns(wait)
            throw DeskError(
                .tooManyRequests,
                heading: "Nothing was changed",
                text: "Too many account changes in a short time. Wait \(refusal.headers[.retryAfter] ?? "a few") seconds, then try again.",
                back: back
            )
        }
        guard (try? Identifiers.check([name])) != nil, let user = try await storage.user(named: name), user.role == .student else {
            throw DeskError(
                .badRequest,
                heading: "Nothing was changed",
                text:
                    "There is no student \(name). Only a student's account can be changed here; a teacher's is changed on the server (`vault-server user`).",
                back: back
            )
        }
        // A teacher changes their own students' accounts; an administrator anyone's (issue 68).
        if context.role != .admin, try await !storage.teaches(teacher: teacher, student: user.name) {
            throw DeskError(
                .forbidden,
                heading: "Nothing was changed",
                text:
                    "\(user.name) has not taken any assessment of yours, nor is in a group with a student who has. Ask their teacher or the school's administrator.",
                back: back
            )
        }
        var password: String?
        var revoked = 0
        let actor = "\(teacher) on the desk"
        switch action {
        case .password:
            let made = try StudentList.newPassword()
            var record = try await hashing.newRecord(name: user.name, role: user.role, password: SecretBytes(Array(made.utf8)))
            record.group = user.group
            try await storage.updatePassword(record)
            try await storage.revokeTokens(user: user.name, now: configuration.now())
            // The desk asks (issue 68): a lost laptop's vault should stop speaking for the student too.
            if fields["revoke_keys"] == "on" {
                revoked = try await storage.revokeDeviceKeys(user: user.name, key: nil, by: actor, now: configuration.now())
            }
            password = made
        case .disable, .enable:
            _ = try await storage.setDisabled(user: user.name, disabled: action == .disable, now: configuration.now())
        case .keys:
            break
        case .revokeKeys where fields["confirm"] != "yes":
            // Asked first, with the keys that would end (as Close and Release are).
            let view = DeskView.AccountDone(
                title: "Revoke device keys",
                user: context.user,
                csrf: csrf(context),
                name: user.name,
                action: .revokeKeys,
                password: nil,
                keys: try await storage.deviceKeyRecords(user: user.name).filter { $0.revokedAt == nil }
            )
            return pages.html(pages.render("revokeKeysConfirm", view))
        case .revokeKeys:
            revoked = try await storage.revokeDeviceKeys(user: user.name, key: nil, by: actor, now: configuration.now())
        }
        let view = DeskView.AccountDone(
            title: "Student's account",
            user: context.user,
            csrf: csrf(context),
            name: user.name,
            action: action,
            password: password,
            keys: action == .keys || action == .revokeKeys ? try await storage.deviceKeyRecords(user: user.name) : [],
            revoked: revoked
        )
        return pages.html(pages.render("accountDone", view))
    }

    /// Account changes a teacher may make in the throttle's window before waiting.
    static var accountActions: Int { 30 }

    /// A classroom serves the district's class and assessments: students and assessments are added at the district
    /// (a student made here would have no key the district knows, an assessment no version it holds), then pulled.
    func notOnAClassroom() throws {
        guard configuration.classroom else { return }
        throw DeskError(
            .forbidden,
            heading: "Done at the district",
            text:
                "This is a classroom server: students and assessments are added at the district, and the command vault-server classroom pull brings them here. Nothing was changed."
        )
    }

    /// On a classroom server, what `vault-server classroom status` says: the district, what waits to go up, what it
    /// refused, when it was last reached. Nil elsewhere.
    func classroomLines() async throws -> DeskView.Classroom? {
        guard configuration.classroom, let link = try await storage.classroomLink() else { return nil }
        return DeskView.Classroom(lines: link.statusLines + (try await storage.upstreamSummary()).lines)
    }

    // MARK: Signing in

    func loginPage(_ request: Request, problem: String?, status: HTTPResponse.Status) throws -> Response {
        let nonce = Hex.encode(try CryptoRandom.bytes(16))
        var response = pages.html(
            pages.render("login", DeskView.Login(title: "Sign in", nonce: nonce, problem: problem, classroom: configuration.classroom)),
            status: status
        )
        response.setCookie(DeskSession.nonceCookie(nonce, secure: DeskSession.isSecure(request, configuration: configuration)))
        return response
    }

    func signIn(_ request: Request, context: VaultRequestContext) async throws -> Response {
        let fields = try await Self.fields(request)
        guard let nonce = fields["nonce"], let expected = request.cookies[DeskSession.loginCookie]?.value,
            DeskSession.constantTimeEqual(Array(nonce.utf8), Array(expected.utf8))
        else { return try loginPage(request, problem: "The sign-in form was out of date. Please try again.", status: .forbidden) }
        let name = fields["user"] ?? ""
        guard (try? Identifiers.check([name])) != nil else {
            return try loginPage(request, problem: "The user name or password is not correct.", status: .unauthorized)
        }
        let outcome = try await signIn.deskAttempt(
            name: name,
            secret: SecretBytes(Array((fields["password"] ?? "").utf8)),
            address: context.clientAddress,
            lifetime: DeskSession.lifetime
        )
        let token: String
        switch outcome {
        case .throttled(let wait):
            let refusal = APIError.tooManySignIns(wait)
            var response = try loginPage(request, problem: refusal.message, status: .tooManyRequests)
            response.headers[.retryAfter] = refusal.headers[.retryAfter]
            return response
        case .wrong: return try loginPage(request, problem: "The user name or password is not correct.", status: .unauthorized)
        case .notAllowed: throw DeskError.teachersOnly
        case .disabled: return try loginPage(request, problem: APIError.accountDisabled.message, status: .forbidden)
        case .signedIn(_, let issued, _, _): token = issued
        }
        var response = Response.redirect(to: "/desk", type: .normal)
        let secure = DeskSession.isSecure(request, configuration: configuration)
        response.setCookie(DeskSession.sessionCookie(token, secure: secure, maxAge: Int(DeskSession.lifetime)))
        response.setCookie(DeskSession.nonceCookie("", secure: secure))
        return response
    }

    // MARK: Pages

    func assessmentsPage(_ context: VaultRequestContext) async throws -> Response {
        var rows: [DeskView.AssessmentRow] = []
        // A teacher sees the assessments they own or share; an administrator sees every one.
        let shared = context.role == .admin ? nil : try await storage.sharedAssessmentIDs(teacher: context.user ?? "")
        // Every assessment's counts in one read (not a roster each).
        let overview = try await storage.assessmentOverview()
        for entry in try await storage.catalog() where shared?.contains(entry.id) ?? true {
            let counts = overview.counts(entry.id)
            let closes = ResponseRules.closesAt(notAfter: entry.notAfter, closedAt: overview.closedAt[entry.id])
            rows.append(
                DeskView.AssessmentRow(
                    id: entry.id,
                    idPath: Self.pathSegment(entry.id),
                    title: entry.title,
                    version: entry.version,
                    sealed: entry.sealed == true ? "sealed" : "",
                    opens: entry.opensAt.map(Timestamp.readable) ?? "",
                    closes: closes.map { Timestamp.readable(epoch: $0) } ?? "",
                    handedIn: counts.handedIn,
                    expected: counts.expected
                )
            )
        }
        return pages.html(
            pages.render(
                "assessments",
                DeskView.Assessments(
                    title: "Assessments",
                    user: context.user,
                    csrf: csrf(context),
                    rows: rows,
                    admin: context.role == .admin,
                    local: !configuration.classroom,
                    classroom: try await classroomLines()
                )
            )
        )
    }

    func rosterPage(_ request: Request, context: VaultRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let group = request.uri.queryParameters.get("group").flatMap { $0.isEmpty ? nil : $0 }
        let show = request.uri.queryParameters.get("show").flatMap(DeskView.Show.init(rawValue:)) ?? .everyone
        // A page is a whole number from 1: anything else (`page=-9223372036854775808`) is a sentence, never arithmetic.
        let asked = request.uri.queryParameters.get("page")
        guard let number = asked == nil ? 1 : Numbers.positive(asked) else {
            throw DeskError(.badRequest, heading: "No such page", text: "Pages are numbered from 1.", back: "/desk/a/\(Self.pathSegment(id))")
        }
        let page = try await desk.rosterPage(id, group: group, page: number - 1, including: show.includes)
        var view = DeskView.RosterPage(
            page: page,
            group: group,
            show: show,
            csrf: csrf(context),
            user: context.user,
            notice: request.uri.queryParameters.get("notice").flatMap(DeskView.notice),
            refresh: Self.refreshSeconds,
            idPath: Self.pathSegment(id)
        )
        let teachers = try await storage.assessmentTeachers(assessmentID: id)
        view.teachers = teachers.sorted { ($0.value == .owner ? 0 : 1, $0.key) < ($1.value == .owner ? 0 : 1, $1.key) }.map {
            DeskView.TeacherRow(name: $0.key, label: $0.value == .owner ? "owner" : "co-teacher", removable: $0.value != .owner)
        }
        view.canShare = Ownership.mayShare(role: context.role ?? .student, access: context.user.flatMap { teachers[$0] })
        view.history = try await desk.history(id).map(DeskView.historyLine)
        return pages.html(pages.render("roster", view))
    }

    func gradePage(_ request: Request, context: VaultRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let queue = try await desk.queue(id, question: request.uri.queryParameters.get("question"))
        let saved = Numbers.positive(request.uri.queryParameters.get("saved"))
        let view = DeskView.GradePage(
            queue: queue,
            csrf: csrf(context),
            user: context.user,
            idPath: Self.pathSegment(id),
            notice: saved.map { "Saved the points of \($0) \($0 == 1 ? "answer" : "answers")." }
        )
        return pages.html(pages.render("grade", view))
    }

    func saveGrades(_ request: Request, context: VaultRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let fields = try await form(request, context: context)
        guard let question = fields["question"] else { throw DeskError(.badRequest, heading: "Not done", text: "The form names no question.") }
        var points: [String: Double] = [:]
        for (name, value) in fields where name.hasPrefix("points:") {
            let attempt = String(name.dropFirst("points:".count))
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            // Only a box the teacher changed becomes their points: the automatic points shown beside the others stay
            // automatic (a regrade still changes them).
            if trimmed.isEmpty || trimmed == fields["shown:" + attempt]?.trimmingCharacters(in: .whitespaces) { continue }
            guard let number = Double(trimmed.replacingOccurrences(of: ",", with: ".")) else {
                throw DeskError(
                    .badRequest,
                    heading: "Not saved",
                    text: "“\(trimmed.prefix(40))” is not a number of points. Nothing was saved.",
                    back: "/desk/a/\(Self.pathSegment(id))/grade?question=\(Self.querySegment(question))"
                )
            }
            points[attempt] = number
        }
        try await desk.grade(id, question: question, points: points)
        // The same question again, saying what was saved: the teacher checks it, then goes on by the link.
        return Response.redirect(
            to: "/desk/a/\(Self.pathSegment(id))/grade?question=\(Self.querySegment(question))&saved=\(points.count)",
            type: .normal
        )
    }

    func startCodePage(_ context: VaultRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        guard let start = try await desk.startCode(id, sealIterations: configuration.sealIterations) else {
            throw DeskError(
                .notFound,
                heading: "Not sealed",
                text: "\(id) is not sealed; it needs no start code.",
                back: "/desk/a/\(Self.pathSegment(id))"
            )
        }
        return pages.html(
            pages.render(
                "startcode",
                DeskView.StartCode(
                    title: "Start code",
                    rosterTitle: start.title,
                    user: context.user,
                    csrf: csrf(context),
                    version: start.version,
                    code: start.code,
                    spoken: start.code.map(String.init).joined(separator: " "),
                    idPath: Self.pathSegment(id)
                )
            )
        )
    }

    /// A gradebook file, streamed line by line.
    func export(_ request: Request, context: VaultRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        guard let format = request.uri.queryParameters.get("format").flatMap(GradebookCSV.Format.init(rawValue:)) else {
            throw DeskError(.badRequest, heading: "Not done", text: "Choose moodle, canvas or csv.", back: "/desk/a/\(Self.pathSegment(id))")
        }
        let group = request.uri.queryParameters.get("group").flatMap { $0.isEmpty ? nil : $0 }
        try await desk.requirePublished(id)  // an unknown assessment is a page, before any byte of the file is sent
        let desk = self.desk
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8",
                .contentDisposition: "attachment; filename=\"\(Self.fileName(id))-\(format.rawValue).csv\"",
            ],
            body: ResponseBody { writer in
                var buffer = ByteBuffer()
                try await desk.export(id, format: format, group: group) { line in
                    buffer.writeString(line)
                    if buffer.readableBytes >= 32 * 1024 {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
                try await writer.finish(nil)
            }
        )
    }

    /// Every package of the chosen students as one zip download; the note inside names the fingerprint to check.
    func packages(_ request: Request, context: VaultRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let fields = try await form(request, context: context)
        let back = "/desk/a/\(Self.pathSegment(id))"
        let group = fields["group"].flatMap { $0.isEmpty ? nil : $0 }
        let now = configuration.now()
        let maker = StudentPackages(storage: storage, sealIterations: configuration.sealIterations)
        let students = try await maker.students(assessmentID: id, user: nil, group: group, now: now)
        guard !students.isEmpty else {
            throw DeskError(.badRequest, heading: "Not done", text: "There is no student to make a package for.", back: back)
        }
        var made: [AssessmentPackage] = []
        do {
            for student in students {
                made.append(
                    try await maker.package(assessmentID: id, user: student, expiresAt: now.addingTimeInterval(30 * 24 * 3600), now: now).package
                )
            }
        } catch let problem as StudentPackages.Problem {
            throw DeskError(.badRequest, heading: "Not done", text: problem.description, back: back)
        }
        let fingerprint = try await ReceiptIssuer(storage: storage).identity().publicKey.fingerprint
        let zip = try StudentPackages.archive(made, fingerprint: fingerprint)
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/zip",
                .contentDisposition: "attachment; filename=\"\(Self.fileName(id))-packages\(group.map { "-" + Self.fileName($0) } ?? "").zip\"",
                .cacheControl: "no-store",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: zip))
        )
    }

    // MARK: Forms

    func csrf(_ context: VaultRequestContext) -> String { context.deskToken.map(DeskSession.csrf(for:)) ?? "" }

    /// A signed-in form post's fields, after its CSRF token and origin are checked.
    func form(_ request: Request, context: VaultRequestContext) async throws -> [String: String] {
        try checkOrigin(request)
        let fields = try await Self.fields(request)
        guard let token = context.deskToken, DeskSession.csrfMatches(fields["csrf"], token: token) else { throw DeskError.staleForm }
        return fields
    }

    /// A post from another site (its Origin names another host) is refused before anything is read.
    func checkOrigin(_ request: Request) throws {
        if let origin = request.headers[.origin], let host = request.head.authority,
            URLComponents(string: origin).map({ "\($0.host ?? "")\($0.port.map { ":\($0)" } ?? "")" }) != host
        {
            throw DeskError.staleForm
        }
    }

    /// An `application/x-www-form-urlencoded` body, read under a limit and decoded by Hummingbird's form decoder.
    /// A form it cannot read (a name twice, brackets that nest, bad percent-encoding) changes nothing.
    static func fields(_ request: Request) async throws -> [String: String] {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: maxFormBytes)
        } catch {
            throw DeskError(.contentTooLarge, heading: "Too large", text: "That form is larger than the desk takes; nothing was changed.")
        }
        do {
            return try URLEncodedFormDecoder().decode([String: String].self, from: String(buffer: body))
        } catch {
            throw DeskError(.badRequest, heading: "That form could not be read", text: "Nothing was changed. Reload the page and try again.")
        }
    }

    /// An id as the start of a download's file name: ASCII letters, digits, - and _ only, at most 60.
    static func fileName(_ id: String) -> String {
        String(
            String.UnicodeScalarView(
                id.unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }.prefix(60)
            )
        )
    }

    /// Which attempts the item analysis counts: `?attempts=all`, else each student's first.
    static func attempts(_ request: Request) -> ItemAnalysis.Attempts {
        request.uri.queryParameters.get("attempts").flatMap { ItemAnalysis.Attempts(rawValue: String($0)) } ?? .first
    }

    static func pathSegment(_ id: String) -> String { DeskRoutesPaths.query(id) }

    static func querySegment(_ text: String) -> String { DeskRoutesPaths.query(text) }
}

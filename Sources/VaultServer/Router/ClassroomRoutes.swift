import Foundation
import Hummingbird
import VaultAPI
import VaultCore
import VaultRules

/// The district's side of the second hop (issue 58): a teacher's classroom server pulls what the class needs and
/// pushes what the students sent. The district takes an answer or a hand-in only when the student's own vault key,
/// registered here, signed it: a classroom server cannot invent or change one.
struct ClassroomRoutes<Storage: ServerStorage> {
    let storage: Storage
    let configuration: ServerConfiguration
    let responses: ResponseRoutes<Storage>
    let receipts: ReceiptIssuer
    let sealed: SealedExams

    func register(on group: RouterGroup<VaultRequestContext>) {
        // A teacher, signed in with their password, registers the laptop's own key as their classroom (issue 69).
        group.post("classrooms") { request, context in
            try requireTeacher(context)
            let teacher = try context.user ?? { throw APIError.unauthorized }()
            let body = try await JSONBody.decode(DeviceKeyRequest.self, from: request, limit: 4 * 1024)
            guard let raw = Data(base64Encoded: body.publicKey), raw.count == 32 else {
                throw APIError.badRequest("public_key must be a raw 32-byte Ed25519 key in base64.")
            }
            guard
                try await storage.registerDeviceKey(
                    user: teacher,
                    publicKey: body.publicKey,
                    origin: .classroomServer,
                    detail: nil,
                    now: configuration.now()
                )
            else { throw APIError(.conflict, code: .keyTaken, message: "This key is already registered: make the classroom a new one.") }
            let fingerprint = DeviceKey.fingerprint(publicKey: body.publicKey)
            return try JSONBody.response(DeviceKeyResponse(fingerprint: fingerprint), status: .created, request: request)
        }
        group.get("classroom/pull") { request, context in
            let user = try Self.classroom(context).teacher
            let classGroup = request.uri.queryParameters.get("group").map { String($0) }
            var pull = try await storage.classExport(teacher: user, admin: context.role == .admin, group: classGroup, now: configuration.now())
            // A sealed exam goes with the district's sealing (made now if nobody downloaded it yet): the class has one
            // start code, whichever server a student downloaded from.
            for index in pull.assessments.indices {
                let assessment = pull.assessments[index]
                guard let served = assessment.served.flatMap({ Data(base64Encoded: $0) }), try SealedExams.sealedDocument(served) != nil else {
                    continue
                }
                let material = try await sealed.material(id: assessment.id, version: assessment.version)
                pull.assessments[index].sealing = ClassroomPull.PulledSealing(
                    contentKey: material.contentKey.base64EncodedString(),
                    startCode: material.startCode,
                    wrappedKey: material.wrappedKeyText
                )
            }
            // A classroom that fetches each document on its own (issue 69: a class with pictures is bigger than one
            // answer may be) gets the list only.
            if request.uri.queryParameters.get("documents") == "separate" {
                for index in pull.assessments.indices {
                    pull.assessments[index].source = nil
                    pull.assessments[index].served = nil
                }
            }
            return try JSONBody.response(pull, request: request)
        }
        group.get("classroom/documents/:id") { request, context in
            let user = try Self.classroom(context).teacher
            let id = try context.parameters.require("id")
            guard let version = request.uri.queryParameters.get("version").flatMap({ Int($0) }),
                try await storage.mayAct(user: user, role: context.role, onAssessment: id),
                let document = try await storage.classDocument(id: id, version: version)
            else { throw APIError.notFound(id) }
            return try JSONBody.response(document, request: request)
        }
        // What the district decided on the class's hand-ins, brought down after each push.
        group.get("classroom/results") { request, context in
            let user = try Self.classroom(context).teacher
            return try JSONBody.response(try await storage.classResults(teacher: user, admin: context.role == .admin), request: request)
        }
        // A classroom's students: the district's receipts for their hand-ins it passed on (404 on a server that is
        // not a classroom).
        group.get("classroom/receipts") { request, context in
            let user = try context.user ?? { throw APIError.unauthorized }()
            guard configuration.classroom, let link = try await storage.classroomLink() else {
                throw APIError(.notFound, code: .notFound, message: "This server is not a classroom server.")
            }
            let confirmations = ClassroomConfirmations(
                classroom: try await receipts.identity().publicKey.fingerprint,
                districtKey: link.districtKey,
                receipts: try await storage.upstreamReceipts(user: user),
                refused: try await storage.upstreamRefusals(user: user)
            )
            return try JSONBody.response(confirmations, request: request)
        }
        group.post("classroom/push") { request, context in
            _ = try Self.classroom(context)
            let push = try await JSONBody.decode(ClassroomPushRequest.self, from: request, limit: configuration.maxRequestBytes)
            guard push.items.count <= ClassroomPushRequest.maxItems else {
                throw APIError(.contentTooLarge, code: .tooManyItems, message: "Send at most \(ClassroomPushRequest.maxItems) items per push.")
            }
            let results = try await take(push.items, vouched: Self.vouches(push), context: context)
            try await register(push, results: results, context: context)
            return try JSONBody.response(ClassroomPushResponse(results: results), request: request)
        }
    }

    /// The classroom server a request comes from, by its own key's token (issue 69): a person's token, a teacher's
    /// password one included, pulls and pushes nothing.
    static func classroom(_ context: VaultRequestContext) throws -> (teacher: String, classroom: String) {
        guard let teacher = context.user, let classroom = context.classroom, context.role?.teaches == true else {
            throw APIError.classroomKeyNeeded
        }
        return (teacher, classroom)
    }

    /// The keys a classroom vouches for (enrolled there with a class code), by student: well-formed ones only, and no
    /// more than a push carries items.
    static func vouches(_ push: ClassroomPushRequest) -> [String: Set<String>] {
        var vouched: [String: Set<String>] = [:]
        for vouch in (push.vouched ?? []).prefix(ClassroomPushRequest.maxItems) {
            guard let raw = Data(base64Encoded: vouch.deviceKey), raw.count == 32 else { continue }
            vouched[vouch.user, default: []].insert(vouch.deviceKey)
        }
        return vouched
    }

    /// A vouched key is registered to its student only after something it signed was taken (issue 68): an item of
    /// an assessment the pushing teacher may act on (`take` checks that before storing), so a teacher vouches only for
    /// their own students, and a refused or junk item registers nothing. It is added beside the student's other
    /// keys (a new laptop through a classroom), never over a key another student holds.
    func register(_ push: ClassroomPushRequest, results: [ClassroomPushResponse.Result], context: VaultRequestContext) async throws {
        let vouched = Self.vouches(push)
        guard !vouched.isEmpty, let from = try? Self.classroom(context) else { return }
        let stored = Set(results.filter { $0.outcome == .stored }.map(\.seq))
        var done: Set<String> = []
        for entry in push.items where stored.contains(entry.seq) && entry.kind.isStudents {
            guard let key = entry.deviceKey, vouched[entry.user]?.contains(key) == true, done.insert(key).inserted else { continue }
            _ = try await storage.registerDeviceKey(
                user: entry.user,
                publicKey: key,
                origin: .classroom,
                detail: "classroom \(from.classroom) of \(from.teacher)",
                now: configuration.now()
            )
        }
    }

    /// Each item in order; consecutive answers of one student go to the store as one batch. `vouched`: keys the
    /// classroom enrolled, taken for their students' items as a registered key would be (`register` keeps them after).
    func take(
        _ items: [ClassroomPushRequest.Item],
        vouched: [String: Set<String>] = [:],
        context: VaultRequestContext
    ) async throws -> [ClassroomPushResponse.Result] {
        var results: [ClassroomPushResponse.Result] = []
        var run: [(seq: Int, item: ResponseItem)] = []
        var runUser = ""
        var keys: [String: [String]] = [:]
        func keysOf(_ user: String) async throws -> [String] {
            if let known = keys[user] { return known }
            let student = try await storage.user(named: user)?.role == .student
            var found = student ? try await storage.deviceKeys(user: user) : []
            // A vouched key another student holds (or one revoked) is never taken for this one.
            for key in (student ? vouched[user] ?? [] : []) where !found.contains(key) {
                if try await storage.registerableKey(key, for: user) { found.append(key) }
            }
            keys[user] = found
            return found
        }
        func flush() async throws {
            guard !run.isEmpty else { return }
            let stored = try await storage.recordBatch(run.map(\.item), user: runUser, device: nil, now: configuration.now())
            ServerMetrics.answers(stored)
            for (entry, result) in zip(run, stored) {
                switch result.status {
                case .accepted, .duplicate, .superseded: results.append(.init(seq: entry.seq, outcome: .stored))
                case .conflict, .gone, .rejected:
                    results.append(.init(seq: entry.seq, outcome: .refused, message: result.message ?? Self.refusal(result.status)))
                }
            }
            run = []
        }
        for entry in items {
            switch entry.kind {
            case .answer:
                guard let item = try? JSONDecoder().decode(ResponseItem.self, from: Data(entry.body.utf8)),
                    (try? Identifiers.check([item])) != nil
                else {
                    results.append(.init(seq: entry.seq, outcome: .refused, message: "This answer cannot be read."))
                    continue
                }
                let known = try await keysOf(entry.user)
                guard let key = entry.deviceKey, known.contains(key), VaultSignatures.isSigned(item, by: key) else {
                    results.append(.init(seq: entry.seq, outcome: .refused, message: Self.notTheStudents(entry.user, known: !known.isEmpty)))
                    continue
                }
                guard try await storage.mayAct(user: context.user, role: context.role, onAssessment: item.assessmentId) else {
                    results.append(.init(seq: entry.seq, outcome: .refused, message: "There is no assessment \(item.assessmentId) of yours."))
                    continue
                }
                if runUser != entry.user { try await flush() }
                runUser = entry.user
                run.append((entry.seq, item))
            case .submission:
                try await flush()
                results.append(try await takeSubmission(entry, keys: try await keysOf(entry.user), context: context))
            case .grade, .feedback, .release, .late, .closing:
                try await flush()
                results.append(try await takeTeachers(entry, context: context))
            case .draw:
                try await flush()
                results.append(try await takeDraw(entry, context: context))
            case .download:
                try await flush()
                results.append(try await takeDownload(entry, context: context))
            }
        }
        try await flush()
        return results
    }

    private func takeSubmission(
        _ entry: ClassroomPushRequest.Item,
        keys: [String],
        context: VaultRequestContext
    ) async throws
        -> ClassroomPushResponse.Result
    {
        guard let submission = try? JSONDecoder().decode(SubmissionRequest.self, from: Data(entry.body.utf8)),
            (try? Identifiers.check(submission)) != nil
        else { return .init(seq: entry.seq, outcome: .refused, message: "This hand-in cannot be read.") }
        guard let key = submission.deviceKey, keys.contains(key), VaultSignatures.isSigned(submission) else {
            return .init(seq: entry.seq, outcome: .refused, message: Self.notTheStudents(entry.user, known: !keys.isEmpty))
        }
        guard try await storage.mayAct(user: context.user, role: context.role, onAssessment: submission.assessmentId) else {
            return .init(seq: entry.seq, outcome: .refused, message: "There is no assessment \(submission.assessmentId) of yours.")
        }
        do {
            // Judged (late or not, and its receipt's time) by when it reached the classroom, which acts for the teacher:
            // a class whose district was out of reach all week did not hand in late. Bounded (`heldTime`): never after
            // now, never before the student made it.
            let arrived = ClosingHandIn.heldTime(entry.heldAt.flatMap(Timestamp.date), submission: submission, now: configuration.now())
            // The district closed between the push of the answers and this one, and handed the attempt in itself: the
            // student's own hand-in, held first, takes its place (`ClosingHandIn.submitOwn`, in `intake`).
            let (receipt, _) = try await responses.intake(submission, user: entry.user, arrived: arrived)
            if let classroom = context.classroom { try await storage.noteThroughClassroom(classroom, attemptID: submission.attemptId) }
            return .init(seq: entry.seq, outcome: .stored, receipt: receipt)
        } catch let error as APIError where error.code == .responsesMissing {
            return .init(seq: entry.seq, outcome: .later, message: error.message)
        } catch let error as APIError {
            return .init(seq: entry.seq, outcome: .refused, message: error.message)
        }
    }

    /// A student's draw first made on the classroom (issue 69): kept as theirs when the district has none, so their
    /// answers to the questions they were given are taken; the district's own draw stands otherwise (said).
    private func takeDraw(_ entry: ClassroomPushRequest.Item, context: VaultRequestContext) async throws -> ClassroomPushResponse.Result {
        guard let draw = try? JSONDecoder().decode(ClassroomPull.PulledDraw.self, from: Data(entry.body.utf8)), draw.user == entry.user,
            (try? Identifiers.check([draw.assessmentId, draw.user])) != nil
        else { return .init(seq: entry.seq, outcome: .refused, message: "This draw cannot be read.") }
        guard try await storage.user(named: draw.user)?.role == .student,
            try await storage.mayAct(user: context.user, role: context.role, onAssessment: draw.assessmentId)
        else { return .init(seq: entry.seq, outcome: .refused, message: "There is no assessment \(draw.assessmentId) of yours for \(draw.user).") }
        guard try await storage.adoptDraw(draw, now: configuration.now()) else {
            return .init(
                seq: entry.seq,
                outcome: .refused,
                message:
                    "\(draw.user) was given other questions of \(draw.assessmentId) at the district first; their answers to questions only the classroom gave them are refused."
            )
        }
        return .init(seq: entry.seq, outcome: .stored)
    }

    /// A student's download on the classroom (issue 69): the district's roster counts it, when it happened (never later
    /// than now).
    private func takeDownload(_ entry: ClassroomPushRequest.Item, context: VaultRequestContext) async throws -> ClassroomPushResponse.Result {
        guard let download = try? JSONDecoder().decode(ClassroomDownload.self, from: Data(entry.body.utf8)), download.version >= 1,
            (try? Identifiers.check([download.assessmentId, entry.user])) != nil
        else { return .init(seq: entry.seq, outcome: .refused, message: "This download cannot be read.") }
        guard try await storage.user(named: entry.user)?.role == .student,
            try await storage.mayAct(user: context.user, role: context.role, onAssessment: download.assessmentId)
        else {
            return .init(seq: entry.seq, outcome: .refused, message: "There is no assessment \(download.assessmentId) of yours for \(entry.user).")
        }
        let now = configuration.now()
        let when = entry.heldAt.flatMap(Timestamp.date).map { min($0, now) } ?? now
        try await storage.recordDownload(
            assessmentID: download.assessmentId,
            version: download.version,
            user: entry.user,
            now: when,
            classroom: context.classroom
        )
        return .init(seq: entry.seq, outcome: .stored)
    }

    /// A mark or a release the teacher made on the classroom's desk: taken as the teacher's own at the district's desk
    /// would be (the classroom signed in as the teacher), by the same checks (`TeacherDesk`).
    private func takeTeachers(_ entry: ClassroomPushRequest.Item, context: VaultRequestContext) async throws -> ClassroomPushResponse.Result {
        let desk = TeacherDesk(storage: storage, now: configuration.now)
        let body = Data(entry.body.utf8)
        let assessment: String
        let act: () async throws -> Void
        switch entry.kind {
        case .late:
            guard let late = try? JSONDecoder().decode(ClassroomLate.self, from: body),
                late.decision.map({ LateDecision(rawValue: $0) != nil }) ?? true
            else { return .init(seq: entry.seq, outcome: .refused, message: "This decision cannot be read.") }
            assessment = late.assessmentId
            act = {
                try await desk.decideLate(
                    late.assessmentId,
                    attempt: late.attemptId,
                    decision: late.decision.flatMap(LateDecision.init(rawValue:)),
                    by: Self.actor(context)
                )
            }
        case .closing:
            guard let closing = try? JSONDecoder().decode(ClassroomClosing.self, from: body),
                closing.closedAt.map({ Timestamp.date($0) != nil }) ?? true
            else { return .init(seq: entry.seq, outcome: .refused, message: "This closing cannot be read.") }
            assessment = closing.assessmentId
            let change = closing.closedAt.flatMap(Timestamp.date).map(AssessmentChange.close(at:)) ?? .reopen
            act = { _ = try await desk.change(closing.assessmentId, change, by: Self.actor(context)) }
        case .release:
            guard let release = try? JSONDecoder().decode(ClassroomRelease.self, from: body) else {
                return .init(seq: entry.seq, outcome: .refused, message: "This release cannot be read.")
            }
            assessment = release.assessmentId
            act = { try await desk.change(release.assessmentId, release.released ? .release : .hideResults, by: Self.actor(context)) }
        default:
            guard let mark = try? JSONDecoder().decode(ClassroomMark.self, from: body), entry.kind == .feedback || mark.points != nil else {
                return .init(seq: entry.seq, outcome: .refused, message: "This mark cannot be read.")
            }
            assessment = mark.assessmentId
            act = {
                try await desk.saveSheet(
                    mark.assessmentId,
                    attempt: mark.attemptId,
                    points: mark.points.map { [mark.questionId: $0] } ?? [:],
                    feedback: entry.kind == .feedback ? [mark.questionId: mark.text ?? ""] : [:]
                )
            }
        }
        guard try await storage.mayAct(user: context.user, role: context.role, onAssessment: assessment) else {
            return .init(seq: entry.seq, outcome: .refused, message: "There is no assessment \(assessment) of yours.")
        }
        do {
            try await act()
            return .init(seq: entry.seq, outcome: .stored)
        } catch let problem as TeacherDesk.Problem {
            // A hand-in not here yet (its push comes after this mark's) is taken at the next push.
            if case .notSubmitted = problem { return .init(seq: entry.seq, outcome: .later, message: problem.description) }
            return .init(seq: entry.seq, outcome: .refused, message: problem.description)
        }
    }

    /// Who the district's history names for what a classroom passed on.
    static func actor(_ context: VaultRequestContext) -> String { "\(context.user ?? "a teacher") on a classroom server" }

    static func notTheStudents(_ user: String, known: Bool) -> String {
        known
            ? "Not signed by a vault of \(user)'s: it was changed after the student sent it, or made by someone else."
            : "\(user) has no vault registered at the district: nothing of theirs can be taken from a classroom."
    }

    static func refusal(_ status: ItemStatus) -> String {
        switch status {
        case .conflict: "The assessment changed at the district since the classroom pulled it."
        case .gone: "The assessment is no longer available at the district."
        default: "The district refused this answer."
        }
    }
}

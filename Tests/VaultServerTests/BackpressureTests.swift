import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import Testing
import VaultAPI
import VaultCore
import VaultRules
import VaultServer
import VaultTestSupport

/// The real SQLite store, with every batch held for a while: so that requests are surely in flight together.
struct SlowStorage: ServerStorage {
    let base: any ServerStorage
    let delay: Duration

    func createUser(_ user: UserRecord, now: Date) async throws { try await base.createUser(user, now: now) }
    func user(named name: String) async throws -> UserRecord? { try await base.user(named: name) }
    func storeToken(hash: String, user: String, expiresAt: Date, classroom: String?) async throws {
        try await base.storeToken(hash: hash, user: user, expiresAt: expiresAt, classroom: classroom)
    }
    func tokenOwner(hash: String, now: Date) async throws -> TokenOwner? { try await base.tokenOwner(hash: hash, now: now) }
    func updatePassword(_ user: UserRecord) async throws { try await base.updatePassword(user) }
    func setFeedback(attemptID: String, questionID: String, text: String?) async throws -> Bool {
        try await base.setFeedback(attemptID: attemptID, questionID: questionID, text: text)
    }
    func recordRefusals(_ refusals: [RosterFacts.Refusal]) async throws { try await base.recordRefusals(refusals) }
    func revokeToken(hash: String) async throws { try await base.revokeToken(hash: hash) }
    func revokeTokens(user: String, now: Date) async throws { try await base.revokeTokens(user: user, now: now) }
    func setDisabled(user: String, disabled: Bool, now: Date) async throws -> Bool {
        try await base.setDisabled(user: user, disabled: disabled, now: now)
    }
    func purgeExpiredTokens(now: Date) async throws { try await base.purgeExpiredTokens(now: now) }
    func publish(_ assessment: Assessment, now: Date, by publisher: Publisher?) async throws -> PublishResponse {
        try await base.publish(assessment, now: now, by: publisher)
    }
    func teaches(teacher: String, student: String) async throws -> Bool {
        try await base.teaches(teacher: teacher, student: student)
    }
    func teacherAccess(assessmentID: String, teacher: String) async throws -> TeacherAccess? {
        try await base.teacherAccess(assessmentID: assessmentID, teacher: teacher)
    }
    func sharedAssessmentIDs(teacher: String) async throws -> Set<String> { try await base.sharedAssessmentIDs(teacher: teacher) }
    func assessmentTeachers(assessmentID: String) async throws -> [String: TeacherAccess] {
        try await base.assessmentTeachers(assessmentID: assessmentID)
    }
    func share(assessmentID: String, teacher: String, remove: Bool) async throws -> ShareOutcome {
        try await base.share(assessmentID: assessmentID, teacher: teacher, remove: remove)
    }
    func delete(id: String, now: Date) async throws -> Bool { try await base.delete(id: id, now: now) }
    func catalog() async throws -> [CatalogEntry] { try await base.catalog() }
    func served(id: String) async throws -> (bytes: Data, contentHash: String, version: Int)? { try await base.served(id: id) }
    func recordBatch(_ items: [ResponseItem], user: String, device: String?, now: Date) async throws -> [ItemResult] {
        try await Task.sleep(for: delay)
        return try await base.recordBatch(items, user: user, device: device, now: now)
    }
    func registerDeviceKey(user: String, publicKey: String, origin: DeviceKeyRecord.Origin, detail: String?, now: Date) async throws -> Bool {
        try await base.registerDeviceKey(user: user, publicKey: publicKey, origin: origin, detail: detail, now: now)
    }
    func registerableKey(_ publicKey: String, for user: String) async throws -> Bool { try await base.registerableKey(publicKey, for: user) }
    func deviceKeyRecords(user: String) async throws -> [DeviceKeyRecord] { try await base.deviceKeyRecords(user: user) }
    func revokeDeviceKeys(user: String, key: String?, by actor: String, now: Date) async throws -> Int {
        try await base.revokeDeviceKeys(user: user, key: key, by: actor, now: now)
    }
    func noteDeviceKeyUsed(publicKey: String, now: Date) async throws { try await base.noteDeviceKeyUsed(publicKey: publicKey, now: now) }
    func deviceKeys(user: String) async throws -> [String] { try await base.deviceKeys(user: user) }
    func classroomKeys() async throws -> [DeviceKeyRecord] { try await base.classroomKeys() }
    func judgeBatch(_ items: [ResponseItem], user: String, now: Date) async throws -> [ItemResult] {
        try await base.judgeBatch(items, user: user, now: now)
    }
    func submit(_ request: SubmissionRequest, user: String, via: SubmissionChannel, now: Date, madeAt: Date?) async throws -> SubmissionOutcome {
        try await base.submit(request, user: user, via: via, now: now, madeAt: madeAt)
    }
    func close(assessmentID: String, at: Date) async throws -> Bool { try await base.close(assessmentID: assessmentID, at: at) }
    func closings() async throws -> [String: Double] { try await base.closings() }
    func regrade(assessmentID: String, apply: Bool, by actor: String, at: Date) async throws -> RegradePlan.Outcome? {
        try await base.regrade(assessmentID: assessmentID, apply: apply, by: actor, at: at)
    }
    func apply(_ change: AssessmentChange, assessmentID: String, by actor: String, at: Date) async throws -> Bool {
        try await base.apply(change, assessmentID: assessmentID, by: actor, at: at)
    }
    func actions(assessmentID: String) async throws -> [AssessmentAction] { try await base.actions(assessmentID: assessmentID) }
    func decideLate(attemptID: String, decision: LateDecision?, by actor: String?, at: Date) async throws -> Bool {
        try await base.decideLate(attemptID: attemptID, decision: decision, by: actor, at: at)
    }
    func recordDownload(assessmentID: String, version: Int, user: String, now: Date, classroom: String?) async throws {
        try await base.recordDownload(assessmentID: assessmentID, version: version, user: user, now: now, classroom: classroom)
    }
    func rosterFacts(assessmentID: String, group: String?, detail: ResultDetail, users: [String]?) async throws -> RosterFacts? {
        try await base.rosterFacts(assessmentID: assessmentID, group: group, detail: detail, users: users)
    }
    func rosterMembers(assessmentID: String, group: String?) async throws -> [RosterFacts.Student] {
        try await base.rosterMembers(assessmentID: assessmentID, group: group)
    }
    func received(assessmentID: String) async throws -> ReceivedResponses? { try await base.received(assessmentID: assessmentID) }
    func run() async throws { try await base.run() }
    func serverIdentityMaterial(generate: @Sendable () -> Data) async throws -> Data { try await base.serverIdentityMaterial(generate: generate) }
    func receiptMaterial(attemptID: String) async throws -> ReceiptMaterial? { try await base.receiptMaterial(attemptID: attemptID) }
    func attachReceipt(attemptID: String, signed: SignedReceipt) async throws -> SignedReceipt {
        try await base.attachReceipt(attemptID: attemptID, signed: signed)
    }
    func heldAttempts(user: String, assessmentID: String) async throws -> [HeldAttempt] {
        try await base.heldAttempts(user: user, assessmentID: assessmentID)
    }
    func assessmentOverview() async throws -> AssessmentOverview { try await base.assessmentOverview() }
    func replacedAnswers(attemptID: String) async throws -> [ReplacedAnswer] {
        try await base.replacedAnswers(attemptID: attemptID)
    }
    func resultInputs(user: String?, assessmentID: String?, attemptIDs: [String]?) async throws -> [ResultInput] {
        try await base.resultInputs(user: user, assessmentID: assessmentID, attemptIDs: attemptIDs)
    }
    func grade(attemptID: String, questionID: String, points: Double) async throws -> Bool {
        try await base.grade(attemptID: attemptID, questionID: questionID, points: points)
    }
    func release(assessmentID: String, now: Date) async throws -> Bool { try await base.release(assessmentID: assessmentID, now: now) }
    func sealing(assessmentID: String, version: Int) async throws -> SealingMaterial? {
        try await base.sealing(assessmentID: assessmentID, version: version)
    }
    func storeSealing(assessmentID: String, version: Int, material: SealingMaterial) async throws -> SealingMaterial {
        try await base.storeSealing(assessmentID: assessmentID, version: version, material: material)
    }
    func setAccommodation(assessmentID: String?, user: String, extraMinutes: Int) async throws {
        try await base.setAccommodation(assessmentID: assessmentID, user: user, extraMinutes: extraMinutes)
    }
    func extraMinutes(assessmentID: String, user: String) async throws -> Int {
        try await base.extraMinutes(assessmentID: assessmentID, user: user)
    }
    func studentDraw(assessmentID: String, version: Int, user: String, now: Date) async throws -> Draw {
        try await base.studentDraw(assessmentID: assessmentID, version: version, user: user, now: now)
    }
    func draws(assessmentID: String) async throws -> [String: Draw] {
        try await base.draws(assessmentID: assessmentID)
    }
    func keepRecord(_ record: StoredAttemptRecord) async throws { try await base.keepRecord(record) }
    func setting(_ setting: ServerSetting) async throws -> String { try await base.setting(setting) }
    func setSetting(_ setting: ServerSetting, to value: String) async throws { try await base.setSetting(setting, to: value) }
    func classroomLink() async throws -> ClassroomLink? { try await base.classroomLink() }
    func setClassroomLink(_ link: ClassroomLink) async throws { try await base.setClassroomLink(link) }
    func notePulled(at: Date, group: String?) async throws { try await base.notePulled(at: at, group: group) }
    func notePushed(at: Date) async throws { try await base.notePushed(at: at) }
    func noteResults(at: Date) async throws { try await base.noteResults(at: at) }
    func keepForUpstream(_ items: [UpstreamItem], now: Date) async throws { try await base.keepForUpstream(items, now: now) }
    func upstreamWaiting(limit: Int) async throws -> [UpstreamItem] { try await base.upstreamWaiting(limit: limit) }
    func settleUpstream(_ results: [ClassroomPushResponse.Result], now: Date) async throws { try await base.settleUpstream(results, now: now) }
    func upstreamSummary() async throws -> UpstreamSummary { try await base.upstreamSummary() }
    func vouchedKeys(users: Set<String>) async throws -> [ClassroomPushRequest.Vouch] { try await base.vouchedKeys(users: users) }
    func upstreamReceipts(user: String) async throws -> [SubmissionReceipt] { try await base.upstreamReceipts(user: user) }
    func upstreamRefusals(user: String) async throws -> [ClassroomRefusal] { try await base.upstreamRefusals(user: user) }
    func adoptDraw(_ draw: ClassroomPull.PulledDraw, now: Date) async throws -> Bool { try await base.adoptDraw(draw, now: now) }
    func noteThroughClassroom(_ classroom: String, attemptID: String) async throws {
        try await base.noteThroughClassroom(classroom, attemptID: attemptID)
    }
    func importClass(_ pull: ClassroomPull, now: Date) async throws { try await base.importClass(pull, now: now) }
    func replaceClosingHandIn(attemptID: String, madeAt: Date, listed: [String], now: Date) async throws -> [String: Double]? {
        try await base.replaceClosingHandIn(attemptID: attemptID, madeAt: madeAt, listed: listed, now: now)
    }
    func classResults(teacher: String, admin: Bool) async throws -> ClassroomResults {
        try await base.classResults(teacher: teacher, admin: admin)
    }
    func importResults(_ results: ClassroomResults, now: Date) async throws -> ResultsBroughtDown {
        try await base.importResults(results, now: now)
    }
    func classExport(teacher: String, admin: Bool, group: String?, now: Date) async throws -> ClassroomPull {
        try await base.classExport(teacher: teacher, admin: admin, group: group, now: now)
    }
    func classDocument(id: String, version: Int) async throws -> ClassroomPull.PulledDocument? {
        try await base.classDocument(id: id, version: version)
    }
    func storeFacts() async -> ServerStatus.Store { await base.storeFacts() }
    func createChallenge(_ challenge: String, user: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await base.createChallenge(challenge, user: user, expiresAt: expiresAt, now: now)
    }
    func takeChallenge(_ challenge: String, user: String, now: Date) async throws -> Bool {
        try await base.takeChallenge(challenge, user: user, now: now)
    }
    func createEnrolment(secretHash: String, scope: EnrolmentScope, now: Date) async throws {
        try await base.createEnrolment(secretHash: secretHash, scope: scope, now: now)
    }
    func replaceEnrolments(secretHash: String, scope: EnrolmentScope, now: Date) async throws {
        try await base.replaceEnrolments(secretHash: secretHash, scope: scope, now: now)
    }
    func packageEnrolments(assessmentID: String, now: Date) async throws -> [(user: String, secretHash: String, expiresAt: Date)] {
        try await base.packageEnrolments(assessmentID: assessmentID, now: now)
    }
    func checkEnrolment(secretHash: String, user: String, deviceKey: String) async throws -> (claim: EnrolmentClaim, scope: EnrolmentScope?) {
        try await base.checkEnrolment(secretHash: secretHash, user: user, deviceKey: deviceKey)
    }
    func claimEnrolment(
        secretHash: String,
        user: String,
        deviceKey: String,
        origin: DeviceKeyRecord.Origin,
        handedIn attemptID: String?,
        now: Date
    ) async throws -> EnrolmentClaim {
        try await base.claimEnrolment(secretHash: secretHash, user: user, deviceKey: deviceKey, origin: origin, handedIn: attemptID, now: now)
    }
    func records(assessmentID: String, user: String?) async throws -> [StoredAttemptRecord] {
        try await base.records(assessmentID: assessmentID, user: user)
    }
}

struct BackpressureTests {
    @Test(
        "a flood of batches: the bound admits some, a short queue the next ones a moment later, the rest get 429 with Retry-After; retrying converges with every answer stored once",
        arguments: Backend.all
    )
    func floodGets429(backend: Backend) async throws {
        let harness = try await ServerHarness(backend)
        var configuration = harness.configuration
        configuration.maxUploadsInFlight = 2
        configuration.uploadQueueLimit = 2
        configuration.uploadQueueWait = .seconds(10)
        let storage = SlowStorage(base: harness.storage, delay: .milliseconds(400))
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let app = try buildApplication(storage: storage, configuration: configuration, logger: logger)
        try await app.test(.router) { client in
            let api = APIClient(client: client)
            let teacher = try await api.token("teacher")
            let student = try await api.token("student")
            try await api.publish(Fixtures.quiz(), teacher: teacher)
            let served = try await api.served("quiz-1", token: student)
            let batches = (0..<6).map { index in
                [Fixtures.item(served, question: "q3", answer: .bool(index % 2 == 0), attempt: "attempt-\(index)")]
            }
            // All six at once: two are admitted, two wait in the queue and are admitted when a place frees (each
            // batch takes 400 ms here), and two find the queue full and are told to come back.
            let first = try await withThrowingTaskGroup(of: (Int, APIClient.Reply).self) { group in
                for (index, batch) in batches.enumerated() {
                    group.addTask { (index, try await api.send(.post, APIPath.batch, token: student, json: BatchRequest(responses: batch))) }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            let refused = first.filter { $0.value.status == .tooManyRequests }
            #expect(first.values.filter { $0.status == .ok }.count == 4)
            #expect(refused.count == 2)
            #expect(refused.values.allSatisfy { $0.headers[.retryAfter] == "1" && $0.errorCode == "busy" })
            // A client honouring Retry-After sends the refused ones again; everything is stored exactly once.
            for index in refused.keys.sorted() {
                let reply = try await api.send(.post, APIPath.batch, token: student, json: BatchRequest(responses: batches[index]))
                #expect(reply.status == .ok)
            }
            for batch in batches {
                let again = try await api.send(.post, APIPath.batch, token: student, json: BatchRequest(responses: batch))
                #expect(try again.decode(BatchResponse.self).results.map(\.status) == [.duplicate])
            }
            let received = try await api.send(.get, APIPath.responses("quiz-1"), token: teacher).decode(ReceivedResponses.self)
            #expect(received.responses.count == 6)
        }
    }
}

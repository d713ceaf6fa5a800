import Foundation
import ServiceLifecycle
import VaultAPI
import VaultRules

/// A user account; the password is stored only as a salted PBKDF2 hash.
public struct UserRecord: Sendable, Equatable {
    public var name: String
    public var role: Role
    public var passwordHash: String
    public var salt: String
    public var iterations: Int
    /// A class or group the roster can show on its own ("7b").
    public var group: String?
    /// Turned off: the password is refused and no session lasts.
    public var disabled: Bool

    public init(name: String, role: Role, passwordHash: String, salt: String, iterations: Int, group: String? = nil, disabled: Bool = false) {
        self.group = group
        self.disabled = disabled
        self.name = name
        self.role = role
        self.passwordHash = passwordHash
        self.salt = salt
        self.iterations = iterations
    }
}

/// Where the server keeps everything: the embedded SQLite store (the default) or PostgreSQL (a district's several
/// server processes on one database).
///
/// The rules (duplicate, ownership, gone, outdated, supersede, receipts) are not here: they are `BatchPlan` and
/// `SubmissionPlan` (VaultRules), pure functions over facts a store reads. A store offers each of them one
/// transaction that reads the facts, runs the rules and writes the outcome. SQLite: `BEGIN IMMEDIATE`, one writer at
/// a time across processes. PostgreSQL: submissions and publishing `SERIALIZABLE`; batches `READ COMMITTED`, safe
/// because every race they can lose ends in a unique-key violation (response id, one current answer per attempt and
/// question, attempt owner) and a retry that reads the winner. Exactly once follows from those keys and
/// transactions, in one process or many.
///
/// A store is a service: `run()` keeps its connections (a pool for PostgreSQL) until graceful shutdown. It plays every
/// role below; a service asks for the roles it uses.
public protocol ServerStorage: Service, AccountStore, PublishingStore, ResponseStore, KeyStore, DeskStore, ClassroomStore {}

/// Accounts and their tokens: who may sign in, and the vaults' device keys.
public protocol AccountStore: Sendable {
    func createUser(_ user: UserRecord, now: Date) async throws
    func user(named name: String) async throws -> UserRecord?
    /// Keeps a token by its hash; `classroom`: the fingerprint of the classroom server's key it was issued to (a
    /// classroom's token, good for its pulls and pushes only, and only while that key is not revoked).
    func storeToken(hash: String, user: String, expiresAt: Date, classroom: String?) async throws
    func tokenOwner(hash: String, now: Date) async throws -> TokenOwner?
    /// Replaces a user's password hash (raising an older hash to the current cost).
    func updatePassword(_ user: UserRecord) async throws
    /// Revokes one token (logout): it is deleted, so it is unknown from then on.
    func revokeToken(hash: String) async throws
    /// Revokes every token of `user` (a new password signs every session out) and, in the same transaction, the
    /// classroom servers' keys of that account (issue 69: a classroom lives by its teacher's password).
    func revokeTokens(user: String, now: Date) async throws
    /// Turns an account off (its sessions and classroom keys revoked in the same transaction, so turning it on again
    /// does not bring a stolen classroom back) or on again; false when there is none.
    func setDisabled(user: String, disabled: Bool, now: Date) async throws -> Bool
    /// Deletes tokens that expired before `now`.
    func purgeExpiredTokens(now: Date) async throws
    /// Registers a vault's public signing key to `user`, saying how it came; false when the key is another user's, or
    /// was revoked (a revoked key comes back only by its own student's password sign-in, `origin` `.signIn`).
    func registerDeviceKey(user: String, publicKey: String, origin: DeviceKeyRecord.Origin, detail: String?, now: Date) async throws -> Bool
    /// Whether `publicKey` could speak for `user`: nobody holds it, or `user` does and it is not revoked.
    func registerableKey(_ publicKey: String, for user: String) async throws -> Bool
    /// Every device key of `user`, live and revoked, with how each came (issue 68).
    func deviceKeyRecords(user: String) async throws -> [DeviceKeyRecord]
    /// Revokes `user`'s live key named by its key or fingerprint, or every one (`key` nil); how many it revoked.
    func revokeDeviceKeys(user: String, key: String?, by actor: String, now: Date) async throws -> Int
    /// When a key last signed in.
    func noteDeviceKeyUsed(publicKey: String, now: Date) async throws
    /// The public signing keys registered to `user`.
    func deviceKeys(user: String) async throws -> [String]
    /// Every classroom server's key at this district, live and revoked, with its teacher (issue 69).
    func classroomKeys() async throws -> [DeviceKeyRecord]
    /// Keeps a one-time sign-in challenge for `user` until `expiresAt` (issue 58); expired ones are dropped. False
    /// when too many are open at once (nothing stored).
    func createChallenge(_ challenge: String, user: String, expiresAt: Date, now: Date) async throws -> Bool
    /// Takes a challenge once: true when it was `user`'s and unexpired (it is gone either way).
    func takeChallenge(_ challenge: String, user: String, now: Date) async throws -> Bool
}

/// Who holds a token: the account, its role, and for a classroom server's token the fingerprint of its key.
public struct TokenOwner: Sendable, Equatable {
    public var user: String
    public var role: Role
    /// Set for a token a classroom server's own key signed in for (issue 69): it pulls and pushes for that classroom
    /// and nothing else, and stops the moment the key is revoked.
    public var classroom: String?

    public init(user: String, role: Role, classroom: String? = nil) {
        self.user = user
        self.role = role
        self.classroom = classroom
    }
}

extension AccountStore {
    /// A person's token.
    public func storeToken(hash: String, user: String, expiresAt: Date) async throws {
        try await storeToken(hash: hash, user: user, expiresAt: expiresAt, classroom: nil)
    }
}

/// Assessments as teachers publish them: versions, owners and co-teachers, the catalog, served bytes, sealing.
public protocol PublishingStore: Sendable {
    /// Publishes or updates; the version grows only when the content changes. With a `publisher`, one transaction
    /// also applies `Ownership.mayPublish` (`StorageError.notPermitted` otherwise) and makes them the owner of a new
    /// assessment; nil is the server's own command line.
    func publish(_ assessment: Assessment, now: Date, by publisher: Publisher?) async throws -> PublishResponse
    /// The standing of `teacher` on an assessment: owner, co-teacher, or nil (none, or no such assessment).
    func teacherAccess(assessmentID: String, teacher: String) async throws -> TeacherAccess?
    /// Whether `student` is one of `teacher`'s students: they downloaded, answered, hold a package of, or have extra
    /// time on an assessment the teacher owns or shares, or they are in a group one of those students is in.
    func teaches(teacher: String, student: String) async throws -> Bool
    /// The ids `teacher` owns or shares.
    func sharedAssessmentIDs(teacher: String) async throws -> Set<String>
    /// The owner and co-teachers of an assessment, by name.
    func assessmentTeachers(assessmentID: String) async throws -> [String: TeacherAccess]
    /// Adds `teacher` as a co-teacher (or removes them); see `ShareOutcome`.
    func share(assessmentID: String, teacher: String, remove: Bool) async throws -> ShareOutcome
    func delete(id: String, now: Date) async throws -> Bool
    func catalog() async throws -> [CatalogEntry]
    /// The served bytes, hash and number of the current version, or nil when unknown or deleted.
    func served(id: String) async throws -> (bytes: Data, contentHash: String, version: Int)?
    /// The sealing of a published version, or nil before it was made.
    func sealing(assessmentID: String, version: Int) async throws -> SealingMaterial?
    /// Stores `material` unless the version has one already (another process was first); returns the stored one.
    func storeSealing(assessmentID: String, version: Int, material: SealingMaterial) async throws -> SealingMaterial
}

/// What students send: answer batches and hand-ins (each one transaction over `BatchPlan` / `SubmissionPlan`), downloads, refusals, the attempts a student holds on the server.
public protocol ResponseStore: Sendable {
    /// One transaction: `BatchPlan` over the facts read inside it, its writes applied in it. `device`: the sending
    /// vault's id, when it said (the roster's devices per attempt).
    func recordBatch(_ items: [ResponseItem], user: String, device: String?, now: Date) async throws -> [ItemResult]
    /// What `recordBatch` would answer, writing nothing (an import judges a whole file before storing any of it).
    func judgeBatch(_ items: [ResponseItem], user: String, now: Date) async throws -> [ItemResult]
    /// One transaction: `SubmissionPlan` over the facts read inside it; `via` says how it reached the server, `madeAt`
    /// when the student made it (believed: `ClosingHandIn.believableHandInTime`), by which it is late or not.
    func submit(_ request: SubmissionRequest, user: String, via: SubmissionChannel, now: Date, madeAt: Date?) async throws -> SubmissionOutcome
    /// Removes the hand-in the server made of `attemptID` at closing when the student's own, made at `madeAt` (before
    /// that closing) and listing only answers the server holds (`listed`), arrives after it: the answers the student
    /// gave until then count again, and the history says so. Nil when there was none to replace; else the teacher's
    /// points on it that carry to the student's own (questions whose answer does not change), to be given again once
    /// that is stored: the student's own then goes in as an on-time hand-in (issue 67).
    func replaceClosingHandIn(attemptID: String, madeAt: Date, listed: [String], now: Date) async throws -> [String: Double]?
    func received(assessmentID: String) async throws -> ReceivedResponses?
    /// `user`'s own attempts of an assessment that have answers on the server, with their current answers, oldest
    /// first; nothing of anyone else's.
    func heldAttempts(user: String, assessmentID: String) async throws -> [HeldAttempt]
    /// Records refused hand-ins (each replaces the student's earlier refusal on that assessment).
    func recordRefusals(_ refusals: [RosterFacts.Refusal]) async throws
    /// Records that `user` fetched `version` of an assessment (the roster's "downloaded").
    func recordDownload(assessmentID: String, version: Int, user: String, now: Date, classroom: String?) async throws
    /// The extra minutes `user` has on `assessmentID`: its own setting, else the user's default, else 0.
    func extraMinutes(assessmentID: String, user: String) async throws -> Int
    /// `user`'s draw of `version` of an assessment with pools or shuffling: made once (their first download of it)
    /// and kept; a later version keeps what it still has (`DrawPlan`).
    func studentDraw(assessmentID: String, version: Int, user: String, now: Date) async throws -> Draw
    /// Every student's draw of an assessment, by user (none for an assessment without pools or shuffling).
    func draws(assessmentID: String) async throws -> [String: Draw]
    /// Keeps a package's one-time enrolment secret (its SHA-256) for `user` (issue 57).
    func createEnrolment(secretHash: String, scope: EnrolmentScope, now: Date) async throws
    /// A package that replaces the student's earlier ones of the same assessment (issue 68: the remedy for a lost or
    /// copied stick), in one transaction: they end now, the keys they bound are revoked, the history says so.
    func replaceEnrolments(secretHash: String, scope: EnrolmentScope, now: Date) async throws
    /// Each student's latest package enrolment of an assessment still valid at `now` (issue 68: the desk shows its slip
    /// code again, derived, never stored): by user, its secret's hash and its expiry.
    func packageEnrolments(assessmentID: String, now: Date) async throws -> [(user: String, secretHash: String, expiresAt: Date)]
    /// A hand-in's claim to be `user`'s through their package's secret: binds `deviceKey` the first time.
    func claimEnrolment(
        secretHash: String,
        user: String,
        deviceKey: String,
        origin: DeviceKeyRecord.Origin,
        handedIn attemptID: String?,
        now: Date
    ) async throws
        -> EnrolmentClaim
    /// What `claimEnrolment` would say, and the enrolment's scope, writing nothing.
    func checkEnrolment(secretHash: String, user: String, deviceKey: String) async throws -> (claim: EnrolmentClaim, scope: EnrolmentScope?)
    /// A school's setting (issue 59), its default when never set.
    func setting(_ setting: ServerSetting) async throws -> String
    func setSetting(_ setting: ServerSetting, to value: String) async throws
    /// The store's engine, size and state, for the status page.
    func storeFacts() async -> ServerStatus.Store
    /// Keeps one device's record of an attempt (issue 55); a later upload of the same device's record replaces it.
    func keepRecord(_ record: StoredAttemptRecord) async throws
    /// The records of an assessment's attempts, one student's or every one's.
    func records(assessmentID: String, user: String?) async throws -> [StoredAttemptRecord]
}

/// The server's identity and what its receipts state.
public protocol KeyStore: Sendable {
    /// The server's identity (`ServerIdentity.material`), made by `generate` when none is stored. Whichever process
    /// asks first stores it (insert if absent, then read), so every process of a deployment reads the same.
    func serverIdentityMaterial(generate: @Sendable () -> Data) async throws -> Data
    /// The content hash of the submitted version and the attempt's current answers; nil when it was not submitted.
    func receiptMaterial(attemptID: String) async throws -> ReceiptMaterial?
    /// Stores `signed` as the attempt's receipt unless one is stored already; returns the stored one.
    func attachReceipt(attemptID: String, signed: SignedReceipt) async throws -> SignedReceipt
}

/// The teacher's desk: rosters, results, grades and feedback, closing and releasing, extra time.
public protocol DeskStore: Sendable {
    /// An attempt's answers that do not count (replaced by a later one, or given after its hand-in), by question
    /// and time: the superseded history the teacher's answer sheet shows.
    func replacedAnswers(attemptID: String) async throws -> [ReplacedAnswer]
    /// What the results of submitted attempts are computed from, narrowed to a user, an assessment and/or some
    /// attempts (the desk acting on one attempt, or showing a page of 200, reads those, not the class).
    func resultInputs(user: String?, assessmentID: String?, attemptIDs: [String]?) async throws -> [ResultInput]
    /// The teacher's points for a question of a submitted attempt (over the automatic ones); false when the attempt
    /// was not submitted or its version has no such question.
    func grade(attemptID: String, questionID: String, points: Double) async throws -> Bool
    /// Releases an assessment's results (scores and correct answers) to its students; false when there is none.
    func release(assessmentID: String, now: Date) async throws -> Bool
    /// Closes an assessment at `at` (now or later; a later close replaces an earlier one); false when there is none.
    func close(assessmentID: String, at: Date) async throws -> Bool
    /// Closes, reopens, releases or hides results, and records who did it and when, in one transaction; false when
    /// there is no such assessment (nothing recorded).
    func apply(_ change: AssessmentChange, assessmentID: String, by actor: String, at: Date) async throws -> Bool
    /// Regrades the hand-ins scored by earlier versions against the current version (`RegradePlan`), or with
    /// `apply: false` only says what that would change; nil when there is no such assessment.
    func regrade(assessmentID: String, apply: Bool, by actor: String, at: Date) async throws -> RegradePlan.Outcome?
    /// The actions recorded on an assessment, oldest first.
    func actions(assessmentID: String) async throws -> [AssessmentAction]
    /// The teacher's decision on a submission that arrived after closing (nil: undone, undecided again), with a
    /// history line naming the student when `actor` is given; false when the attempt has no such submission.
    func decideLate(attemptID: String, decision: LateDecision?, by actor: String?, at: Date) async throws -> Bool
    /// The teacher's written feedback on one answer of a submitted attempt (nil removes it); false when the attempt
    /// is not submitted or its version has no such question.
    func setFeedback(attemptID: String, questionID: String, text: String?) async throws -> Bool
    /// What the roster of one assessment is built from, read in one transaction with a fixed number of queries;
    /// nil when the assessment is unknown or deleted.
    /// `detail: .summary` leaves the answers and feedback out of `results` (states, counts and flags need none; the
    /// rows a page shows are scored from `resultInputs(attemptIDs:)`). `users`: only these users' rows, at most 500
    /// (the export reads a class a chunk at a time); nil: everyone.
    func rosterFacts(assessmentID: String, group: String?, detail: ResultDetail, users: [String]?) async throws -> RosterFacts?
    /// Everyone the roster of `group` lists, in its order (`RosterFacts.members`): names and groups only.
    func rosterMembers(assessmentID: String, group: String?) async throws -> [RosterFacts.Student]
    /// When each closed (or closing) assessment closes, seconds since 1970: the closing sweeper's one light read.
    func closings() async throws -> [String: Double]
    /// Every assessment's counts for the Assessments page, in a constant number of statements.
    func assessmentOverview() async throws -> AssessmentOverview
    /// Extra minutes for `user` on `assessmentID` (nil: the user's default for every timed assessment).
    func setAccommodation(assessmentID: String?, user: String, extraMinutes: Int) async throws
}

/// What `share` did.
public enum ShareOutcome: Sendable, Equatable {
    case shared, removed
    /// Nothing was changed: no such assessment, no such teacher, or the owner named with `--remove`.
    case noAssessment, noTeacher, cannotRemoveOwner
}

extension PublishingStore {
    /// Publishing by the server's own command line (an administrator's rights; no owner).
    public func publish(_ assessment: Assessment, now: Date) async throws -> PublishResponse {
        try await publish(assessment, now: now, by: nil)
    }
}

extension ResponseStore {
    /// A submission from a vault (`POST /v1/submissions`).
    public func submit(_ request: SubmissionRequest, user: String, now: Date) async throws -> SubmissionOutcome {
        try await submit(request, user: user, via: .sync, now: now, madeAt: nil)
    }

    /// A hand-in judged by when it arrived (`now`).
    public func submit(_ request: SubmissionRequest, user: String, via: SubmissionChannel, now: Date) async throws -> SubmissionOutcome {
        try await submit(request, user: user, via: via, now: now, madeAt: nil)
    }
}

/// Why a store could not do what was asked. Messages name the thing, never a password or an answer.
public enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `user add` for a name that is taken.
    case userExists(String)
    /// The database cannot be reached or refused us (PostgreSQL down, bad credentials, a full disk).
    case unavailable(String)
    /// A transaction kept losing to concurrent ones past its retries.
    case tooMuchContention
    /// What is stored cannot be read back (a damaged row).
    case damaged(String)
    /// A `--database` value that is not usable.
    case badLocation(String)
    /// The assessment belongs to other teachers (routes answer 404: its existence is not revealed).
    case notPermitted(String)
    /// The database refused a statement for a reason that will not pass by itself; its SQLSTATE, never the data.
    case refused(sqlState: String)

    /// A failure that may be gone a moment later (the database down or out of connections, contention): routes
    /// answer 503 with Retry-After.
    public var isTemporary: Bool {
        switch self {
        case .unavailable, .tooMuchContention: true
        default: false
        }
    }

    /// What the log says of it: the kind, and for the database its own words (a SQLSTATE, a host), never data.
    public var logCause: String {
        switch self {
        case .userExists: "user_exists"
        case .unavailable(let why): "unavailable: \(why)"
        case .tooMuchContention: "too_much_contention"
        case .damaged(let what): "damaged: \(what)"
        case .badLocation: "bad_location"
        case .notPermitted: "not_permitted"
        case .refused(let state): "refused: SQLSTATE \(state)"
        }
    }

    public var description: String {
        switch self {
        case .userExists(let name): "A user called \(name) already exists."
        case .unavailable(let why): "The database is not available: \(why)."
        case .tooMuchContention: "The database is too busy right now; try again."
        case .damaged(let what): "Stored data cannot be read: \(what)."
        case .badLocation(let why): why
        case .notPermitted(let id): "There is no assessment \(id) of yours; nothing was changed."
        case .refused(let state): "The database refused the request (SQLSTATE \(state))."
        }
    }
}

extension ServerStorage {
    /// Every submitted attempt of a user and/or an assessment.
    public func resultInputs(user: String?, assessmentID: String?) async throws -> [ResultInput] {
        try await resultInputs(user: user, assessmentID: assessmentID, attemptIDs: nil)
    }

    /// The roster's facts with every answer.
    public func rosterFacts(assessmentID: String, group: String?) async throws -> RosterFacts? {
        try await rosterFacts(assessmentID: assessmentID, group: group, detail: .answers, users: nil)
    }

    /// The roster's facts of everyone.
    public func rosterFacts(assessmentID: String, group: String?, detail: ResultDetail) async throws -> RosterFacts? {
        try await rosterFacts(assessmentID: assessmentID, group: group, detail: detail, users: nil)
    }
}

/// How much of each submitted attempt a read brings.
public enum ResultDetail: Sendable {
    /// Records, documents, grades, answers and feedback: enough to score.
    case answers
    /// Records, documents and grades only: enough for states, counts and flags.
    case summary
}

extension ServerStorage {
    /// A batch from a vault that names no device.
    public func recordBatch(_ items: [ResponseItem], user: String, now: Date) async throws -> [ItemResult] {
        try await recordBatch(items, user: user, device: nil, now: now)
    }
}

extension DeskStore {
    /// A decision with no history line (the server's command line, tests).
    public func decideLate(attemptID: String, decision: LateDecision) async throws -> Bool {
        try await decideLate(attemptID: attemptID, decision: decision, by: nil, at: Date())
    }
}

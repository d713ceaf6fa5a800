import Foundation

/// `GET /v1/health`
public struct HealthResponse: Codable, Sendable, Equatable {
    public var status: String
    public var api: String
    /// Whether the school wants the vaults' own counts with a sync (`POST /v1/client-stats`); absent or false: off,
    /// and a vault sends nothing of them.
    public var clientStats: Bool?
    /// A classroom server (issue 58), which passes what it stores on to its district: a vault signs each answer it
    /// sends there with its key. Absent or false: a district's own server.
    public var classroom: Bool?
    enum CodingKeys: String, CodingKey {
        case status, api, classroom
        case clientStats = "client_stats"
    }
    public init(status: String = "ok", api: String = "v1", clientStats: Bool? = nil, classroom: Bool? = nil) {
        self.status = status
        self.api = api
        self.clientStats = clientStats
        self.classroom = classroom
    }
}

/// What this vault counts of its own use (issue 59): the figures the design names (offline completion, offline
/// session durations, sync successes and failures, conflicts, cache hits and misses, evictions, time in the queue),
/// as plain counts: no id, no name, no answer. `vault stats` shows them; a sync sends what is new of them only when
/// the school turned client stats on.
public enum ClientStat: String, CaseIterable, Sendable, Codable {
    /// Attempts submitted here, and those submitted while the vault's last word on the network was "offline".
    case attemptsSubmitted = "attempts_submitted"
    case attemptsSubmittedOffline = "attempts_submitted_offline"
    /// Take screens closed while offline, and their time together (milliseconds).
    case offlineSessions = "offline_sessions"
    case offlineSessionMilliseconds = "offline_session_ms"
    case syncSuccesses = "sync_successes"
    case syncFailures = "sync_failures"
    /// Answers the server found on another version of the assessment (they wait for the student).
    case conflicts
    /// An assessment opened from the cache, and one asked for that was not there.
    case cacheHits = "cache_hits"
    case cacheMisses = "cache_misses"
    /// Cached versions removed to make room or by `vault evict`.
    case evictions
    /// Answers the server acknowledged, and the time they waited in the queue together (milliseconds).
    case answersUploaded = "answers_uploaded"
    case queueMilliseconds = "queue_ms"
}

/// `POST /v1/client-stats`: what a vault counted of its own use since its last report, by name (`vault stats`'s
/// names): counts only, never an id, a name or an answer. Taken only while the school has client stats on.
public struct ClientStatsReport: Codable, Sendable, Equatable {
    public var counts: [String: Int]
    public init(counts: [String: Int]) { self.counts = counts }

    /// The names a report may carry (`ClientStat`'s), so a label never holds anything else.
    public static let names = Set(ClientStat.allCases.map(\.rawValue))
    /// The most one report may add to a count (a day of a busy vault is far below it).
    public static let maxAmount = 100_000_000
}

/// `POST /v1/auth/token`
public struct TokenRequest: Codable, Sendable {
    public var user: String
    public var password: String
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

/// Who a user is. An administrator acts on every assessment (a district's shared server); a teacher on those they own
/// or that were shared with them.
public enum Role: String, Codable, Sendable, CaseIterable {
    case student, teacher, admin

    /// Teachers and administrators: the desk, publishing, grading.
    public var teaches: Bool { self != .student }
}

public struct TokenResponse: Codable, Sendable {
    public var token: String
    public var expiresAt: String
    public var role: Role
    enum CodingKeys: String, CodingKey {
        case token, role
        case expiresAt = "expires_at"
    }
    public init(token: String, expiresAt: String, role: Role) {
        self.token = token
        self.expiresAt = expiresAt
        self.role = role
    }
}

/// One row of `GET /v1/assessments`.
public struct CatalogEntry: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var version: Int
    public var contentHash: String
    public var sizeBytes: Int
    public var updatedAt: String
    public var notAfter: String?
    /// A sealed exam (its questions open with the start code) and when it opens.
    public var sealed: Bool?
    public var opensAt: String?
    enum CodingKeys: String, CodingKey {
        case id, title, version, sealed
        case contentHash = "content_hash"
        case sizeBytes = "size_bytes"
        case updatedAt = "updated_at"
        case notAfter = "not_after"
        case opensAt = "opens_at"
    }
    public init(
        id: String,
        title: String,
        version: Int,
        contentHash: String,
        sizeBytes: Int,
        updatedAt: String,
        notAfter: String?,
        sealed: Bool? = nil,
        opensAt: String? = nil
    ) {
        self.sealed = sealed
        self.opensAt = opensAt
        self.id = id
        self.title = title
        self.version = version
        self.contentHash = contentHash
        self.sizeBytes = sizeBytes
        self.updatedAt = updatedAt
        self.notAfter = notAfter
    }
}

public struct CatalogResponse: Codable, Sendable {
    public var assessments: [CatalogEntry]
    public init(assessments: [CatalogEntry]) { self.assessments = assessments }
}

/// `PUT /v1/assessments/{id}`
public struct PublishResponse: Codable, Sendable {
    public var id: String
    public var version: Int
    public var contentHash: String
    public var changed: Bool
    enum CodingKeys: String, CodingKey {
        case id, version, changed
        case contentHash = "content_hash"
    }
    public init(id: String, version: Int, contentHash: String, changed: Bool) {
        self.id = id
        self.version = version
        self.contentHash = contentHash
        self.changed = changed
    }
}

/// One answer as uploaded.
public struct ResponseItem: Codable, Sendable, Equatable {
    public var id: String
    public var attemptId: String
    public var assessmentId: String
    public var assessmentVersion: Int
    public var questionId: String
    public var questionHash: String
    public var answer: JSONValue
    public var timeSpentMs: Int
    public var answeredAt: String
    public var force: Bool
    /// When the attempt's clock started on the device (ISO 8601, UTC): the teacher's roster shows "started at" and,
    /// for a timed test, the time left while the student is still answering. The device's word, like `answered_at`;
    /// the first value the server receives for an attempt stands. Absent from older clients.
    public var attemptStartedAt: String?
    /// The vault key's Ed25519 signature (base64) over `AnswerSignature.statement` (issue 58), made as the batch goes:
    /// a classroom server passes the answer on to the district, which verifies it against the student's registered
    /// key, so nobody between the student and the district can invent or change it. Absent from older vaults.
    public var signature: String?

    /// The wire names, in one place: `JSONReader`'s fast path reads exactly these (it switches over them with no
    /// default, so a field added here does not compile until the fast path reads it too).
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, answer, force, signature
        case attemptId = "attempt_id"
        case assessmentId = "assessment_id"
        case assessmentVersion = "assessment_version"
        case questionId = "question_id"
        case questionHash = "question_hash"
        case timeSpentMs = "time_spent_ms"
        case answeredAt = "answered_at"
        case attemptStartedAt = "attempt_started_at"
    }

    public init(
        id: String,
        attemptId: String,
        assessmentId: String,
        assessmentVersion: Int,
        questionId: String,
        questionHash: String,
        answer: JSONValue,
        timeSpentMs: Int,
        answeredAt: String,
        force: Bool = false,
        attemptStartedAt: String? = nil,
        signature: String? = nil
    ) {
        self.signature = signature
        self.id = id
        self.attemptId = attemptId
        self.assessmentId = assessmentId
        self.assessmentVersion = assessmentVersion
        self.questionId = questionId
        self.questionHash = questionHash
        self.answer = answer
        self.timeSpentMs = timeSpentMs
        self.answeredAt = answeredAt
        self.force = force
        self.attemptStartedAt = attemptStartedAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        attemptId = try container.decode(String.self, forKey: .attemptId)
        assessmentId = try container.decode(String.self, forKey: .assessmentId)
        assessmentVersion = try container.decode(Int.self, forKey: .assessmentVersion)
        questionId = try container.decode(String.self, forKey: .questionId)
        questionHash = try container.decode(String.self, forKey: .questionHash)
        answer = try container.decode(JSONValue.self, forKey: .answer)
        timeSpentMs = try container.decodeIfPresent(Int.self, forKey: .timeSpentMs) ?? 0
        answeredAt = try container.decode(String.self, forKey: .answeredAt)
        force = try container.decodeIfPresent(Bool.self, forKey: .force) ?? false
        attemptStartedAt = try container.decodeIfPresent(String.self, forKey: .attemptStartedAt)
        signature = try container.decodeIfPresent(String.self, forKey: .signature)
    }
}

/// `POST /v1/responses/batch`
public struct BatchRequest: Codable, Sendable {
    public var responses: [ResponseItem]
    /// The sending vault's device id (random, made once per vault): the roster counts the devices an attempt was
    /// answered on and when each was last seen. Optional (older vaults send none).
    public var device: String?
    /// The vault's public signing key (raw Ed25519, base64) whose signatures the items carry (issue 58).
    public var deviceKey: String?
    enum CodingKeys: String, CodingKey {
        case responses, device
        case deviceKey = "device_key"
    }
    public init(responses: [ResponseItem], device: String? = nil, deviceKey: String? = nil) {
        self.responses = responses
        self.device = device
        self.deviceKey = deviceKey
    }

    /// A device id: 8 to 64 of a-z, 0-9 and '-'.
    public static func isValidDevice(_ id: String) -> Bool {
        (8...64).contains(id.utf8.count) && id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }
}

public enum ItemStatus: String, Codable, Sendable, CaseIterable {
    case accepted, duplicate, superseded, conflict, gone, rejected
}

public struct ItemResult: Codable, Sendable, Equatable {
    public var id: String
    public var status: ItemStatus
    public var currentVersion: Int?
    public var message: String?
    enum CodingKeys: String, CodingKey {
        case id, status, message
        case currentVersion = "current_version"
    }
    public init(id: String, status: ItemStatus, currentVersion: Int? = nil, message: String? = nil) {
        self.id = id
        self.status = status
        self.currentVersion = currentVersion
        self.message = message
    }
}

public struct BatchResponse: Codable, Sendable {
    public var results: [ItemResult]
    public init(results: [ItemResult]) { self.results = results }
}

/// `POST /v1/submissions`
public struct SubmissionRequest: Codable, Sendable, Equatable {
    public var attemptId: String
    public var assessmentId: String
    public var assessmentVersion: Int
    public var submittedAt: String
    public var responseIds: [String]
    public var force: Bool?
    /// A timed attempt: when its questions were first seen, the time used, and how far the device's wall clock was
    /// seen going back during it (0 when it never was).
    public var startedAt: String?
    public var timeUsedMs: Int?
    public var clockMovedBackMs: Int?
    /// A sealed exam: when the student unsealed it.
    public var unsealedAt: String?
    /// The attempt's current answers as the vault holds them (one per question): the server refuses a submission
    /// whose set differs from what it holds, and the receipt names exactly this set.
    public var answers: [SubmittedAnswer]?
    /// The attempt's own record from this device (issue 55), signed by the vault key; optional (older vaults).
    public var record: AttemptLogUpload?
    /// The vault key (raw Ed25519, base64) and its signature over `signedStatement` (issue 58): what lets a classroom
    /// server pass the hand-in on to the district unchanged. Absent from older vaults.
    public var deviceKey: String?
    public var signature: String?
    enum CodingKeys: String, CodingKey {
        case force, answers, record, signature
        case deviceKey = "device_key"
        case unsealedAt = "unsealed_at"
        case attemptId = "attempt_id"
        case assessmentId = "assessment_id"
        case assessmentVersion = "assessment_version"
        case submittedAt = "submitted_at"
        case responseIds = "response_ids"
        case startedAt = "started_at"
        case timeUsedMs = "time_used_ms"
        case clockMovedBackMs = "clock_moved_back_ms"
    }
    public init(
        attemptId: String,
        assessmentId: String,
        assessmentVersion: Int,
        submittedAt: String,
        responseIds: [String],
        force: Bool? = nil,
        startedAt: String? = nil,
        timeUsedMs: Int? = nil,
        clockMovedBackMs: Int? = nil,
        answers: [SubmittedAnswer]? = nil
    ) {
        self.startedAt = startedAt
        self.timeUsedMs = timeUsedMs
        self.clockMovedBackMs = clockMovedBackMs
        self.answers = answers
        self.attemptId = attemptId
        self.assessmentId = assessmentId
        self.assessmentVersion = assessmentVersion
        self.submittedAt = submittedAt
        self.responseIds = responseIds
        self.force = force
    }
}

public struct SubmissionReceipt: Codable, Sendable, Equatable {
    public var receiptId: String
    public var attemptId: String
    public var assessmentId: String
    public var assessmentVersion: Int
    public var receivedAt: String
    public var responseCount: Int
    /// The receipt as a statement signed by the server's key (nil only from a server older than receipts).
    public var signed: SignedReceipt?
    /// A sentence for the student when the hand-in is stored but the teacher has to decide on it (it arrived after
    /// the exam closed). Not part of the signed statement.
    public var notice: String?
    enum CodingKeys: String, CodingKey {
        case signed, notice
        case receiptId = "receipt_id"
        case attemptId = "attempt_id"
        case assessmentId = "assessment_id"
        case assessmentVersion = "assessment_version"
        case receivedAt = "received_at"
        case responseCount = "response_count"
    }
    public init(
        receiptId: String,
        attemptId: String,
        assessmentId: String,
        assessmentVersion: Int,
        receivedAt: String,
        responseCount: Int,
        signed: SignedReceipt? = nil,
        notice: String? = nil
    ) {
        self.signed = signed
        self.notice = notice
        self.receiptId = receiptId
        self.attemptId = attemptId
        self.assessmentId = assessmentId
        self.assessmentVersion = assessmentVersion
        self.receivedAt = receivedAt
        self.responseCount = responseCount
    }
}

/// The body of every error: `{"error": {"code", "message"}}`, plus `current_version` on a 409.
public struct ErrorEnvelope: Codable, Sendable, Error {
    public struct Body: Codable, Sendable {
        public var code: String
        public var message: String
        public var missing: [String]?
        /// The code, when it is one this client knows.
        public var known: APIErrorCode? { APIErrorCode(rawValue: code) }
        public init(code: String, message: String, missing: [String]? = nil) {
            self.code = code
            self.message = message
            self.missing = missing
        }
    }
    public var error: Body
    public var currentVersion: Int?
    /// On a 403 for a sealed exam's key: when it opens.
    public var opensAt: String?
    enum CodingKeys: String, CodingKey {
        case error
        case currentVersion = "current_version"
        case opensAt = "opens_at"
    }
    public init(code: String, message: String, currentVersion: Int? = nil, missing: [String]? = nil, opensAt: String? = nil) {
        error = Body(code: code, message: message, missing: missing)
        self.currentVersion = currentVersion
        self.opensAt = opensAt
    }
}

/// What the server received for one assessment (`GET /v1/assessments/{id}/responses`, `vault-server responses`).
public struct ReceivedResponses: Codable, Sendable {
    public struct Response: Codable, Sendable, Equatable {
        public var id: String
        public var attemptId: String
        public var questionId: String
        public var assessmentVersion: Int
        public var answer: JSONValue
        public var answeredAt: String
        public var forced: Bool
        public var superseded: Bool
        /// The student who sent it.
        public var user: String?
        /// When the server stored it.
        public var receivedAt: String?
        /// `answered_at` lies more than five minutes after `received_at`: the device clock was ahead (or set).
        public var answeredInFuture: Bool?
        enum CodingKeys: String, CodingKey {
            case id, answer, forced, superseded, user
            case attemptId = "attempt_id"
            case questionId = "question_id"
            case assessmentVersion = "assessment_version"
            case answeredAt = "answered_at"
            case receivedAt = "received_at"
            case answeredInFuture = "answered_in_future"
        }
        public init(
            id: String,
            attemptId: String,
            questionId: String,
            assessmentVersion: Int,
            answer: JSONValue,
            answeredAt: String,
            forced: Bool,
            superseded: Bool,
            user: String? = nil,
            receivedAt: String? = nil,
            answeredInFuture: Bool? = nil
        ) {
            self.user = user
            self.receivedAt = receivedAt
            self.answeredInFuture = answeredInFuture
            self.id = id
            self.attemptId = attemptId
            self.questionId = questionId
            self.assessmentVersion = assessmentVersion
            self.answer = answer
            self.answeredAt = answeredAt
            self.forced = forced
            self.superseded = superseded
        }
    }
    public struct Submission: Codable, Sendable, Equatable {
        public var attemptId: String
        public var assessmentVersion: Int
        public var submittedAt: String
        public var forced: Bool
        public var receiptId: String
        public var user: String?
        public var startedAt: String?
        public var timeUsedMs: Int?
        public var clockMovedBackMs: Int?
        public var unsealedAt: String?
        /// What the teacher should look at: time data missing or over the limit, a second attempt.
        public var flags: [SubmissionFlag]?
        enum CodingKeys: String, CodingKey {
            case forced, user, flags
            case unsealedAt = "unsealed_at"
            case startedAt = "started_at"
            case timeUsedMs = "time_used_ms"
            case clockMovedBackMs = "clock_moved_back_ms"
            case attemptId = "attempt_id"
            case assessmentVersion = "assessment_version"
            case submittedAt = "submitted_at"
            case receiptId = "receipt_id"
        }
        public init(
            attemptId: String,
            assessmentVersion: Int,
            submittedAt: String,
            forced: Bool,
            receiptId: String,
            user: String? = nil,
            startedAt: String? = nil,
            timeUsedMs: Int? = nil,
            clockMovedBackMs: Int? = nil,
            unsealedAt: String? = nil,
            flags: [SubmissionFlag]? = nil
        ) {
            self.flags = flags
            self.unsealedAt = unsealedAt
            self.user = user
            self.startedAt = startedAt
            self.timeUsedMs = timeUsedMs
            self.clockMovedBackMs = clockMovedBackMs
            self.attemptId = attemptId
            self.assessmentVersion = assessmentVersion
            self.submittedAt = submittedAt
            self.forced = forced
            self.receiptId = receiptId
        }
    }
    public var assessmentId: String
    public var responses: [Response]
    public var submissions: [Submission]
    enum CodingKeys: String, CodingKey {
        case responses, submissions
        case assessmentId = "assessment_id"
    }
    public init(assessmentId: String, responses: [Response], submissions: [Submission]) {
        self.assessmentId = assessmentId
        self.responses = responses
        self.submissions = submissions
    }
}

/// The paths of API v1, in one place for both sides.
public enum APIPath {
    public static let health = "/v1/health"
    /// Readiness (issue 73): 200 while the store answers within a second, else 503.
    public static let ready = "/v1/ready"
    public static let token = "/v1/auth/token"
    public static let challenge = "/v1/auth/challenge"
    public static let deviceToken = "/v1/auth/device-token"
    public static let assessments = "/v1/assessments"
    public static let batch = "/v1/responses/batch"
    public static let submissions = "/v1/submissions"
    public static let serverKey = "/v1/server-key"
    public static let results = "/v1/results"
    public static let attempts = "/v1/attempts"
    public static let deviceKeys = "/v1/device-keys"
    public static let givenUp = "/v1/given-up"
    public static let clientStats = "/v1/client-stats"
    public static let serverStatus = "/v1/admin/status"
    public static let classroomPull = "/v1/classroom/pull"
    /// `POST`: a teacher (signed in with their password) registers a classroom server's own key (issue 69).
    public static let classrooms = "/v1/classrooms"
    public static let classroomPush = "/v1/classroom/push"
    public static let classroomReceipts = "/v1/classroom/receipts"
    public static let classroomResults = "/v1/classroom/results"
    public static let enrol = "/v1/auth/enrol"
    public static func assessment(_ id: String) -> String { "/v1/assessments/\(id)" }
    /// A classroom's fetch of one version of an assessment it pulled (issue 69).
    public static func classroomDocument(_ id: String, version: Int) -> String { "/v1/classroom/documents/\(id)?version=\(version)" }
    public static func sealedKey(_ id: String) -> String { "/v1/assessments/\(id)/key" }
    public static func responses(_ id: String) -> String { "/v1/assessments/\(id)/responses" }
    /// Largest request body the server accepts, after decompression.
    public static let maxRequestBytes = 12 * 1024 * 1024
}

/// A wire type with a reader faster than `JSONDecoder` for its usual form: `fastDecode` returns what `JSONDecoder`
/// would, or nil (then `JSONDecoder` decodes, and explains what is wrong).
public protocol FastJSONDecodable: Decodable {
    static func fastDecode(_ data: Data) -> Self?
}

extension BatchRequest: FastJSONDecodable {
    public static func fastDecode(_ data: Data) -> BatchRequest? { JSONReader.batchRequest(data) }
}

/// `GET /v1/admin/status` (issue 59): how a running server is doing, for `vault-server status` and the desk's server
/// page: uptime, the store, the last hour minute by minute, the slowest routes, and the vaults' own figures where the
/// school collects them. Route templates and counts only.
public struct ServerStatus: Codable, Sendable, Equatable {
    public struct Store: Codable, Sendable, Equatable {
        /// `sqlite` or `postgresql`.
        public var kind: String
        /// Its size on disk, when the store could say.
        public var bytes: Int?
        /// `ok`, or `unavailable` when the database did not answer.
        public var state: String
        public init(kind: String, bytes: Int?, state: String) {
            self.kind = kind
            self.bytes = bytes
            self.state = state
        }
    }

    /// One minute of the last hour (oldest first; a minute with nothing is there with zeros).
    public struct Minute: Codable, Sendable, Equatable {
        public var start: String
        public var requests: Int
        public var answers: Int
        public var tooMany: Int
        public var unavailable: Int
        public var failed: Int
        enum CodingKeys: String, CodingKey {
            case start, requests, answers, unavailable, failed
            case tooMany = "too_many"
        }
        public init(start: String, requests: Int = 0, answers: Int = 0, tooMany: Int = 0, unavailable: Int = 0, failed: Int = 0) {
            self.start = start
            self.requests = requests
            self.answers = answers
            self.tooMany = tooMany
            self.unavailable = unavailable
            self.failed = failed
        }
    }

    /// A route template with its requests since the start and their durations.
    public struct Route: Codable, Sendable, Equatable {
        public var route: String
        public var requests: Int
        public var meanMilliseconds: Double
        public var maxMilliseconds: Double
        enum CodingKeys: String, CodingKey {
            case route, requests
            case meanMilliseconds = "mean_ms"
            case maxMilliseconds = "max_ms"
        }
        public init(route: String, requests: Int, meanMilliseconds: Double, maxMilliseconds: Double) {
            self.route = route
            self.requests = requests
            self.meanMilliseconds = meanMilliseconds
            self.maxMilliseconds = maxMilliseconds
        }
    }

    public var version: String
    public var startedAt: String
    public var uptimeSeconds: Int
    public var store: Store
    public var lastHour: [Minute]
    public var slowest: [Route]
    /// The vaults' own counts summed since the start (empty unless the school collects them).
    public var clientStats: [String: Int]
    enum CodingKeys: String, CodingKey {
        case version, store, slowest
        case startedAt = "started_at"
        case uptimeSeconds = "uptime_seconds"
        case lastHour = "last_hour"
        case clientStats = "client_stats"
    }
    public init(
        version: String,
        startedAt: String,
        uptimeSeconds: Int,
        store: Store,
        lastHour: [Minute],
        slowest: [Route],
        clientStats: [String: Int]
    ) {
        self.version = version
        self.startedAt = startedAt
        self.uptimeSeconds = uptimeSeconds
        self.store = store
        self.lastHour = lastHour
        self.slowest = slowest
        self.clientStats = clientStats
    }
}

/// `POST /v1/auth/challenge` (issue 58): a one-time challenge for `user`, which a vault whose key is registered to them
/// signs to sign in without a password (`POST /v1/auth/device-token`). Every name gets one: it tells nothing.
public struct DeviceChallengeRequest: Codable, Sendable {
    public var user: String
    public init(user: String) { self.user = user }
}

public struct DeviceChallengeResponse: Codable, Sendable {
    public var challenge: String
    public var expiresAt: String
    enum CodingKeys: String, CodingKey {
        case challenge
        case expiresAt = "expires_at"
    }
    public init(challenge: String, expiresAt: String) {
        self.challenge = challenge
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/auth/device-token`: the challenge signed by the vault's Ed25519 key (`DeviceSignIn.statement`).
public struct DeviceTokenRequest: Codable, Sendable {
    public var user: String
    public var challenge: String
    /// The vault's public signing key (base64), registered to `user` at a sign-in or by a package's first hand-in.
    public var deviceKey: String
    public var signature: String
    enum CodingKeys: String, CodingKey {
        case user, challenge, signature
        case deviceKey = "device_key"
    }
    public init(user: String, challenge: String, deviceKey: String, signature: String) {
        self.user = user
        self.challenge = challenge
        self.deviceKey = deviceKey
        self.signature = signature
    }
}

/// What a vault signs to sign in with its key: the format, the server's key fingerprint (a signature made for one
/// server, a classroom's, is worth nothing at another, the district's), the user and the challenge, a line each.
public enum DeviceSignIn {
    public static let format = "vault-device-sign-in-v1"
    /// How long a challenge can be answered.
    public static let lifetime: TimeInterval = 120

    public static func statement(serverFingerprint: String, user: String, challenge: String) -> Data {
        Data([format, serverFingerprint, user, challenge].joined(separator: "\n").utf8)
    }
}

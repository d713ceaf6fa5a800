import Foundation

// The second hop (issue 58): a classroom server on the teacher's laptop serves a class with no network, then passes
// what the students sent on to the district. The students' own vault keys sign every answer and hand-in, so the
// district takes from the classroom only what a student's vault made.

/// What a vault's key signs for one answer: the format, then one line of every stored field (a canonical JSON array
/// of strings, so no field can run into the next), then the answer's canonical JSON text.
public enum AnswerSignature {
    public static let format = "vault-answer-v1"

    public static func statement(_ item: ResponseItem, answerText: String) throws -> Data {
        let fields: [JSONValue] = [
            .string(item.id), .string(item.attemptId), .string(item.assessmentId), .string(String(item.assessmentVersion)),
            .string(item.questionId), .string(item.questionHash), .string(item.answeredAt), .string(String(item.timeSpentMs)),
            .bool(item.force), item.attemptStartedAt.map(JSONValue.string) ?? .null,
        ]
        return Data((format + "\n" + (try CanonicalJSON.text(.array(fields))) + "\n" + answerText).utf8)
    }

    /// The statement of an item as it arrived (its answer's canonical text made from the decoded value).
    public static func statement(_ item: ResponseItem) throws -> Data {
        try statement(item, answerText: try CanonicalJSON.text(item.answer))
    }
}

extension SubmissionRequest {
    public static let signatureFormat = "vault-submission-v1"

    /// What the vault's key signs for a hand-in: every field but the signature, as one canonical JSON array (lists
    /// sorted, the attempt's record named by its own signature, which covers its events).
    public func signedStatement() throws -> Data {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func number(_ value: Int?) -> JSONValue { value.map { .string(String($0)) } ?? .null }
        let answers: JSONValue =
            answers.map { list in
                .array(
                    list.sorted { $0.responseId < $1.responseId }.map {
                        .array([.string($0.responseId), .string($0.questionId), .string($0.answerSha256)])
                    }
                )
            } ?? .null
        let fields: [JSONValue] = [
            .string(attemptId), .string(assessmentId), .string(String(assessmentVersion)), .string(submittedAt),
            .array(responseIds.sorted().map(JSONValue.string)), force.map(JSONValue.bool) ?? .null, text(startedAt), number(timeUsedMs),
            number(clockMovedBackMs), text(unsealedAt), answers,
            record.map { .array([.string($0.deviceKey), .string($0.signature), .string(String($0.events.count))]) } ?? .null,
            text(deviceKey),
        ]
        return Data((Self.signatureFormat + "\n" + (try CanonicalJSON.text(.array(fields)))).utf8)
    }
}

/// `GET /v1/classroom/pull` (a teacher): what a classroom server needs to serve the teacher's class with no network.
/// Never a password or a password hash: students sign in to the classroom with their vaults' keys.
public struct ClassroomPull: Codable, Sendable {
    public struct PulledAssessment: Codable, Sendable, Equatable {
        public var id: String
        public var version: Int
        /// The teacher's document and the served bytes of that version (base64), byte for byte the district's, so an
        /// answer made on the classroom's copy is an answer to the district's version. Left out of a pull asked with
        /// `documents=separate` (issue 69): each comes on its own (`PulledDocument`), under the one document's cap, and
        /// only for a version the classroom does not hold yet.
        public var source: String?
        public var served: String?
        public var contentHash: String
        public var closedAt: String?
        /// A sealed exam's sealing of this version, the district's own: one start code for the class on both servers.
        public var sealing: PulledSealing?
        enum CodingKeys: String, CodingKey {
            case id, version, source, served, sealing
            case contentHash = "content_hash"
            case closedAt = "closed_at"
        }
        public init(id: String, version: Int, source: String?, served: String?, contentHash: String, closedAt: String?, sealing: PulledSealing? = nil)
        {
            self.id = id
            self.version = version
            self.source = source
            self.served = served
            self.contentHash = contentHash
            self.closedAt = closedAt
            self.sealing = sealing
        }
    }

    /// `GET /v1/classroom/documents/ID?version=N`: one version's teacher's document and served bytes (base64).
    public struct PulledDocument: Codable, Sendable, Equatable {
        public var id: String
        public var version: Int
        public var source: String
        public var served: String
        public var contentHash: String
        enum CodingKeys: String, CodingKey {
            case id, version, source, served
            case contentHash = "content_hash"
        }
        public init(id: String, version: Int, source: String, served: String, contentHash: String) {
            self.id = id
            self.version = version
            self.source = source
            self.served = served
            self.contentHash = contentHash
        }
        /// The largest answer: a document at the cap and its served bytes, each in base64, with room for the rest.
        public static let maxBytes = 2 * (AssessmentValidator.maxDocumentBytes / 3 * 4 + 4) + 64 * 1024
    }

    /// A sealed version's content key (base64), start code and wrapped key (its canonical JSON), as the district keeps
    /// them.
    public struct PulledSealing: Codable, Sendable, Equatable {
        public var contentKey: String
        public var startCode: String
        public var wrappedKey: String
        enum CodingKeys: String, CodingKey {
            case contentKey = "content_key"
            case startCode = "start_code"
            case wrappedKey = "wrapped_key"
        }
        public init(contentKey: String, startCode: String, wrappedKey: String) {
            self.contentKey = contentKey
            self.startCode = startCode
            self.wrappedKey = wrappedKey
        }
    }

    public struct Student: Codable, Sendable, Equatable {
        public var name: String
        public var group: String?
        /// The vaults' public signing keys registered to the student at the district.
        public var deviceKeys: [String]
        enum CodingKeys: String, CodingKey {
            case name, group
            case deviceKeys = "device_keys"
        }
        public init(name: String, group: String?, deviceKeys: [String]) {
            self.name = name
            self.group = group
            self.deviceKeys = deviceKeys
        }
    }

    public struct ExtraTime: Codable, Sendable, Equatable {
        public var assessmentId: String
        public var user: String
        public var extraMinutes: Int
        enum CodingKeys: String, CodingKey {
            case user
            case assessmentId = "assessment_id"
            case extraMinutes = "extra_minutes"
        }
        public init(assessmentId: String, user: String, extraMinutes: Int) {
            self.assessmentId = assessmentId
            self.user = user
            self.extraMinutes = extraMinutes
        }
    }

    /// A student's draw of an assessment with pools or shuffling, as the district made it: the same questions in the
    /// same order on the classroom's copy.
    public struct PulledDraw: Codable, Sendable, Equatable {
        public var assessmentId: String
        public var user: String
        public var seed: String
        public var version: Int
        public var draw: String
        enum CodingKeys: String, CodingKey {
            case user, seed, version, draw
            case assessmentId = "assessment_id"
        }
        public init(assessmentId: String, user: String, seed: String, version: Int, draw: String) {
            self.assessmentId = assessmentId
            self.user = user
            self.seed = seed
            self.version = version
            self.draw = draw
        }
    }

    public var teacher: String
    public var pulledAt: String
    public var assessments: [PulledAssessment]
    public var students: [Student]
    public var extraTime: [ExtraTime]
    public var draws: [PulledDraw]
    enum CodingKeys: String, CodingKey {
        case teacher, assessments, students, draws
        case pulledAt = "pulled_at"
        case extraTime = "extra_time"
    }
    public init(
        teacher: String,
        pulledAt: String,
        assessments: [PulledAssessment],
        students: [Student],
        extraTime: [ExtraTime],
        draws: [PulledDraw]
    ) {
        self.teacher = teacher
        self.pulledAt = pulledAt
        self.assessments = assessments
        self.students = students
        self.extraTime = extraTime
        self.draws = draws
    }
}

/// A student's download on a classroom, for the district's roster (issue 69).
public struct ClassroomDownload: Codable, Sendable, Equatable {
    public var assessmentId: String
    public var version: Int
    enum CodingKeys: String, CodingKey {
        case version
        case assessmentId = "assessment_id"
    }
    public init(assessmentId: String, version: Int) {
        self.assessmentId = assessmentId
        self.version = version
    }
}

/// `POST /v1/classroom/push` (a teacher; gzip): what a classroom server holds, passed on as the students sent it.
public struct ClassroomPushRequest: Codable, Sendable {
    public enum Kind: String, Codable, Sendable {
        /// A student's, signed by their vault: `ResponseItem`, `SubmissionRequest`.
        case answer, submission
        /// The teacher's, made on the classroom's desk: a `ClassroomMark` (points or feedback on one answer), a
        /// `ClassroomRelease` (results shown or hidden).
        case grade, feedback, release
        /// The teacher's decision on a late hand-in: a `ClassroomLate`.
        case late
        /// A student's draw first made on the classroom (issue 69): a `ClassroomPull.PulledDraw`, sent before their
        /// answers so the district asks the same questions.
        case draw
        /// A student's download of an assessment on the classroom (issue 69): a `ClassroomDownload`, so the district's
        /// roster counts it.
        case download
        /// The teacher closed or reopened an assessment on the classroom's desk: a `ClassroomClosing`, so the
        /// district closes it too (students who sync to the district directly hand in by the same time).
        case closing

        /// Made by a student's vault and signed by it (the rest are the teacher's, whose classroom signed in).
        public var isStudents: Bool { self == .answer || self == .submission }
    }

    public struct Item: Codable, Sendable, Equatable {
        /// The classroom's own number for the item (its outbox's order): the reply names it.
        public var seq: Int
        public var kind: Kind
        public var user: String
        /// The vault key that signed the item (for an answer; a submission names its own).
        public var deviceKey: String?
        /// The item's JSON as the student's vault sent it (a `ResponseItem` or a `SubmissionRequest`), signature
        /// included.
        public var body: String
        /// When the classroom took it from the vault: a hand-in is late at the district only if it reached the
        /// classroom after closing, not because the district was out of reach until then.
        public var heldAt: String?
        enum CodingKeys: String, CodingKey {
            case seq, kind, user, body
            case deviceKey = "device_key"
            case heldAt = "held_at"
        }
        public init(seq: Int, kind: Kind, user: String, deviceKey: String?, body: String, heldAt: String? = nil) {
            self.seq = seq
            self.kind = kind
            self.user = user
            self.deviceKey = deviceKey
            self.body = body
            self.heldAt = heldAt
        }
    }

    /// The classroom server's key fingerprint: the district names it in what it keeps ("held by classroom ...").
    public var classroom: String
    public var items: [Item]
    /// Vault keys the classroom enrolled with a class code, for the users of these items.
    public var vouched: [Vouch]?
    public init(classroom: String, items: [Item], vouched: [Vouch]? = nil) {
        self.classroom = classroom
        self.items = items
        self.vouched = vouched
    }

    /// At most this many items per request.
    public static let maxItems = 500
}

public struct ClassroomPushResponse: Codable, Sendable {
    public enum Outcome: String, Codable, Sendable {
        /// The district holds it (now or already).
        case stored
        /// The district will never take it (a signature that does not verify, a student it does not know); `message`
        /// says why. The classroom keeps it and names it in `classroom status`.
        case refused
        /// Not now (a hand-in whose answers have not all arrived): sent again with the next push.
        case later
    }

    public struct Result: Codable, Sendable, Equatable {
        public var seq: Int
        public var outcome: Outcome
        public var message: String?
        /// A hand-in's receipt from the district.
        public var receipt: SubmissionReceipt?
        public init(seq: Int, outcome: Outcome, message: String? = nil, receipt: SubmissionReceipt? = nil) {
            self.seq = seq
            self.outcome = outcome
            self.message = message
            self.receipt = receipt
        }
    }

    public var results: [Result]
    public init(results: [Result]) { self.results = results }
}

/// `GET /v1/classroom/receipts` (a student, from a classroom server): the district's receipts for the student's
/// hand-ins the classroom passed on, with the district's key and the classroom's fingerprint ("held by classroom K,
/// confirmed by the district").
public struct ClassroomConfirmations: Codable, Sendable, Equatable {
    public var classroom: String
    public var districtKey: ServerKeyResponse
    public var receipts: [SubmissionReceipt]
    /// What the district refused of the student's answers and hand-ins the classroom passed on (issue 68), so the
    /// vault says so instead of "Everything is uploaded". Absent from an older classroom.
    public var refused: [ClassroomRefusal]?
    enum CodingKeys: String, CodingKey {
        case classroom, receipts, refused
        case districtKey = "district_key"
    }
    public init(classroom: String, districtKey: ServerKeyResponse, receipts: [SubmissionReceipt], refused: [ClassroomRefusal]? = nil) {
        self.classroom = classroom
        self.districtKey = districtKey
        self.receipts = receipts
        self.refused = refused
    }
}

/// An answer or a hand-in of a student that a classroom passed on and the district refused, with the district's
/// sentence (issue 68).
public struct ClassroomRefusal: Codable, Sendable, Equatable {
    /// `answer` or `submission`.
    public var kind: String
    /// The answer's response id, or the hand-in's attempt id.
    public var itemId: String
    public var assessmentId: String
    public var attemptId: String
    public var message: String
    enum CodingKeys: String, CodingKey {
        case kind, message
        case itemId = "item_id"
        case assessmentId = "assessment_id"
        case attemptId = "attempt_id"
    }
    public init(kind: String, itemId: String, assessmentId: String, attemptId: String, message: String) {
        self.kind = kind
        self.itemId = itemId
        self.assessmentId = assessmentId
        self.attemptId = attemptId
        self.message = message
    }
}

/// `POST /v1/auth/enrol` (issue 58): a vault that never had a network signs in to a classroom server for the first
/// time with a one-time class code from the teacher; its key is registered to the student, and the classroom vouches
/// for it to the district. The code never goes on a command line (the vault reads it as it reads a password).
public struct ClassEnrolRequest: Codable, Sendable {
    public var user: String
    public var code: String
    public var deviceKey: String
    /// The vault key's signature over `ClassCode.statement` (the key is the vault's own).
    public var signature: String
    enum CodingKeys: String, CodingKey {
        case user, code, signature
        case deviceKey = "device_key"
    }
    public init(user: String, code: String, deviceKey: String, signature: String) {
        self.user = user
        self.code = code
        self.deviceKey = deviceKey
        self.signature = signature
    }
}

/// One-time class codes: 12 letters and digits a person reads out (no 0/O, 1/I/L), shown in groups of four.
public enum ClassCode {
    public static let format = "vault-class-enrol-v1"
    static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

    /// A new code from 12 random bytes.
    public static func make(random bytes: [UInt8]) -> String {
        let letters = bytes.prefix(12).map { alphabet[Int($0) % alphabet.count] }
        return stride(from: 0, to: letters.count, by: 4).map { String(letters[$0..<min($0 + 4, letters.count)]) }.joined(separator: "-")
    }

    /// The code as typed, in the one form it is kept by (capitals, no spaces or dashes).
    public static func normalized(_ typed: String) -> String {
        String(typed.uppercased().unicodeScalars.filter { !CharacterSet(charactersIn: " -").contains($0) })
    }

    /// What the vault's key signs to enrol: the format, the classroom's key fingerprint, the user and the code.
    public static func statement(serverFingerprint: String, user: String, code: String) -> Data {
        Data([format, serverFingerprint, user, normalized(code)].joined(separator: "\n").utf8)
    }

    /// The enrolment's scope as the store keeps it (beside the packages' per-assessment secrets).
    public static let scope = "*class*"
}

extension ClassroomPushRequest {
    /// A vault key the classroom registered with a class code: the district registers it to the student too (only
    /// to a student with no key of their own yet), before it checks the items it signed.
    public struct Vouch: Codable, Sendable, Equatable {
        public var user: String
        public var deviceKey: String
        enum CodingKeys: String, CodingKey {
            case user
            case deviceKey = "device_key"
        }
        public init(user: String, deviceKey: String) {
            self.user = user
            self.deviceKey = deviceKey
        }
    }
}

/// The teacher's points or feedback on one answer, made on a classroom's desk and passed on to the district
/// (`ClassroomPushRequest.Kind.grade` / `.feedback`), or made at the district and brought down
/// (`ClassroomResults`).
public struct ClassroomMark: Codable, Sendable, Equatable {
    public var assessmentId: String
    public var attemptId: String
    public var questionId: String
    /// `grade`: the teacher's points.
    public var points: Double?
    /// `feedback`: the teacher's words (nil: taken back).
    public var text: String?
    enum CodingKeys: String, CodingKey {
        case points, text
        case assessmentId = "assessment_id"
        case attemptId = "attempt_id"
        case questionId = "question_id"
    }
    public init(assessmentId: String, attemptId: String, questionId: String, points: Double? = nil, text: String? = nil) {
        self.assessmentId = assessmentId
        self.attemptId = attemptId
        self.questionId = questionId
        self.points = points
        self.text = text
    }

    /// The outbox's id of a mark: one per answer and kind (a later mark replaces an earlier one still waiting).
    public static func itemID(attemptID: String, questionID: String) -> String { attemptID + "\n" + questionID }
}

/// A late hand-in accepted, given 0, or undecided again (nil) on a classroom's desk
/// (`ClassroomPushRequest.Kind.late`).
public struct ClassroomLate: Codable, Sendable, Equatable {
    public var assessmentId: String
    public var attemptId: String
    /// A `LateDecision`'s raw value; nil: undone.
    public var decision: String?
    enum CodingKeys: String, CodingKey {
        case decision
        case assessmentId = "assessment_id"
        case attemptId = "attempt_id"
    }
    public init(assessmentId: String, attemptId: String, decision: String?) {
        self.assessmentId = assessmentId
        self.attemptId = attemptId
        self.decision = decision
    }
}

/// Results shown to the students or hidden again, on a classroom's desk (`ClassroomPushRequest.Kind.release`).
public struct ClassroomRelease: Codable, Sendable, Equatable {
    public var assessmentId: String
    public var released: Bool
    enum CodingKeys: String, CodingKey {
        case released
        case assessmentId = "assessment_id"
    }
    public init(assessmentId: String, released: Bool) {
        self.assessmentId = assessmentId
        self.released = released
    }
}

/// An assessment closed at a time, or reopened, on a classroom's desk (`ClassroomPushRequest.Kind.closing`).
public struct ClassroomClosing: Codable, Sendable, Equatable {
    public var assessmentId: String
    /// When it closes (RFC 3339); nil: reopened.
    public var closedAt: String?
    enum CodingKeys: String, CodingKey {
        case assessmentId = "assessment_id"
        case closedAt = "closed_at"
    }
    public init(assessmentId: String, closedAt: String?) {
        self.assessmentId = assessmentId
        self.closedAt = closedAt
    }
}

/// `GET /v1/classroom/results` (a teacher): what the district decided on the class's hand-ins, brought down so the
/// students see it through the classroom: which results are released, the teacher's points and feedback, and late
/// hand-ins accepted or given 0.
public struct ClassroomResults: Codable, Sendable, Equatable {
    public struct State: Codable, Sendable, Equatable {
        public var assessmentId: String
        public var releasedAt: String?
        enum CodingKeys: String, CodingKey {
            case assessmentId = "assessment_id"
            case releasedAt = "released_at"
        }
        public init(assessmentId: String, releasedAt: String?) {
            self.assessmentId = assessmentId
            self.releasedAt = releasedAt
        }
    }

    public struct Late: Codable, Sendable, Equatable {
        public var attemptId: String
        /// A `LateDecision`'s raw value.
        public var decision: String
        enum CodingKeys: String, CodingKey {
            case decision
            case attemptId = "attempt_id"
        }
        public init(attemptId: String, decision: String) {
            self.attemptId = attemptId
            self.decision = decision
        }
    }

    /// A hand-in the district holds (issue 69): the classroom's desk shows it for a student it holds none of (one
    /// handed in straight to the district, or by a file imported there).
    public struct Held: Codable, Sendable, Equatable {
        public var assessmentId: String
        public var attemptId: String
        public var user: String
        public var receivedAt: String
        public var via: SubmissionChannel
        enum CodingKeys: String, CodingKey {
            case user, via
            case assessmentId = "assessment_id"
            case attemptId = "attempt_id"
            case receivedAt = "received_at"
        }
        public init(assessmentId: String, attemptId: String, user: String, receivedAt: String, via: SubmissionChannel) {
            self.assessmentId = assessmentId
            self.attemptId = attemptId
            self.user = user
            self.receivedAt = receivedAt
            self.via = via
        }
    }

    public var assessments: [State]
    /// The hand-ins at the district these marks are all of: feedback on one of them that the district no longer has
    /// was taken back.
    public var handedIn: [String]
    public var grades: [ClassroomMark]
    public var feedback: [ClassroomMark]
    public var late: [Late]
    /// Every hand-in the district counts for the assessments (nil from a district before issue 69's second round).
    public var held: [Held]?
    enum CodingKeys: String, CodingKey {
        case assessments, grades, feedback, late, held
        case handedIn = "handed_in"
    }
    public init(assessments: [State], handedIn: [String], grades: [ClassroomMark], feedback: [ClassroomMark], late: [Late]) {
        self.assessments = assessments
        self.handedIn = handedIn
        self.grades = grades
        self.feedback = feedback
        self.late = late
    }
}

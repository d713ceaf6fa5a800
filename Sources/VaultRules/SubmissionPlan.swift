import Foundation
import VaultAPI
import VaultModel

/// What `POST /v1/submissions` answers.
public enum SubmissionOutcome: Sendable, Equatable {
    case created(SubmissionRecord)
    case repeated(SubmissionRecord)
    /// A submission repeated after answers its receipt left out arrived: the receipt is signed again over the
    /// complete set (same receipt id).
    case amended(SubmissionRecord)
    case outdated(currentVersion: Int)
    case gone
    case missingResponses([String])
    /// The answers the submission lists are stored, but the attempt's current set on the server is another one
    /// (the response ids that differ, from either side).
    case answerSetDiffers([String])
    /// The student has used every attempt the assessment allows.
    case noAttemptsLeft(String)
    /// The exam closed before this attempt started.
    case closed(String)
    /// The attempt is another user's.
    case forbidden(String)
    case rejected(String)
}

/// A stored submission: the receipt it was given and what the teacher sees.
public struct SubmissionRecord: Sendable, Equatable {
    public var attemptID: String
    public var user: String
    public var assessmentID: String
    public var assessmentVersion: Int
    public var submittedAt: String
    public var forced: Bool
    public var receiptID: String
    public var receivedAt: Double
    public var responseCount: Int
    public var startedAt: String?
    public var timeUsedMilliseconds: Int?
    public var clockMovedBackMilliseconds: Int?
    /// The signed statement, once issued (a submission stored before receipts were signed has none yet).
    public var signedReceipt: SignedReceipt?
    /// A sealed exam: when the student unsealed it.
    public var unsealedAt: String?
    public var flags: [SubmissionFlag]
    /// Through sync or an imported hand-in file.
    public var via: SubmissionChannel
    /// The teacher's decision when it arrived after closing, or came from a device they revoked.
    public var lateDecision: LateDecision?
    /// Its score as the store keeps it (`Scoring.Totals`); nil for one stored before totals were kept, or not read.
    public var totals: Scoring.Totals?
    /// The later version whose keys and points score it, after a regrade (nil: its own version's).
    public var scoredVersion: Int?
    /// The classroom server it came through (its key's fingerprint), at the district (issue 69).
    public var classroom: String?

    /// Kept apart from the student's attempt (issue 68): handed in by a device a replaced package had bound, and not
    /// accepted by the teacher (waiting, or discarded). It counts nowhere: not the roster's row, the scores, the item
    /// analysis, the gradebook or the student's results; the teacher sees it beside the student's row.
    public var keptApart: Bool { flags.contains(.revokedDevice) && lateDecision != .accepted }

    /// The teacher has a decision to make on it (arrived after closing, or from a revoked device) and has not made it.
    public var awaitsDecision: Bool { Self.decidable(flags) && lateDecision == nil }

    /// Whether a teacher decides on a hand-in with `flags`: accept it or give it 0 (discard it, when kept apart).
    public static func decidable(_ flags: [SubmissionFlag]) -> Bool { flags.contains(.afterClosing) || flags.contains(.revokedDevice) }

    /// The document that scores it: its own version's, or the one it was regraded against.
    public var scoringKey: DocumentKey { DocumentKey(id: assessmentID, version: scoredVersion ?? assessmentVersion) }

    public init(
        attemptID: String,
        user: String,
        assessmentID: String,
        assessmentVersion: Int,
        submittedAt: String,
        forced: Bool,
        receiptID: String,
        receivedAt: Double,
        responseCount: Int,
        startedAt: String? = nil,
        timeUsedMilliseconds: Int? = nil,
        clockMovedBackMilliseconds: Int? = nil,
        signedReceipt: SignedReceipt? = nil,
        unsealedAt: String? = nil,
        flags: [SubmissionFlag] = [],
        via: SubmissionChannel = .sync,
        lateDecision: LateDecision? = nil
    ) {
        self.via = via
        self.lateDecision = lateDecision
        self.signedReceipt = signedReceipt
        self.unsealedAt = unsealedAt
        self.attemptID = attemptID
        self.user = user
        self.assessmentID = assessmentID
        self.assessmentVersion = assessmentVersion
        self.submittedAt = submittedAt
        self.forced = forced
        self.receiptID = receiptID
        self.receivedAt = receivedAt
        self.responseCount = responseCount
        self.startedAt = startedAt
        self.timeUsedMilliseconds = timeUsedMilliseconds
        self.clockMovedBackMilliseconds = clockMovedBackMilliseconds
        self.flags = flags
    }

    public var receipt: SubmissionReceipt {
        SubmissionReceipt(
            receiptId: receiptID,
            attemptId: attemptID,
            assessmentId: assessmentID,
            assessmentVersion: assessmentVersion,
            receivedAt: Timestamp.string(epoch: receivedAt),
            responseCount: responseCount,
            signed: signedReceipt,
            notice: via == .closing
                ? "This exam closed before you handed in, so the answers that had reached the server were handed in for you then. Any you gave later are kept for your teacher, who decides."
                : flags.contains(.afterClosing)
                    ? "This exam had closed when your answers arrived. They are kept, and your teacher decides whether they count." : nil
        )
    }

    /// The flags as a store keeps them (a comma-separated list of the enum's words).
    public var flagsText: String { flags.map(\.rawValue).joined(separator: ",") }

    /// Stored flags with `added` joined in, as a store keeps them (in the enum's order, each once).
    public static func merged(_ stored: String?, adding added: Set<SubmissionFlag>) throws -> String {
        let all = Set(try flags(stored: stored)).union(added)
        return SubmissionFlag.allCases.filter(all.contains).map(\.rawValue).joined(separator: ",")
    }

    /// Flags read back from a store; a word this server does not know means the row was damaged.
    public static func flags(stored text: String?) throws -> [SubmissionFlag] {
        guard let text, !text.isEmpty else { return [] }
        return try text.split(separator: ",").map { word in
            guard let flag = SubmissionFlag(rawValue: String(word)) else { throw SubmissionFlagError(word: String(word)) }
            return flag
        }
    }
}

/// A stored flag this server does not know.
public struct SubmissionFlagError: Error, Sendable, CustomStringConvertible {
    public var word: String
    public var description: String { "a submission flag this server does not know (\(word))" }
}

/// What the store holds that a submission's rules depend on.
public struct SubmissionFacts: Sendable {
    /// Who the attempt belongs to and on which assessment (nil when no answer of it was ever stored).
    public var attempt: AttemptOwner?
    public var existing: SubmissionRecord?
    public var head: AssessmentHead?
    /// The named responses that are stored: id → (attempt, user).
    public var responses: [String: (attemptID: String, user: String)]
    /// The attempt's current answers on the server (one per question: superseded ones left out).
    public var held: [ReceiptMaterial.Answer]
    /// The served document of the submitted version (nil when that version is unknown).
    public var document: Assessment?
    /// The user's other attempts on this assessment: submitted, and all that hold an answer.
    public var otherSubmittedAttempts: Int
    public var otherAttempts: Int
    /// The user's extra minutes on this assessment.
    public var extraMinutes: Int
    /// When the attempt's clock started, as the server recorded it from its first answer (seconds since 1970).
    public var attemptStartedAt: Double?
    /// When each current answer was given and when it reached the server.
    public var answerTimes: [TimeAuthority.AnswerTime]

    public init(
        attempt: AttemptOwner?,
        existing: SubmissionRecord?,
        head: AssessmentHead?,
        responses: [String: (attemptID: String, user: String)],
        held: [ReceiptMaterial.Answer] = [],
        document: Assessment? = nil,
        otherSubmittedAttempts: Int = 0,
        otherAttempts: Int = 0,
        extraMinutes: Int = 0,
        attemptStartedAt: Double? = nil,
        answerTimes: [TimeAuthority.AnswerTime] = []
    ) {
        self.attemptStartedAt = attemptStartedAt
        self.answerTimes = answerTimes
        self.attempt = attempt
        self.existing = existing
        self.head = head
        self.responses = responses
        self.held = held
        self.document = document
        self.otherSubmittedAttempts = otherSubmittedAttempts
        self.otherAttempts = otherAttempts
        self.extraMinutes = extraMinutes
    }

    /// Every response id the rules look up: the named ones and those of the listed answers.
    public static func lookedUpIDs(_ request: SubmissionRequest) -> [String] {
        Array(Set(request.responseIds + (request.answers ?? []).map(\.responseId))).sorted()
    }
}

/// What a store writes for a submission.
public enum SubmissionWrite: Sendable, Equatable {
    /// A new submission (under a unique key on the attempt: a concurrent submission of the same attempt makes the
    /// insert fail, and the store retries, then finds it).
    case insert(SubmissionRecord)
    /// The stored submission's answer count changes and its receipt is signed again (its stored one is cleared).
    case amend(SubmissionRecord)
}

/// The submission rules: one receipt per attempt, only its owner submits, within the attempts the assessment allows,
/// and only when the answers the vault lists are exactly the attempt's current answers on the server.
public enum SubmissionPlan {
    /// More answers than this in one submission is refused before any store work (the largest assessment's size).
    public static let maxListedAnswers = AssessmentValidator.maxQuestions

    public static func decide(
        _ request: SubmissionRequest,
        user: String,
        now: Date,
        facts: SubmissionFacts,
        receiptID: String,
        via: SubmissionChannel = .sync,
        madeAt: Date? = nil
    ) -> (outcome: SubmissionOutcome, write: SubmissionWrite?) {
        if let owner = facts.attempt, owner.user != user {
            return (.forbidden("This attempt belongs to someone else, so it cannot be submitted from this account."), nil)
        }
        if let attempt = facts.attempt, attempt.assessmentID != request.assessmentId {
            return (.rejected("This attempt belongs to another assessment, so it cannot be submitted for \(request.assessmentId)."), nil)
        }
        guard let listed = request.answers else {
            return (.rejected("A submission must list the attempt's answers (response id, question id and answer hash)."), nil)
        }
        if let existing = facts.existing {
            guard existing.assessmentID == request.assessmentId else {
                return (.rejected("This attempt belongs to another assessment, so it cannot be submitted for \(request.assessmentId)."), nil)
            }
            // Handed in by the server at closing: the vault's own hand-in gets that receipt once every answer it
            // lists is stored (those given or arriving after closing are kept for the teacher, not counted).
            if existing.via == .closing {
                if case .missingResponses(let missing)? = setProblem(request, listed: listed, user: user, facts: facts) {
                    return (.missingResponses(missing), nil)
                }
                return (.repeated(existing), nil)
            }
            guard let signed = existing.signedReceipt,
                let stated = try? JSONDecoder().decode(ReceiptStatement.self, from: Data(signed.statement.utf8)),
                Set(stated.responses) != Set(listed)
            else { return (.repeated(existing), nil) }
            // The vault holds answers the receipt left out: once they are all stored, the receipt is signed again.
            if let refused = setProblem(request, listed: listed, user: user, facts: facts) { return (refused, nil) }
            var amended = existing
            amended.responseCount = listed.count
            amended.signedReceipt = nil
            return (.amended(amended), .amend(amended))
        }
        guard let head = facts.head, !head.deleted else { return (.gone, nil) }
        guard Timestamp.milliseconds(request.submittedAt) != nil else { return (.rejected("submitted_at must be an RFC 3339 timestamp."), nil) }
        let force = request.force ?? false
        if request.assessmentVersion != head.currentVersion, !force { return (.outdated(currentVersion: head.currentVersion), nil) }
        if let document = facts.document, listed.count > document.totalQuestions || request.responseIds.count > document.totalQuestions {
            return (.rejected("This submission lists more answers than the assessment has questions."), nil)
        }
        if let document = facts.document, facts.otherSubmittedAttempts >= document.attemptLimit {
            let limit = document.attemptLimit
            return (
                .noAttemptsLeft(
                    limit == 1
                        ? "This assessment allows one attempt, and yours is already handed in. Your answers are kept; ask your teacher."
                        : "This assessment allows \(limit) attempts, and you have handed in all of them. Your answers are kept; ask your teacher."
                ),
                nil
            )
        }
        var late = false
        // The server's own hand-in at closing is not late: it is the closing. Another is late when it was made after
        // closing: when the student made it (`madeAt`, their vault's time where the server believes it), never later
        // than when it arrived; a hand-in made before closing is on time whenever it arrives (issue 67).
        let made = min(believable(madeAt, facts: facts) ?? now, now)
        if via != .closing, let document = facts.document, let closes = ResponseRules.closesAt(document, closedAt: head.closedAt),
            closes < made.timeIntervalSince1970
        {
            // An attempt that started after closing is refused; one that started before (a student who was offline)
            // is stored and flagged. An attempt that says nothing of its start counts as started before: never lost.
            if let started = request.startedAt.flatMap(Timestamp.date), started.timeIntervalSince1970 > closes {
                return (.closed(ResponseRules.closedSentence(closes)), nil)
            }
            late = true
        }
        if let refused = setProblem(request, listed: listed, user: user, facts: facts) { return (refused, nil) }
        guard facts.attempt != nil, !listed.isEmpty else {
            return (.rejected("This attempt has no answers of yours on the server, so there is nothing to submit. Upload its answers first."), nil)
        }
        let record = SubmissionRecord(
            attemptID: request.attemptId,
            user: user,
            assessmentID: request.assessmentId,
            assessmentVersion: request.assessmentVersion,
            submittedAt: request.submittedAt,
            forced: force && request.assessmentVersion != head.currentVersion,
            receiptID: receiptID,
            receivedAt: (now.timeIntervalSince1970 * 1000).rounded() / 1000,
            responseCount: listed.count,
            startedAt: request.startedAt.flatMap { Timestamp.date($0) == nil ? nil : $0 },
            timeUsedMilliseconds: request.timeUsedMs.map { max(0, $0) },
            clockMovedBackMilliseconds: request.clockMovedBackMs.map { max(0, $0) },
            unsealedAt: request.unsealedAt.flatMap { Timestamp.date($0) == nil ? nil : $0 },
            flags: flags(request, facts: facts, now: now, via: via) + (late ? [.afterClosing] : []),
            via: via
        )
        return (.created(record), .insert(record))
    }

    /// When the student says they made the hand-in, where the attempt's own times agree (`TimeAuthority`'s
    /// tolerance): not before the attempt's recorded start, and no answer of it given after. Nil otherwise.
    static func believable(_ madeAt: Date?, facts: SubmissionFacts) -> Date? {
        guard let madeAt else { return nil }
        let tolerance = TimeAuthority.clockTolerance
        if let start = facts.attemptStartedAt, madeAt.timeIntervalSince1970 < start - tolerance { return nil }
        let latest = facts.answerTimes.map(\.answeredAtMilliseconds).max().map { Double($0) / 1000 }
        if let latest, latest > madeAt.timeIntervalSince1970 + tolerance { return nil }
        return madeAt
    }

    /// Why the listed answers are not the attempt's current set on the server, or nil when they are: ids that were
    /// never stored (the vault sends them again), then any other difference.
    static func setProblem(_ request: SubmissionRequest, listed: [SubmittedAnswer], user: String, facts: SubmissionFacts) -> SubmissionOutcome? {
        guard Set(listed.map(\.responseId)).count == listed.count, Set(listed.map(\.questionId)).count == listed.count else {
            return .rejected("A submission lists each answer once, one per question.")
        }
        let named = Set(request.responseIds + listed.map(\.responseId)).sorted()
        let missing = named.filter { id in
            guard let stored = facts.responses[id] else { return true }
            return stored.attemptID != request.attemptId || stored.user != user
        }
        if !missing.isEmpty { return .missingResponses(missing) }
        let held = Set(facts.held.map(\.digest))
        let claimed = Set(listed)
        guard held == claimed else {
            return .answerSetDiffers(Set(held.symmetricDifference(claimed).map(\.responseId)).sorted())
        }
        return nil
    }

    /// What the teacher's view should notice about a new submission. Over time is the server's own judgement
    /// (`TimeAuthority`) as well as the device's report: either is enough.
    static func flags(_ request: SubmissionRequest, facts: SubmissionFacts, now: Date, via: SubmissionChannel) -> [SubmissionFlag] {
        var flags: [SubmissionFlag] = []
        if let limit = facts.document?.timeLimitSeconds {
            var overTime = false
            if request.startedAt.flatMap(Timestamp.date) == nil || request.timeUsedMs == nil {
                // The server's hand-in at closing says nothing of the device's clock; the server judges its time.
                if via != .closing { flags.append(.timeMissing) }
            } else if let used = request.timeUsedMs {
                let allowedSeconds = limit + facts.extraMinutes * 60
                let allowed = Int64(allowedSeconds) * 1000 + Int64(AttemptTime.grace.wholeMilliseconds)
                overTime = Int64(used) > allowed
            }
            let reported = request.startedAt.flatMap(Timestamp.milliseconds).map { Double($0) / 1000 }
            let judgement = TimeAuthority.judge(
                startedAt: facts.attemptStartedAt ?? TimeAuthority.recordedStart(reported: reported, now: now),
                limitSeconds: limit,
                extraMinutes: facts.extraMinutes,
                answers: facts.answerTimes,
                submittedAt: request.submittedAt,
                now: now
            )
            if overTime || judgement.overTime { flags.append(.overTime) }
            if judgement.clockDisagrees { flags.append(.clockDisagrees) }
        }
        if facts.otherAttempts > 0 { flags.append(.secondAttempt) }
        return flags
    }
}

extension ReceiptMaterial.Answer {
    /// The answer as a receipt states it and a submission lists it.
    public var digest: SubmittedAnswer {
        SubmittedAnswer(responseId: responseID, questionId: questionID, answerSha256: answerDigest(canonicalAnswer: Data(answer.utf8)))
    }
}

/// What a receipt states besides the submission record, read from the store when it is issued.
public struct ReceiptMaterial: Sendable, Equatable {
    public struct Answer: Sendable, Equatable {
        public var responseID: String
        public var questionID: String
        /// The answer's canonical JSON, as stored.
        public var answer: String
        public init(responseID: String, questionID: String, answer: String) {
            self.responseID = responseID
            self.questionID = questionID
            self.answer = answer
        }
    }
    /// The content hash of the submitted version.
    public var contentHash: String
    /// The attempt's current answers (the latest per question).
    public var answers: [Answer]
    public init(contentHash: String, answers: [Answer]) {
        self.contentHash = contentHash
        self.answers = answers
    }
}

public enum ReceiptRules {
    /// The statement a receipt for `record` makes: every current answer of the attempt by its hash, in question order.
    public static func statement(for record: SubmissionRecord, material: ReceiptMaterial, fingerprint: String) -> ReceiptStatement {
        ReceiptStatement(
            receiptId: record.receiptID,
            keyFingerprint: fingerprint,
            user: record.user,
            attemptId: record.attemptID,
            assessmentId: record.assessmentID,
            assessmentVersion: record.assessmentVersion,
            contentHash: material.contentHash,
            submittedAt: record.submittedAt,
            receivedAt: Timestamp.string(epoch: record.receivedAt),
            timeUsedMs: record.timeUsedMilliseconds,
            clockMovedBackMs: record.clockMovedBackMilliseconds,
            forced: record.forced,
            responses: material.answers.sorted { ($0.questionID, $0.responseID) < ($1.questionID, $1.responseID) }.map(\.digest),
            handedInAtClosing: record.via == .closing ? true : nil
        )
    }
}

/// A sealed version's secrets, kept by the server: the content key, the start code, and the key wrapped under it.
public struct SealingMaterial: Sendable, Equatable {
    public var contentKey: Data
    public var startCode: String
    public var wrappedKey: WrappedKey
    public init(contentKey: Data, startCode: String, wrappedKey: WrappedKey) {
        self.contentKey = contentKey
        self.startCode = startCode
        self.wrappedKey = wrappedKey
    }
}

extension SealingMaterial {
    /// The wrapped key as a store keeps it (canonical JSON).
    public var wrappedKeyText: String { String(decoding: (try? CanonicalJSON.encode(wrappedKey)) ?? Data(), as: UTF8.self) }

    public init?(stored contentKey: Data, code: String, wrapped: String) {
        guard let wrappedKey = try? JSONDecoder().decode(WrappedKey.self, from: Data(wrapped.utf8)) else { return nil }
        self.init(contentKey: contentKey, startCode: code, wrappedKey: wrappedKey)
    }
}

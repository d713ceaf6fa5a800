import Foundation
import VaultAPI
import VaultModel

// The vault's storage by the roles the sync engine and the downloader use, as the server's stores are split into
// the roles its services use (`AccountStore`, `ResponseStore`, ...). `Vault` plays every role over its one database
// session; the engine asks for the roles, never for `Vault`, so a test can give it a store of its own and the queue's
// rules are read in one place. Each requirement is the whole call (no default arguments; the short forms are below).

/// The sync queue: what waits to go up, what went, what failed, what the student must decide.
public protocol SyncQueueStore {
    /// Answers and submissions waiting (answers once per entry).
    func queueLength() throws -> Int
    func queuedResponses(now: Date, ignoreBackoff: Bool, limit: Int, afterSeq: Int) throws -> [QueuedResponse]
    func queuedSubmissions(now: Date, ignoreBackoff: Bool) throws -> [QueuedSubmission]
    /// The earliest time an entry waiting for its backoff may go, after `now`.
    func nextRetryAt(after now: Date) throws -> Date?
    /// Counts a failed try; true when the entry gave up (moved to the dead letters).
    @discardableResult func recordFailure(seq: Int, error: String, nextTryAt: Date, maxTries: Int) throws -> Bool
    func markResponsesUploaded(_ ids: [String]) throws
    func markResponseConflict(_ id: String, serverVersion: Int, message: String?) throws
    func markSubmissionConflict(attemptID: String, serverVersion: Int) throws
    /// Sends answers again (a receipt left them out, or the server never stored them); returns those queued.
    @discardableResult func requeueResponses(_ ids: [String], now: Date?) throws -> [String]
    func moveToDeadLetters(kind: QueueKind, refID: String, reason: String, unseen: Bool, now: Date?) throws
    func deadLetters() throws -> [DeadLetter]
    /// Dead letters never reported to the server, by attempt.
    func unreportedGivenUp() throws -> [(assessmentID: String, attemptID: String, ids: [Int])]
    func markReported(_ ids: [Int], now: Date?) throws
    func conflictGroups() throws -> [ConflictGroup]
    func forceConflicts(_ group: ConflictGroup, now: Date?) throws
    func discardConflicts(_ group: ConflictGroup) throws
}

/// The server's word kept: its pinned key, the receipts it signed, the results it released.
public protocol ReceiptStore {
    func pinnedServerKey() throws -> (serverURL: String, key: ServerKeyResponse)?
    func pinServerKey(_ key: ServerKeyResponse, serverURL: String) throws
    func serverPublicKey() throws -> ServerPublicKey
    /// Verifies a receipt against the pinned key and the attempt's answers here, then marks the attempt handed in.
    func acceptReceipt(_ receipt: SubmissionReceipt, attemptID: String, now: Date?) throws
    func hasReceipts() throws -> Bool
    /// Keeps the district's receipts a classroom server passed back (issue 58); returns how many were new.
    @discardableResult func acceptConfirmations(_ list: ClassroomConfirmations, now: Date?) throws -> Int
    @discardableResult func acceptRefusals(_ list: ClassroomConfirmations, now: Date?) throws -> [DistrictRefusal]
    func districtRefusals() throws -> [String: [DistrictRefusal]]
    /// Keeps released results; returns the released scores that changed.
    @discardableResult func saveResults(_ results: [AttemptResult], now: Date?) throws -> [ScoreChange]
}

/// The offline cache of assessments.
public protocol OfflineCacheStore {
    func cachedAssessments(now: Date?) throws -> [CachedAssessment]
    func cachedVersion(of id: String) throws -> (version: Int, contentHash: String, etag: String?)?
    func storeAssessment(
        _ served: Assessment,
        bytes servedBytes: Data,
        etag: String?,
        source: AssessmentSource,
        now: Date?,
        diskSpace: DiskSpace
    ) throws -> StoreOutcome
    func refreshCached(id: String, version: Int, now: Date?) throws
    func loadAssessment(id: String, version: Int?, now: Date?, allowSealed: Bool) throws -> (assessment: Assessment, expiresAt: Date)
}

/// Attempts as the server holds them: carried on from another device, followed while open.
public protocol AttemptFollowingStore {
    func openAttemptsOnServer(now: Date?) throws -> [(attemptID: String, assessmentID: String)]
    func reconcile(_ held: HeldAttempt, now: Date?) throws -> Reconciliation
    func continueAttempt(_ held: HeldAttempt, now: Date?) throws -> AttemptContinuation
}

/// Who this vault is to the server, and what it notes of its syncs.
public protocol VaultIdentityStore {
    var clocks: AttemptClocks { get }
    func account() throws -> Account?
    func deviceID() throws -> String
    /// The vault's own signing key (made on first use): it signs each hand-in, and each answer for a classroom server,
    /// as they go (issue 58).
    func deviceKey(now: Date?) throws -> DeviceKey
    func setMeta(_ values: [String: String]) throws
    /// Whether the server signed in to is a classroom server (learned at `login`): the sync signs each answer then.
    func serverIsClassroom() throws -> Bool
    /// A sync reached the server at `at`: the vault is online and `status` says when (one commit).
    func noteSynced(at: Date) throws
}

/// The vault's own counts of its use, reported with a sync when the school collects them (issue 59).
public protocol ClientStatsStore {
    func unsentClientStats() throws -> [ClientStat: Int]
    func markClientStatsSent(_ sent: [ClientStat: Int]) throws
}

/// Every role a sync uses.
public typealias SyncStore = SyncQueueStore & ReceiptStore & OfflineCacheStore & AttemptFollowingStore & VaultIdentityStore
    & ClientStatsStore
/// The roles a download uses: the cache, the pinned key, the account, and an attempt carried on from another device.
public typealias DownloadStore = OfflineCacheStore & ReceiptStore & AttemptFollowingStore & VaultIdentityStore

extension Vault: SyncQueueStore, ReceiptStore, OfflineCacheStore, AttemptFollowingStore, VaultIdentityStore, ClientStatsStore {}

// The short forms the engine and the downloader call.
extension SyncQueueStore {
    public func moveToDeadLetters(kind: QueueKind, refID: String, reason: String, now: Date?) throws {
        try moveToDeadLetters(kind: kind, refID: refID, reason: reason, unseen: false, now: now)
    }
}

extension OfflineCacheStore {
    public func cachedAssessments() throws -> [CachedAssessment] { try cachedAssessments(now: nil) }

    public func loadAssessment(id: String, allowSealed: Bool) throws -> (assessment: Assessment, expiresAt: Date) {
        try loadAssessment(id: id, version: nil, now: nil, allowSealed: allowSealed)
    }
}

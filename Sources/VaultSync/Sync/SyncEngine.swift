import Foundation
import Logging
import VaultAPI
import VaultCore
import VaultModel

/// Drains the queue: answers in batches, then submissions, then conflicts by the student's decision.
/// Exactly once in effect: rows are marked synced only on the server's word; anything in flight when the process
/// died is resent and the server answers `duplicate`.
public final class SyncEngine {
    public struct Options: Sendable {
        public var batchSize = 10
        public var maxBatchBytes = 256 * 1024
        public var maxTries = 12
        /// A sync started by hand tries everything now, backoff or not.
        public var ignoreBackoff = true
        /// Waits up to this long happen inside the run (1 + 2 + 4 + 8 s after a failure); a longer one ends the run
        /// with exit 75 naming when the next try is due, so a run never holds a student much past 20 s.
        public var maxInlineWait: Duration = .seconds(10)
        public init() {}
    }

    let vault: any SyncStore
    let client: ServerClient
    let options: Options
    let resolver: any ConflictResolver
    let schedule: RetrySchedule
    let sleep: @Sendable (Duration) async throws -> Void
    let now: @Sendable () -> Date
    let downloader: Downloader?
    let logger: Logger
    public var progress: (@Sendable (_ done: Int, _ total: Int) -> Void)?
    private var random = SystemRandomNumberGenerator()
    private var report = SyncReport()
    /// Answers the server kept but did not count in this run (a later answer was there, or the attempt was handed
    /// in): a hand-in whose receipt then counts them takes them out of `report.superseded` again.
    private var keptNotCounted: Set<String> = []
    private var batchSize: Int
    /// Set by the first failure: from then on this run respects the retry schedule.
    private var failedThisRun = false

    public init(
        vault: any SyncStore,
        client: ServerClient,
        options: Options = .init(),
        resolver: any ConflictResolver = FixedConflictPolicy(.keep),
        schedule: RetrySchedule = .init(),
        downloader: Downloader? = nil,
        logger: Logger = .disabled,
        now: (@Sendable () -> Date)? = nil,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.vault = vault
        self.client = client
        self.options = options
        self.resolver = resolver
        self.schedule = schedule
        self.downloader = downloader
        self.logger = logger
        // The vault's own wall clock unless another is given: one clock for what the vault stores and reads.
        self.now = now ?? vault.clocks.wall
        self.sleep = sleep
        batchSize = max(1, options.batchSize)
    }

    /// Runs until the queue is empty, something needs the student, or the network stops it (`SyncStopped`).
    public func run() async throws -> SyncReport {
        report = SyncReport()
        failedThisRun = false
        let total = try vault.queueLength()
        var ignoreBackoff = options.ignoreBackoff
        var rounds = 0
        var done = 0
        while rounds < 1_000 {
            rounds += 1
            if failedThisRun { ignoreBackoff = false }
            if try await uploadReadyAnswers(ignoreBackoff: ignoreBackoff, done: &done, total: total) { continue }
            if try await submitReady(ignoreBackoff: ignoreBackoff) { continue }
            if try await resolveConflicts() { continue }
            // Nothing could go now. Items waiting for their backoff: wait here if it is short, else stop.
            guard try vault.queueLength() > 0, let next = try vault.nextRetryAt(after: now()) else { break }
            let wait = max(0.001, next.timeIntervalSince(now()))
            guard wait <= options.maxInlineWait.inSeconds else {
                report.remaining = try vault.queueLength()
                throw SyncStopped(report: finish(), nextTryAt: next, reason: .degraded)
            }
            logger.info("waiting before the next try", metadata: ["seconds": "\(Int(saturating: wait))"])
            try await sleep(.milliseconds(Int(saturating: (wait * 1000).rounded(.up)) + 1))
            ignoreBackoff = false
        }
        if let downloader { report.refreshed = await refreshOutdated(downloader) }
        await reportGivenUp()
        if await followOtherDevices() { _ = try await submitReady(ignoreBackoff: true) }
        await fetchResults()
        await fetchConfirmations()
        await reportClientStats()
        try vault.noteSynced(at: now())
        return finish()
    }

    /// Dead letters the server never received (too large even alone, or their tries ran out) are reported to it once per attempt, so the teacher's
    /// roster shows "given up on the device" (the content stays here, in the dead letters). Best effort: the next sync
    /// tries again.
    private func reportGivenUp() async {
        do {
            for group in try vault.unreportedGivenUp() {
                try await client.reportGivenUp(GivenUpReport(assessmentId: group.assessmentID, attemptId: group.attemptID, items: group.ids.count))
                try vault.markReported(group.ids, now: now())
            }
        } catch {
            logger.info("given-up answers not reported", metadata: ["reason": "\(error)"])
        }
    }

    /// An attempt in progress here may have moved on on another of the student's devices: its later answers are
    /// brought here and a hand-in there closes it here, each said in a sentence. Best effort, like results: a failure
    /// never fails the sync (the answers are up); the next sync looks again.
    /// True when a receipt is to be renewed (a submission was queued again).
    private func followOtherDevices() async -> Bool {
        var renew = false
        do {
            let open = try vault.openAttemptsOnServer(now: now())
            guard !open.isEmpty, let user = try vault.account()?.user else { return false }
            let key = try vault.serverPublicKey()
            let here = Set(open.map(\.attemptID))
            for assessmentID in Set(open.map(\.assessmentID)).sorted() {
                for held in try await client.attempts(assessmentID: assessmentID, user: user, key: key) where here.contains(held.attemptId) {
                    let outcome = try vault.reconcile(held, now: now())
                    renew = renew || outcome.receiptRenewed
                    // Nothing moved (the usual case at every sync): no document is opened for a title.
                    guard outcome != Reconciliation() else { continue }
                    let title = (try? vault.loadAssessment(id: assessmentID, allowSealed: true).assessment.title) ?? assessmentID
                    report.notices += outcome.sentences(title: title)
                }
            }
        } catch {
            logger.info("attempts on other devices not checked", metadata: ["reason": "\(error)"])
        }
        return renew
    }

    /// The vault's own counts since its last report, only when the server's health says the school collects them
    /// (nothing of them is sent otherwise). Best effort, like results: a failure never fails the sync; what was not
    /// taken is sent with a later one.
    private func reportClientStats() async {
        do {
            guard try await client.health().clientStats == true else { return }
            let unsent = try vault.unsentClientStats()
            guard !unsent.isEmpty else { return }
            try await client.sendClientStats(ClientStatsReport(counts: Dictionary(uniqueKeysWithValues: unsent.map { ($0.key.rawValue, $0.value) })))
            try vault.markClientStatsSent(unsent)
        } catch {
            logger.info("client statistics not reported", metadata: ["reason": "\(error)"])
        }
    }

    /// Results of handed-in attempts, kept for offline viewing. Best effort: a failure here never fails the sync
    /// (the answers are up); the next sync tries again.
    private func fetchResults() async {
        guard (try? vault.hasReceipts()) == true else { return }
        do {
            guard let user = try vault.account()?.user else { return }
            let results = try await client.results(user: user, key: try vault.serverPublicKey())
            report.notices += try vault.saveResults(results, now: now()).map(\.sentence)
            report.results = results.count
        } catch {
            logger.info("results not fetched", metadata: ["reason": "\(error)"])
        }
    }

    /// From a classroom server: the district's receipts for hand-ins it passed on, and what the district refused
    /// (issue 68: said, never "Everything is uploaded"); a district's own server is not asked. Best effort: the next
    /// sync asks again.
    private func fetchConfirmations() async {
        guard (try? vault.serverIsClassroom()) == true else { return }
        do {
            guard let list = try await client.classroomReceipts() else { return }
            let new = try vault.acceptRefusals(list, now: now())
            report.refusedByDistrict = new.map(\.sentence)
            report.refusedEarlier = try vault.districtRefusals().keys.count { key in !new.contains { $0.attemptID == key } }
            guard (try? vault.hasReceipts()) == true else { return }
            report.confirmedByDistrict = try vault.acceptConfirmations(list, now: now())
        } catch {
            logger.info("district receipts not fetched", metadata: ["reason": "\(error)"])
        }
    }

    private func finish() -> SyncReport {
        report.remaining = (try? vault.queueLength()) ?? report.remaining
        report.conflicts = ((try? vault.conflictGroups()) ?? []).reduce(0) { $0 + max($1.responseIDs.count, $1.attemptIDs.count) }
        report.deadLetters = (try? vault.deadLetters().count) ?? report.deadLetters
        return report
    }

    // MARK: Answers

    /// Sends every answer that is ready, two batches in flight: while the server stores one batch, the vault
    /// settles the batch before it and reads the next, so the client's bookkeeping overlaps the server's work
    /// instead of adding to it. Returns false when nothing was ready.
    ///
    /// Exactly once is unaffected: a batch is marked synced only on the server's word, and an in-flight batch
    /// abandoned by a failure stays pending and is resent (the server answers `duplicate`).
    private func uploadReadyAnswers(ignoreBackoff: Bool, done: inout Int, total: Int) async throws -> Bool {
        var cursor = 0
        var inFlight: InFlightBatch?
        defer { inFlight?.task.cancel() }
        var sentAny = false
        let device = try vault.deviceID()
        // Answers going to a classroom server are signed by the vault's key (it passes them on to the district, which
        // verifies them); a district's own server needs no signature per answer.
        let key = try vault.serverIsClassroom() ? try vault.deviceKey(now: now()) : nil
        while true {
            let next = try nextBatch(after: cursor, ignoreBackoff: ignoreBackoff)
            var started: InFlightBatch?
            if let last = next.last {
                cursor = last.seq
                let client = client
                let outgoing = try key.map { key in try next.map { try Self.signed($0.outgoing, by: key) } } ?? next.map(\.outgoing)
                let publicKey = key?.publicKey
                started = InFlightBatch(
                    batch: next,
                    task: Task { try await client.uploadBatch(outgoing: outgoing, device: device, deviceKey: publicKey) }
                )
                sentAny = true
            }
            if let previous = inFlight {
                inFlight = started
                done += try await settle(previous)
                progress?(min(total, done), total)
            } else {
                inFlight = started
            }
            if started == nil { break }
        }
        return sentAny
    }

    /// An answer signed by the vault's key as it goes: what lets a classroom server pass it on to the district.
    static func signed(_ response: OutgoingResponse, by key: DeviceKey) throws -> OutgoingResponse {
        var response = response
        response.item.signature = try key.signature(for: AnswerSignature.statement(response.item, answerText: response.answerText))
        return response
    }

    /// A hand-in signed by the vault's key (`DeviceKey.signed`).
    static func signed(_ request: SubmissionRequest, by key: DeviceKey) throws -> SubmissionRequest { try key.signed(request) }

    private struct InFlightBatch {
        let batch: [QueuedResponse]
        let task: Task<[ItemResult], any Error>
    }

    /// The next batch after queue entry `cursor`, cut to the byte limit.
    private func nextBatch(after cursor: Int, ignoreBackoff: Bool) throws -> [QueuedResponse] {
        let queued = try vault.queuedResponses(now: now(), ignoreBackoff: ignoreBackoff, limit: batchSize, afterSeq: cursor)
        var batch: [QueuedResponse] = []
        var bytes = 0
        for item in queued where batch.isEmpty || bytes + item.encodedBytes <= options.maxBatchBytes {
            batch.append(item)
            bytes += item.encodedBytes
        }
        return batch
    }

    /// Applies a batch's results, or its failure; returns how many items it settled (0 when it failed).
    private func settle(_ flight: InFlightBatch) async throws -> Int {
        do {
            let results = try await flight.task.value
            try apply(results, for: flight.batch)
            batchSize = max(1, options.batchSize)
            return flight.batch.count
        } catch let error as ServerError {
            try handle(error, for: flight.batch.map { ($0.seq, $0.tries, QueueKind.response, $0.item.id) })
            return 0
        }
    }

    private func apply(_ results: [ItemResult], for batch: [QueuedResponse]) throws {
        // Stored on the server, by its word: uploaded, not yet handed in (only a receipt that names them does that).
        var uploaded: [String] = []
        for result in results {
            switch result.status {
            case .accepted:
                report.uploaded += 1
                uploaded.append(result.id)
            case .duplicate:
                report.duplicates += 1
                uploaded.append(result.id)
            case .superseded:
                report.superseded += 1
                keptNotCounted.insert(result.id)
                uploaded.append(result.id)
            case .conflict:
                try vault.markResponseConflict(result.id, serverVersion: result.currentVersion ?? 0, message: result.message)
            case .gone:
                report.gone += 1
                try vault.moveToDeadLetters(kind: .response, refID: result.id, reason: "This assessment is no longer available.", now: now())
            case .rejected:
                try vault.moveToDeadLetters(
                    kind: .response,
                    refID: result.id,
                    reason: "The server refused this answer: \(result.message ?? "no reason given").",
                    now: now()
                )
            }
        }
        try vault.markResponsesUploaded(uploaded)
    }

    /// A failure of a whole request: retry later, split, stop, or give up, by the API's retry rules.
    private func handle(_ error: ServerError, for items: [(seq: Int, tries: Int, kind: QueueKind, id: String)]) throws {
        switch error {
        case .signInExpired, .badCredentials, .forbidden:
            throw error
        case .tooLarge:
            if items.count > 1 {
                batchSize = max(1, items.count / 2)
            } else if let item = items.first {
                try vault.moveToDeadLetters(
                    kind: item.kind,
                    refID: item.id,
                    reason: "It is too large for the server to accept.",
                    unseen: true,
                    now: now()
                )
            }
        case .offline:
            // Hard offline: nothing can go now; the queue is kept as it was.
            report.remaining = try vault.queueLength()
            throw SyncStopped(report: finish(), nextTryAt: nil, reason: .offline)
        case .degraded, .serverFailure, .rateLimited:
            failedThisRun = true
            var retryAfter: Duration?
            if case .rateLimited(let after) = error { retryAfter = after }
            // One base time for the whole batch, so its items come due together and go out together again.
            let failedAt = now()
            for item in items {
                let gaveUp = try retryLater(seq: item.seq, tries: item.tries, error: error.vaultError.message, retryAfter: retryAfter, from: failedAt)
                if gaveUp { logger.notice("an upload became a dead letter", metadata: ["kind": "\(item.kind)"]) }
            }
        default:
            // 400, 404, 422 and answers that break the contract: no retry; keep the content as dead letters.
            for item in items {
                try vault.moveToDeadLetters(kind: item.kind, refID: item.id, reason: error.vaultError.message, now: now())
            }
        }
    }

    /// Counts a failed try of a queue entry and sets its next try by the retry schedule; true when it gave up.
    @discardableResult
    private func retryLater(seq: Int, tries: Int, error: String, retryAfter: Duration?, from failedAt: Date) throws -> Bool {
        let wait = schedule.delay(afterFailures: tries + 1, retryAfter: retryAfter, random: &random)
        return try vault.recordFailure(seq: seq, error: error, nextTryAt: failedAt.addingTimeInterval(wait.inSeconds), maxTries: options.maxTries)
    }

    // MARK: Submissions

    private func submitReady(ignoreBackoff: Bool) async throws -> Bool {
        let ready = try vault.queuedSubmissions(now: now(), ignoreBackoff: ignoreBackoff)
        guard !ready.isEmpty else { return false }
        // Receipts are verified against the pinned key; a vault that has none yet pins the server's now (trust on
        // first use, as `vault login` does).
        if try vault.pinnedServerKey() == nil {
            let key = try await client.serverKey()
            do {
                try vault.pinServerKey(key, serverURL: "")
            } catch {
                throw ServerError.badResponse("the server's key is not valid")
            }
        }
        var progressed = false
        let key = try vault.deviceKey(now: now())
        for submission in ready {
            do {
                let receipt = try await client.submit(try Self.signed(submission.request, by: key))
                // Verified against the pinned key before anything is marked: a bad receipt is a hostile server.
                try vault.acceptReceipt(receipt, attemptID: submission.request.attemptId, now: now())
                // Its own hand-in (not the closing's) counts every answer it lists: those are not "replaced" after all
                // (a hand-in made before closing that arrives after the closing's, issue 67).
                let statement = receipt.signed.flatMap { try? JSONDecoder().decode(ReceiptStatement.self, from: Data($0.statement.utf8)) }
                if let statement, statement.handedInAtClosing != true {
                    let counted = keptNotCounted.intersection(statement.responses.map(\.responseId))
                    report.superseded -= counted.count
                    keptNotCounted.subtract(counted)
                }
                report.submitted += 1
                report.receipts.append(receipt.receiptId)
                // The server's sentence, shown to the student: bounded, and without control characters (no terminal
                // escapes from a hostile server).
                if let notice = receipt.notice?.unicodeScalars.filter({ $0.properties.generalCategory != .control }).prefix(500), !notice.isEmpty {
                    report.notices.append(String(String.UnicodeScalarView(notice)))
                }
                report.unconfirmed.removeValue(forKey: submission.request.attemptId)
                progressed = true
            } catch let incomplete as IncompleteReceipt {
                // The receipt leaves answers out (a middle box ate them, or the server lost them): they were queued
                // again; the submission stays queued and counts a try, so a loss that persists ends in a sentence.
                report.unconfirmed[submission.request.attemptId] = incomplete.questions
                logger.notice("a receipt left answers out", metadata: ["answers": "\(incomplete.questions.count)"])
                failedThisRun = true
                try retryLater(seq: submission.seq, tries: submission.tries, error: incomplete.message, retryAfter: nil, from: now())
                progressed = !incomplete.requeued.isEmpty
            } catch ServerError.versionConflict(let version) {
                try vault.markSubmissionConflict(attemptID: submission.request.attemptId, serverVersion: version)
                progressed = true
            } catch ServerError.notFound {
                report.gone += 1
                try vault.moveToDeadLetters(
                    kind: .submission,
                    refID: submission.request.attemptId,
                    reason: "This assessment is no longer available.",
                    now: now()
                )
                progressed = true
            } catch ServerError.responsesMissing(let missing) {
                try vault.requeueResponses(missing, now: now())
                progressed = true
            } catch let error as ServerError {
                try handle(error, for: [(submission.seq, submission.tries, QueueKind.submission, submission.request.attemptId)])
            }
        }
        return progressed
    }

    // MARK: Conflicts

    private var decided: Set<String> = []

    /// Asks once per assessment and run; true when a decision changed the queue.
    private func resolveConflicts() async throws -> Bool {
        var changed = false
        for group in try vault.conflictGroups() where !decided.contains(group.assessmentID) {
            decided.insert(group.assessmentID)
            switch await resolver.decide(group) {
            case .submit:
                try vault.forceConflicts(group, now: now())
                changed = true
            case .discard:
                try vault.discardConflicts(group)
                if let downloader { _ = try? await downloader.download(group.assessmentID) }
                changed = true
            case .keep:
                continue
            }
        }
        return changed
    }

    // MARK: Refresh

    /// Downloads newer versions of cached assessments that have no open attempt.
    private func refreshOutdated(_ downloader: Downloader) async -> [String] {
        guard let catalog = try? await client.catalog(), let cached = try? vault.cachedAssessments() else { return [] }
        var refreshed: [String] = []
        for entry in catalog {
            let mine = cached.filter { $0.id == entry.id }
            // An attempt open on the version served now: the student's own copy may have changed under the same
            // version (extra time given during the exam changes its limit). A conditional download brings it (a 304
            // when it did not), stored in place, so the deadline this vault enforces follows the teacher's.
            if mine.contains(where: { $0.version == entry.version && $0.attemptState.isOpen }) {
                _ = try? await downloader.download(entry.id)
                continue
            }
            guard let newest = mine.map(\.version).max(), newest < entry.version, !mine.contains(where: { $0.attemptState.isOpen }) else {
                continue
            }
            if case .stored? = try? await downloader.download(entry.id) { refreshed.append(entry.id) }
        }
        return refreshed
    }
}

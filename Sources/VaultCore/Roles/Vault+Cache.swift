import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

/// The offline cache: storing verified downloads, listing, loading, and eviction.
extension Vault {
    /// What the attempts and answers of one cached version amount to, gathered in one grouped pass each.
    struct VersionFacts {
        var pending = 0
        var open = false
        var submitted = false
        var synced = false
        var latestState: AttemptProgress?
        var latestStart = Int64.min
    }

    func versionFacts() throws -> [String: VersionFacts] {
        var facts: [String: VersionFacts] = [:]
        // SQLite gives the bare column (the clock's start) from the row that holds the group's max(started_at).
        for row in try database.rows(
            "SELECT assessment_id, assessment_version, state, max(started_at), timer_started_at IS NOT NULL FROM attempts GROUP BY 1, 2, 3"
        ) {
            let key = "\(try row.string(0))@\(try row.int(1))"
            var fact = facts[key] ?? VersionFacts()
            let state = try row.state(AttemptRecord.State.self, 2)
            switch state {
            case .inProgress: fact.open = true
            case .submitted: fact.submitted = true
            case .synced: fact.synced = true
            }
            let started = try row.int64(3)
            let clockStarted = try row.bool(4)
            if started > fact.latestStart {
                fact.latestStart = started
                // Only an open attempt whose clock has not begun needs the time limit (read from the document once).
                let waiting = state == .inProgress && !clockStarted
                let timed = waiting ? try timeLimit(assessmentID: try row.string(0), version: try row.int(1)) != nil : false
                fact.latestState = AttemptProgress(state, timed: timed, clockStarted: !waiting)
            }
            facts[key] = fact
        }
        // One pass over the unsent answers (an index on state), not one per assessment.
        for row in try database.rows(
            """
            SELECT t.assessment_id, t.assessment_version, count(*) FROM responses r JOIN attempts t ON t.id = r.attempt_id
            WHERE r.state IN \(ResponseState.sqlList([.pending, .conflict])) GROUP BY 1, 2
            """
        ) {
            facts["\(try row.string(0))@\(try row.int(1))", default: VersionFacts()].pending = try row.int(2)
        }
        // A version handed in and uploaded before it was evicted stays handed in when it is downloaded again (issue
        // 71): its answer sheet is what is left of the attempt.
        for row in try database.rows("SELECT DISTINCT assessment_id, assessment_version FROM answer_sheets") {
            let key = "\(try row.string(0))@\(try row.int(1))"
            guard facts[key]?.latestState == nil else { continue }
            var fact = facts[key] ?? VersionFacts()
            fact.synced = true
            fact.latestState = AttemptProgress(.synced, timed: false, clockStarted: true)
            facts[key] = fact
        }
        return facts
    }

    /// Facts about every cached version, for the eviction policy and the reports.
    public func cacheEntries() throws -> [EvictionPolicy.Entry] {
        try cacheEntries(facts: versionFacts())
    }

    func cacheEntries(facts: [String: VersionFacts]) throws -> [EvictionPolicy.Entry] {
        try database.rows("SELECT id, version, compressed_bytes, downloaded_at, opened_at, expires_at FROM assessments").map { row in
            let fact = facts["\(try row.string(0))@\(try row.int(1))"] ?? VersionFacts()
            return EvictionPolicy.Entry(
                id: try row.string(0),
                version: try row.int(1),
                storedBytes: try row.int(2),
                downloadedAt: try row.date(3),
                lastOpenedAt: try row.optionalDate(4),
                expiresAt: try row.date(5),
                hasOpenAttempt: fact.open,
                hasUnsyncedWork: fact.submitted || fact.pending > 0,
                hasSyncedAttempt: fact.synced
            )
        }
    }

    public func evictionPolicy(now: Date) throws -> EvictionPolicy {
        let settings = try settings()
        return EvictionPolicy(limits: .init(maxBytes: settings.maxCacheBytes, maxCount: settings.maxAssessments), now: now)
    }

    /// The newest cached version of an assessment: version, content hash and ETag.
    public func cachedVersion(of id: String) throws -> (version: Int, contentHash: String, etag: String?)? {
        try database.row("SELECT version, content_hash, etag FROM assessments WHERE id = ? ORDER BY version DESC LIMIT 1", [id])
            .map { (try $0.int(0), try $0.string(1), try $0.optionalString(2)) }
    }

    /// Stores a verified, served document (gzip-compressed), making room first. Older versions of the same
    /// assessment are dropped unless an attempt on them is open or not yet uploaded.
    public func storeAssessment(
        _ served: Assessment,
        bytes servedBytes: Data,
        etag: String?,
        source: AssessmentSource = .server,
        now: Date? = nil,
        diskSpace: DiskSpace = .system
    ) throws -> StoreOutcome {
        let now = now ?? clocks.wall()
        // A sealed exam unsealed here is never sealed again by a later download of the same version (a sync brings
        // the student's copy again when their extra time changes): it is opened with the key kept at unsealing.
        var assessment = served
        var bytes = servedBytes
        if served.sealedContent != nil, let version = served.version,
            let held = try database.row("SELECT sealed FROM assessments WHERE id = ? AND version = ?", [served.id, version]), try held.int(0) == 0,
            let key = try database.row("SELECT content_key FROM sealed_keys WHERE assessment_id = ? AND version = ?", [served.id, version])
        {
            do {
                assessment = try Sealing.unseal(served, contentKey: try key.data(0))
                try AssessmentValidator.validate(assessment, requireAnswerKeyAbsent: true)
            } catch {
                throw VaultError(.invalidData, tr("That key does not open this exam."), detail: "\(error)")
            }
            bytes = try CanonicalJSON.encode(assessment)
        }
        let settings = try settings()
        guard let version = assessment.version, let contentHash = assessment.contentHash else {
            throw VaultError(.invalidData, tr("The server sent an assessment without a version; nothing was stored."))
        }
        guard bytes.count <= settings.value("cache.max_document_bytes") else {
            throw VaultError(
                .invalidData,
                tr("{title} is larger than the 10 MB an assessment may be; nothing was stored.", ["title": assessment.title])
            )
        }
        let compressed = try Gzip.compress(bytes)
        let free = diskSpace.freeBytes(paths.root)
        // Twice the stored size (the database and its journal during the write) and 1 MB to spare.
        let needed = 2 * compressed.count + 1_000_000
        guard free >= needed else {
            throw VaultError(
                .diskFull,
                tr(
                    "There is not enough free disk space to store {title}: it needs {needed} free, and there is {free}. Free some space and try again; nothing was changed.",
                    ["title": assessment.title, "needed": ByteSize.text(needed), "free": ByteSize.text(max(free, 0))]
                )
            )
        }
        let ttl = TimeInterval(settings.ttlDays) * 24 * 3600
        var expires = now.addingTimeInterval(ttl)
        if let notAfter = assessment.notAfter.flatMap(Timestamp.date), notAfter < expires { expires = notAfter }
        let hashes = Dictionary(uniqueKeysWithValues: assessment.questions.map { ($0.id, $0.hash ?? "") })
        let hashText = String(decoding: try CanonicalJSON.encode(hashes), as: UTF8.self)

        return try database.inTransaction {
            var entries = try cacheEntries().filter { !($0.id == assessment.id && $0.version == version) }
            // Older versions of this assessment that nobody needs go anyway; do not count them twice. One with an
            // uploaded attempt stays (it holds the receipt) until the eviction policy removes it.
            let replaceable = entries.filter { $0.id == assessment.id && $0.version < version && !$0.isProtected && !$0.hasSyncedAttempt }
            entries.removeAll { entry in replaceable.contains { $0.id == entry.id && $0.version == entry.version } }
            let policy = EvictionPolicy(limits: .init(maxBytes: settings.maxCacheBytes, maxCount: settings.maxAssessments), now: now)
            let evicted: [EvictionPolicy.Candidate]
            switch policy.plan(entries: entries, incomingBytes: compressed.count) {
            case .evict(let candidates): evicted = candidates
            case .cannotFit:
                throw VaultError(
                    .cannotCreate,
                    tr(
                        "The offline cache is full of work that is not uploaded yet, so {title} cannot be stored. Sync, or raise cache.max_bytes / cache.max_assessments, then try again.",
                        ["title": assessment.title]
                    )
                )
            }
            for candidate in evicted { try deleteCached(id: candidate.id, version: candidate.version) }
            try count(.evictions, by: evicted.count)
            for old in replaceable { try deleteCached(id: old.id, version: old.version) }
            // The same version served again (the student's extra time changed its limit, or a sealed copy): stored over
            // the one held, in place, so an attempt open on it keeps it (deleting the row an attempt refers to failed
            // its foreign key, and the student read "the vault could not be written"); when it was first opened stays.
            let values: [any DatabaseValueConvertible] = [
                assessment.title, contentHash, hashText, compressed, compressed.count, bytes.count, etag, now.millisecondsSince1970,
                expires.millisecondsSince1970, now.millisecondsSince1970, assessment.sealedContent != nil,
                assessment.opensAt.flatMap(Timestamp.milliseconds),
                source.rawValue,
            ]
            if try database.row("SELECT 1 FROM assessments WHERE id = ? AND version = ?", [assessment.id, version]) != nil {
                try database.execute(
                    """
                    UPDATE assessments SET title = ?, content_hash = ?, question_hashes = ?, document = ?, compressed_bytes = ?,
                        uncompressed_bytes = ?, etag = ?, downloaded_at = ?, expires_at = ?, last_accessed_at = ?, sealed = ?, opens_at = ?,
                        source = ?
                    WHERE id = ? AND version = ?
                    """,
                    values + [assessment.id, version]
                )
            } else {
                try database.execute(
                    """
                    INSERT INTO assessments (title, content_hash, question_hashes, document, compressed_bytes, uncompressed_bytes, etag,
                        downloaded_at, expires_at, last_accessed_at, sealed, opens_at, source, id, version, opened_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
                    """,
                    values + [assessment.id, version]
                )
            }
            // What was read of the version held before (its limit, its questions' hashes) is read again.
            timeLimitCache["\(assessment.id)@\(version)"] = nil
            questionHashCache["\(assessment.id)@\(version)"] = nil
            return StoreOutcome(evicted: evicted, replacedVersions: replaceable.map(\.version), expiresAt: expires)
        }
    }

    /// A 304 from the server: the cached copy is current; its expiry restarts.
    public func refreshCached(id: String, version: Int, now: Date? = nil) throws {
        let now = now ?? clocks.wall()
        let ttl = TimeInterval(try settings().ttlDays) * 24 * 3600
        try database.execute(
            "UPDATE assessments SET downloaded_at = ?, expires_at = MIN(expires_at + (? - downloaded_at), ?) WHERE id = ? AND version = ?",
            [now.millisecondsSince1970, now.millisecondsSince1970, now.addingTimeInterval(ttl).millisecondsSince1970, id, version]
        )
    }

    private func deleteCached(id: String, version: Int) throws {
        // Attempts already uploaded go with their assessment (their answers were acknowledged by the server); what
        // they were is kept as their answer sheets, so their results still read.
        try keepAnswerSheets(id: id, version: version, now: clocks.wall())
        try database.execute(
            "DELETE FROM responses WHERE attempt_id IN (SELECT id FROM attempts WHERE assessment_id = ? AND assessment_version = ?)",
            [id, version]
        )
        try database.execute("DELETE FROM attempts WHERE assessment_id = ? AND assessment_version = ?", [id, version])
        try database.execute("DELETE FROM assessments WHERE id = ? AND version = ?", [id, version])
    }

    /// Every cached version, newest first, with its attempt state.
    public func cachedAssessments(now: Date? = nil) throws -> [CachedAssessment] {
        let now = now ?? clocks.wall()
        return try cachedAssessments(now: now, facts: versionFacts())
    }

    func cachedAssessments(now: Date, facts: [String: VersionFacts]) throws -> [CachedAssessment] {
        try database.rows(
            """
            SELECT id, title, version, compressed_bytes, uncompressed_bytes, downloaded_at, expires_at, last_accessed_at, sealed, opens_at,
                source
            FROM assessments ORDER BY id, version DESC
            """
        ).map { row in
            let fact = facts["\(try row.string(0))@\(try row.int(2))"] ?? VersionFacts()
            return CachedAssessment(
                id: try row.string(0),
                title: try row.string(1),
                version: try row.int(2),
                sizeBytes: try row.int(3),
                uncompressedBytes: try row.int(4),
                downloadedAt: Timestamp.string(try row.date(5)),
                expiresAt: Timestamp.string(try row.date(6)),
                lastAccessedAt: Timestamp.string(try row.date(7)),
                attemptState: fact.latestState ?? .none,
                pendingAnswers: fact.pending,
                expired: try row.date(6) <= now,
                sealed: try row.int(8) != 0,
                opensAt: try row.optionalDate(9).map(Timestamp.string),
                source: AssessmentSource(rawValue: try row.string(10)) ?? .server
            )
        }
    }

    /// Decompresses (under the caps) and decodes a cached document; `opened` records that the student looked at it.
    ///
    /// A read only: it writes nothing (no commit, no fsync). Access for the eviction order is recorded when an
    /// attempt starts (`recordAccess`), inside that transaction; not per answer, because the row holds the
    /// compressed document and rewriting it with every answer doubled the cost of a save (measured).
    public func loadAssessment(
        id: String,
        version: Int? = nil,
        now: Date? = nil,
        allowSealed: Bool = false
    ) throws -> (assessment: Assessment, expiresAt: Date) {
        let now = now ?? clocks.wall()
        let row: Row?
        if let version {
            row = try database.row("SELECT document, version, expires_at FROM assessments WHERE id = ? AND version = ?", [id, version])
        } else {
            row = try database.row("SELECT document, version, expires_at FROM assessments WHERE id = ? ORDER BY version DESC LIMIT 1", [id])
        }
        guard let row else {
            throw VaultError(
                .notFound,
                tr("{id} is not downloaded. Run `vault download {id}` while online; `vault list` shows what is here.", ["id": id])
            )
        }
        let assessment: Assessment
        do {
            assessment = try JSONDecoder().decode(Assessment.self, from: try Gzip.decompress(try row.data(0)))
        } catch {
            throw VaultError(
                .databaseDamaged,
                tr("The stored copy of {id} is damaged. Download it again when online.", ["id": id]),
                detail: "\(error)"
            )
        }
        if allowSealed { return (assessment, try row.date(2)) }
        guard assessment.sealedContent == nil else {
            let sealed = tr(
                "{title} is a sealed exam: its questions open with the start code from the person running it.",
                ["title": assessment.title]
            )
            let opens = assessment.opensAt.flatMap(Timestamp.date).map {
                tr("It opens {when}, or earlier with the start code.", ["when": PeopleDates.dayAndClock($0)])
            }
            let unseal = tr("Run `vault unseal {id}` to type the code (or `vault unseal {id} --online` once it has opened).", ["id": id])
            throw VaultError(.notAllowed, ([sealed] + (opens.map { [$0] } ?? []) + [unseal]).joined(separator: " "))
        }
        return (assessment, try row.date(2))
    }

    /// Marks a cached version used (and opened) for the eviction order. Called inside the transaction that starts an
    /// attempt, so recording access costs no commit of its own.
    func recordAccess(id: String, version: Int, now: Date) throws {
        try count(.cacheHits)
        try database.execute(
            "UPDATE assessments SET last_accessed_at = ?, opened_at = coalesce(opened_at, ?) WHERE id = ? AND version = ?",
            [now.millisecondsSince1970, now.millisecondsSince1970, id, version]
        )
    }

    /// Manual cleanup. Never removes an assessment with an open attempt or work not yet uploaded; says why.
    public func evict(ids: [String], expired: Bool, synced: Bool, all: Bool = false, now: Date? = nil) throws -> EvictionReport {
        let now = now ?? clocks.wall()
        let entries = try cacheEntries()
        let known = Set(entries.map(\.id))
        var report = EvictionReport(evicted: [], kept: [], freedBytes: 0)
        for id in ids where !known.contains(id) {
            throw VaultError(.notFound, tr("{id} is not in the offline cache; `vault list` shows what is.", ["id": id]))
        }
        try database.inTransaction {
            for entry in entries {
                // Ids name what is evicted; --expired and --synced then only narrow them (`evict --synced banco` is banco,
                // once its attempt is uploaded), and without ids they choose among everything.
                let chosen = (expired && entry.expiresAt <= now) || (synced && entry.hasSyncedAttempt)
                let named = ids.contains(entry.id)
                guard all || (ids.isEmpty ? chosen : named) else { continue }
                if named, expired || synced, !chosen {
                    report.kept.append(
                        .init(id: entry.id, reason: synced ? tr("its attempt is not uploaded yet") : tr("it has not expired"))
                    )
                    continue
                }
                if entry.hasOpenAttempt {
                    report.kept.append(.init(id: entry.id, reason: tr("an attempt is in progress")))
                } else if entry.hasUnsyncedWork {
                    report.kept.append(.init(id: entry.id, reason: tr("answers are not uploaded yet; run `vault sync` first")))
                } else {
                    try deleteCached(id: entry.id, version: entry.version)
                    try count(.evictions)
                    report.evicted.append(entry.id)
                    report.freedBytes += entry.storedBytes
                }
            }
        }
        return report
    }
}

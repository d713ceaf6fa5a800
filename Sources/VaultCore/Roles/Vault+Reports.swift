import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

/// Local figures for `status`, `storage` and `verify`. No network on any of these paths.
extension Vault {
    public func status() throws -> StatusReport {
        let session = SessionKeyring.info(vaultID: vaultID)
        return StatusReport(
            connectivity: try meta("connectivity") ?? "unknown",
            pendingAnswers: try database.scalarInt("SELECT count(*) FROM responses WHERE state = \(ResponseState.pending.sql)"),
            pendingSubmissions: try database.scalarInt("SELECT count(*) FROM sync_queue WHERE kind = \(QueueKind.submission.sql)"),
            deadLetters: try database.scalarInt("SELECT count(*) FROM dead_letters"),
            conflicts: try database.scalarInt("SELECT count(*) FROM responses WHERE state = \(ResponseState.conflict.sql)"),
            lastSyncAt: try metaTime("last_sync_at").map(Timestamp.string),
            unlockedUntil: session.map { Timestamp.string($0.expiresAt) },
            sessionKeyring: session?.keyring.rawValue
        )
    }

    /// Sizes per cached assessment, whether eviction may remove each, and the order it would take.
    public func storage(now: Date? = nil) throws -> StorageReport {
        let now = now ?? clocks.wall()
        let settings = try settings()
        let policy = try evictionPolicy(now: now)
        let versions = try versionFacts()
        let facts = try cacheEntries(facts: versions)
        let listed = try cachedAssessments(now: now, facts: versions)
        let entries = listed.map { item in
            let fact = facts.first { $0.id == item.id && $0.version == item.version }
            return StorageReport.Entry(
                id: item.id,
                version: item.version,
                title: item.title,
                storedBytes: item.sizeBytes,
                uncompressedBytes: item.uncompressedBytes,
                lastAccessedAt: item.lastAccessedAt,
                expiresAt: item.expiresAt,
                pendingAnswers: item.pendingAnswers,
                evictable: fact.map { policy.tier(of: $0) != nil } ?? false
            )
        }
        let next = policy.order(facts).map {
            StorageReport.NextEviction(id: $0.id, version: $0.version, storedBytes: $0.storedBytes, reason: $0.tier.description)
        }
        let fileBytes = ((try? FileManager.default.contentsOfDirectory(atPath: paths.root)) ?? [])
            .reduce(0) { $0 + SecureFiles.size(paths.root + "/" + $1) }
        return StorageReport(
            usedBytes: entries.reduce(0) { $0 + $1.storedBytes },
            limitBytes: settings.maxCacheBytes,
            maxAssessments: settings.maxAssessments,
            fileBytes: fileBytes,
            pendingAnswers: versions.values.reduce(0) { $0 + $1.pending },
            assessments: entries,
            nextEvictions: next
        )
    }

    /// Checks the key file, every database page (each page's HMAC is verified as it is read) and every stored blob.
    /// Every stored value of another type than its column holds (text in a time, a number in a blob), in every
    /// table, and every time in the key-value tables that is not milliseconds: what the strict reader would stop at,
    /// found before a command does (at most 10 per column).
    func mistypedValues() throws -> [StoredValueError] {
        var found: [StoredValueError] = []
        let tables = try database.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .map { try $0.string(0) }
        for table in tables {
            for column in try database.rows("PRAGMA table_info(\(table))") {
                let name = try column.string(1)
                // A REAL column keeps a whole number as REAL; INTEGER and TEXT columns turn what they can into theirs.
                let kinds: String
                switch try column.string(2).uppercased() {
                case "INTEGER": kinds = "'integer'"
                case "REAL": kinds = "'real', 'integer'"
                case "TEXT": kinds = "'text'"
                case "BLOB": kinds = "'blob'"
                default: continue
                }
                for row in try database.rows("SELECT rowid FROM \(table) WHERE typeof(\"\(name)\") NOT IN ('null', \(kinds)) LIMIT 10") {
                    found.append(StoredValueError(table: table, column: name, problem: "is not its column's type (row \(try row.int(0)))"))
                }
            }
        }
        let keyValueTimes = [("vault_meta", "key IN ('created_at', 'last_sync_at')"), ("settings", "key LIKE 'take.open.%'")]
        for (table, keys) in keyValueTimes {
            for row in try database.rows("SELECT key FROM \(table) WHERE \(keys) AND CAST(CAST(value AS INTEGER) AS TEXT) != value") {
                found.append(StoredValueError(table: table, column: try row.string(0), problem: "is not a time in milliseconds"))
            }
        }
        return found
    }

    public func verify() -> VerifyReport {
        var problems: [String] = []
        do {
            let onDisk = try Vault.loadKeyFile(paths.keyFile)
            if try onDisk.encoded() != keyFile.encoded() { problems.append(tr("The key file changed on disk while the vault was open.")) }
        } catch {
            problems.append("\(error)")
        }
        for (path, isDirectory) in [(paths.directory, true), (paths.keyFile, false), (paths.database, false)] {
            do { try SecureFiles.checkPrivate(path, isDirectory: isDirectory) } catch { problems.append("\(error)") }
        }
        do {
            let results = try database.rows("PRAGMA integrity_check").map { try $0.string(0) }
            if results != ["ok"] { problems.append(contentsOf: results.prefix(10).map { tr("Database check: {result}", ["result": $0]) }) }
            let orphans = try database.rows("PRAGMA foreign_key_check")
            if !orphans.isEmpty {
                problems.append(trn("{n} row refers to a record that does not exist.", "{n} rows refer to records that do not exist.", orphans.count))
            }
            problems.append(contentsOf: try mistypedValues().map(\.sentence))
            for row in try database.rows("SELECT \(StoredResponse.selection) FROM \(StoredResponse.fromClause)") {
                do {
                    let stored = try StoredResponse(row)
                    guard stored.item == nil else { continue }
                    problems.append(
                        tr(
                            "The answer {id} to question {question} of {assessment} cannot be read back; it will not be uploaded.",
                            ["id": stored.id, "question": stored.questionID, "assessment": stored.assessmentID]
                        )
                    )
                } catch let error as StoredValueError {
                    problems.append(error.damagedRow(key: try row.optionalString(StoredResponse.Column.id.rawValue) ?? "?").sentence)
                }
            }
            for row in try database.rows("SELECT id, version, content_hash, document, uncompressed_bytes FROM assessments") {
                let name = tr("{id} version {version}", ["id": try row.string(0), "version": try row.int(1)])
                do {
                    let document = try Gzip.decompress(try row.data(3))
                    let storedSize = try row.int(4)
                    let storedHash = try row.string(2)
                    if document.count != storedSize { problems.append(tr("Assessment {name}: stored size does not match.", ["name": name])) }
                    let decoded = try JSONDecoder().decode(Assessment.self, from: document)
                    if decoded.sealedContent != nil {
                        // Still sealed: its content hash is the unsealed document's, checked when it is unsealed.
                        if decoded.contentHash != storedHash {
                            problems.append(tr("Assessment {name}: content hash does not match.", ["name": name]))
                        }
                    } else if try ServedDocument.contentHash(decoded) != storedHash || decoded.contentHash != storedHash {
                        problems.append(tr("Assessment {name}: content hash does not match.", ["name": name]))
                    }
                } catch {
                    problems.append(tr("Assessment {name}: {error}", ["name": name, "error": "\(error)"]))
                }
            }
            // Every kept result and receipt reads back; every receipt is still signed by the pinned key, and names the
            // answers this vault holds.
            let receipts = try receipts()
            for damaged in try self.results().damaged + receipts.damaged { problems.append(damaged.sentence) }
            for receipt in receipts {
                let name = tr("Receipt {id} ({assessment})", ["id": receipt.statement.receiptId, "assessment": receipt.statement.assessmentId])
                do {
                    let check = try check(receipt.signed)
                    if let mismatched = check.mismatchedQuestions, !mismatched.isEmpty {
                        problems.append(
                            tr(
                                "{name} names other answers than this vault holds for {questions}.",
                                ["name": name, "questions": mismatched.joined(separator: ", ")]
                            )
                        )
                    }
                    if let missing = check.missingQuestions, !missing.isEmpty {
                        problems.append(
                            tr(
                                "{name} does not name this vault's answers to {questions}.",
                                ["name": name, "questions": missing.joined(separator: ", ")]
                            )
                        )
                    }
                } catch let error as VaultError {
                    problems.append(tr("{name}: {error}", ["name": name, "error": error.message]))
                }
            }
        } catch {
            problems.append(tr("The database is damaged or was tampered with: {error}", ["error": "\(error)"]))
        }
        return VerifyReport(ok: problems.isEmpty, problems: problems)
    }
}

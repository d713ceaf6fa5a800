import Foundation

/// Local figures for `status`, `storage` and `verify`. No network on any of these paths.
extension Vault {
    public func status() throws -> StatusReport {
        StatusReport(
            connectivity: try meta("connectivity") ?? "unknown",
            pendingAnswers: try database.scalarInt("SELECT count(*) FROM responses WHERE state = 'pending'"),
            pendingSubmissions: try database.scalarInt("SELECT count(*) FROM sync_queue WHERE kind = 'submission'"),
            deadLetters: try database.scalarInt("SELECT count(*) FROM dead_letters"),
            conflicts: try database.scalarInt("SELECT count(*) FROM responses WHERE state = 'conflict'"),
            lastSyncAt: try meta("last_sync_at"))
    }

    /// Sizes per cached assessment and whether eviction may remove each.
    public func storage(now: Date = Date()) throws -> StorageReport {
        let settings = try settings()
        let rows = try database.rows(
            """
            SELECT a.id, a.version, a.title, a.compressed_bytes, a.uncompressed_bytes, a.last_accessed_at, a.expires_at,
                (SELECT count(*) FROM responses r JOIN attempts t ON t.id = r.attempt_id
                    WHERE t.assessment_id = a.id AND t.assessment_version = a.version AND r.state IN ('pending', 'conflict')),
                (SELECT count(*) FROM attempts t WHERE t.assessment_id = a.id AND t.assessment_version = a.version
                    AND t.state IN ('in_progress', 'submitted'))
            FROM assessments a ORDER BY a.last_accessed_at DESC
            """)
        let entries = rows.map { row in
            StorageReport.Entry(
                id: row.string(0), version: row.int(1), title: row.string(2), storedBytes: row.int(3),
                uncompressedBytes: row.int(4), lastAccessedAt: Timestamp.string(epoch: row.double(5)),
                expiresAt: Timestamp.string(epoch: row.double(6)), pendingAnswers: row.int(7),
                evictable: row.int(7) == 0 && row.int(8) == 0)
        }
        let fileBytes = ((try? FileManager.default.contentsOfDirectory(atPath: paths.directory)) ?? [])
            .reduce(0) { $0 + SecureFiles.size(paths.directory + "/" + $1) }
        return StorageReport(
            usedBytes: entries.reduce(0) { $0 + $1.storedBytes }, limitBytes: settings.maxCacheBytes,
            maxAssessments: settings.maxAssessments, fileBytes: fileBytes,
            pendingAnswers: try database.scalarInt("SELECT count(*) FROM responses WHERE state IN ('pending', 'conflict')"),
            assessments: entries)
    }

    /// Checks the key file, every database page (each page's HMAC is verified as it is read) and every stored blob.
    public func verify() -> VerifyReport {
        var problems: [String] = []
        do {
            let onDisk = try Vault.loadKeyFile(paths.keyFile)
            if onDisk != keyFile { problems.append("The key file changed on disk while the vault was open.") }
        } catch {
            problems.append("\(error)")
        }
        for (path, isDirectory) in [(paths.directory, true), (paths.keyFile, false), (paths.database, false)] {
            do { try SecureFiles.checkPrivate(path, isDirectory: isDirectory) } catch { problems.append("\(error)") }
        }
        do {
            let results = try database.rows("PRAGMA integrity_check").map { $0.string(0) }
            if results != ["ok"] { problems.append(contentsOf: results.prefix(10).map { "Database check: \($0)" }) }
            let orphans = try database.rows("PRAGMA foreign_key_check")
            if !orphans.isEmpty { problems.append("\(orphans.count) rows refer to records that do not exist.") }
            for row in try database.rows("SELECT id, version, content_hash, document, uncompressed_bytes FROM assessments") {
                let name = "\(row.string(0)) v\(row.int(1))"
                do {
                    let document = try Gzip.decompress(row.data(3))
                    if document.count != row.int(4) { problems.append("Assessment \(name): stored size does not match.") }
                    if SHA256.hex(document) != row.string(2) { problems.append("Assessment \(name): content hash does not match.") }
                } catch {
                    problems.append("Assessment \(name): \(error)")
                }
            }
        } catch {
            problems.append("The database is damaged or was tampered with: \(error)")
        }
        return VerifyReport(ok: problems.isEmpty, problems: problems)
    }
}

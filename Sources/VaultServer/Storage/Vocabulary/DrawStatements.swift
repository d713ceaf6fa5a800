import Foundation
import VaultAPI
import VaultRules

/// Each student's draw of an assessment with pools or shuffling (`DrawPlan`): made once, at their first download,
/// kept for every device, re-download and later version.
public enum DrawStatements {
    static let columns = ["seed", "version", "draw"]

    public static func draw(assessmentID: String, user: String) -> SQLStatement {
        SQLStatement(
            "SELECT seed, version, draw FROM draws WHERE assessment_id = ? AND user_name = ?",
            [.text(assessmentID), .text(user)],
            columns: columns
        )
    }

    /// Every student's draw of an assessment (the desk's answer sheets and item analysis).
    public static func draws(assessmentID: String) -> SQLStatement {
        SQLStatement(
            "SELECT user_name, seed, version, draw FROM draws WHERE assessment_id = ?",
            [.text(assessmentID)],
            columns: ["user_name"] + columns
        )
    }

    public static func stored(_ row: any StoredRow) throws -> StoredDraw {
        do {
            return try StoredDraw(seed: Int64(try row.int("seed")), version: try row.int("version"), drawText: try row.string("draw"))
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.damaged("a stored draw cannot be read")
        }
    }

    /// A stored draw's text read back; damage when it is not one.
    static func drawText(_ text: String) throws -> Draw {
        do {
            return try JSONDecoder().decode(Draw.self, from: Data(text.utf8))
        } catch {
            throw StorageError.damaged("a stored draw cannot be read")
        }
    }

    /// The first draw stored stands (two devices downloading at once, two server processes: one of them).
    static func insert(_ draw: StoredDraw, assessmentID: String, user: String, at: Date, dialect: SQLDialect) throws -> SQLStatement {
        SQLStatement(
            dialect.insertIfAbsent(
                into: "draws",
                columns: ["assessment_id", "user_name", "seed", "version", "draw", "made_at"],
                key: ["assessment_id", "user_name"]
            ),
            [
                .text(assessmentID), .text(user), .integer(Int(draw.seed)), .integer(draw.version), .text(try draw.drawText()),
                .real(at.timeIntervalSince1970),
            ]
        )
    }

    static func update(_ draw: StoredDraw, assessmentID: String, user: String) throws -> SQLStatement {
        SQLStatement(
            "UPDATE draws SET version = ?, draw = ? WHERE assessment_id = ? AND user_name = ? AND version < ?",
            [.integer(draw.version), .text(try draw.drawText()), .text(assessmentID), .text(user), .integer(draw.version)]
        )
    }

    /// The teacher's document of a version (with its keys: an ordering question is never drawn in its right order).
    static func source(id: String, version: Int) -> SQLStatement {
        SQLStatement("SELECT source FROM assessment_versions WHERE id = ? AND version = ?", [.text(id), .integer(version)], columns: ["source"])
    }
}

extension SharedStatements {
    /// `user`'s draw of `version` of an assessment: the stored one when it was made for this version, else made now
    /// (from the student's seed, keeping what an earlier version's draw had that this one still has) and stored.
    ///
    /// No transaction is needed: a draw is a function of the student's seed, the version's document and the earlier
    /// draw, so whoever writes first writes what the other would have; the seed is the one random part, and the
    /// first seed stored stands (insert if absent, then read back): two devices or two server processes downloading
    /// at once get the same draw.
    public func studentDraw(assessmentID: String, version: Int, user: String, now: Date) async throws -> Draw {
        let read = DrawStatements.draw(assessmentID: assessmentID, user: user)
        let previous = try await row(read, DrawStatements.stored)
        if let previous, previous.version >= version { return previous.draw }
        guard let source = try await row(DrawStatements.source(id: assessmentID, version: version), { try $0.data("source") }) else {
            throw StorageError.damaged("assessment \(assessmentID) version \(version) has no stored document")
        }
        let document = try StoredDocument.decode(source, DocumentKey(id: assessmentID, version: version))
        let seed = previous?.seed ?? StoredDraw.newSeed()
        let made = StoredDraw(seed: seed, version: version, draw: DrawPlan.draw(document, seed: seed, previous: previous?.draw))
        try await run(
            previous == nil
                ? try DrawStatements.insert(made, assessmentID: assessmentID, user: user, at: now, dialect: dialect)
                : try DrawStatements.update(made, assessmentID: assessmentID, user: user)
        )
        let stored = try await row(read, DrawStatements.stored)
        // (A read of the one-row link first: a district writes nothing more for a draw.)
        if previous == nil, let stored, try await classroomLink() != nil {
            // A classroom's first draw for this student goes up before their answers (issue 69; nothing elsewhere).
            let pulled = ClassroomPull.PulledDraw(
                assessmentId: assessmentID,
                user: user,
                seed: String(stored.seed),
                version: stored.version,
                draw: try stored.drawText()
            )
            try await write(try ClassroomStatements.keepDraw(pulled, at: now))
        }
        return stored?.draw ?? made.draw
    }

    /// Every student's draw of an assessment, by user.
    public func draws(assessmentID: String) async throws -> [String: Draw] {
        let rows = try await rows(DrawStatements.draws(assessmentID: assessmentID)) { row in
            (try row.string("user_name"), try DrawStatements.stored(row).draw)
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }
}

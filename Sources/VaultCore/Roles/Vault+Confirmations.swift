import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

/// A hand-in held by a classroom server and confirmed by the district (issue 58).
public struct Confirmation: Sendable, Equatable, Encodable {
    public var attemptID: String
    public var receiptID: String
    /// The fingerprint of the classroom server's key that held the answers.
    public var classroom: String
    /// The fingerprint of the district's key the receipt verified against.
    public var district: String
    public var confirmedAt: String
    enum CodingKeys: String, CodingKey {
        case classroom, district
        case attemptID = "attempt_id"
        case receiptID = "receipt_id"
        case confirmedAt = "confirmed_at"
    }
}

/// Work of this vault's that a classroom passed on and the district refused (issue 68).
public struct DistrictRefusal: Sendable, Equatable, Encodable {
    public var kind: String
    public var itemID: String
    public var assessmentID: String
    public var attemptID: String
    public var message: String
    enum CodingKeys: String, CodingKey {
        case kind, message
        case itemID = "item_id"
        case assessmentID = "assessment_id"
        case attemptID = "attempt_id"
    }

    /// What the student reads: what happened and what to do.
    public var sentence: String {
        tr(
            "The district refused your work on {assessment}: {reason} Show your teacher this message: they can give you a new class code or package, or ask the district.",
            ["assessment": assessmentID, "reason": message]
        )
    }
}

extension Vault {
    /// Keeps what the district refused of this vault's own work (attempts it holds), as the classroom passed it on;
    /// returns the refusals not seen before, one per attempt.
    @discardableResult
    public func acceptRefusals(_ list: ClassroomConfirmations, now: Date? = nil) throws -> [DistrictRefusal] {
        let now = now ?? clocks.wall()
        guard let refused = list.refused, !refused.isEmpty else { return [] }
        let own = Set(try database.rows("SELECT id FROM attempts").map { try $0.string(0) })
        let already = Set(try database.rows("SELECT item_id FROM district_refusals").map { try $0.string(0) })
        var new: [DistrictRefusal] = []
        try database.inTransaction {
            for refusal in refused.prefix(10_000) where own.contains(refusal.attemptId) && !already.contains(refusal.itemId) {
                let kept = DistrictRefusal(
                    kind: String(refusal.kind.prefix(20)),
                    itemID: String(refusal.itemId.prefix(200)),
                    assessmentID: String(refusal.assessmentId.prefix(200)),
                    attemptID: refusal.attemptId,
                    message: String(refusal.message.prefix(500))
                )
                try database.execute(
                    "INSERT OR IGNORE INTO district_refusals (item_id, kind, assessment_id, attempt_id, message, noted_at) VALUES (?, ?, ?, ?, ?, ?)",
                    [kept.itemID, kept.kind, kept.assessmentID, kept.attemptID, kept.message, now.millisecondsSince1970]
                )
                if !new.contains(where: { $0.attemptID == kept.attemptID }) { new.append(kept) }
            }
        }
        return new
    }

    /// What the district refused, by attempt (a hand-in's refusal first, then its answers').
    public func districtRefusals() throws -> [String: [DistrictRefusal]] {
        let rows = try database.rows(
            "SELECT item_id, kind, assessment_id, attempt_id, message FROM district_refusals ORDER BY kind DESC, noted_at"
        )
        return Dictionary(
            grouping: try rows.map {
                DistrictRefusal(
                    kind: try $0.string("kind"),
                    itemID: try $0.string("item_id"),
                    assessmentID: try $0.string("assessment_id"),
                    attemptID: try $0.string("attempt_id"),
                    message: try $0.string("message")
                )
            },
            by: \.attemptID
        )
    }

    /// Keeps the district's receipts a classroom server passed back: each verified against the district's key (the
    /// first one seen is kept and a later one must match it), naming this vault's user, and stating exactly the
    /// answers the classroom's own receipt named. Returns how many were new; one that does not hold changes nothing.
    @discardableResult
    public func acceptConfirmations(_ list: ClassroomConfirmations, now: Date? = nil) throws -> Int {
        let now = now ?? clocks.wall()
        guard !list.receipts.isEmpty else { return 0 }
        let districtKey: ServerPublicKey
        do {
            districtKey = try ServerPublicKey(list.districtKey)
        } catch {
            throw VaultError(.invalidData, tr("The district's key the classroom passed on is not valid, so nothing was kept."))
        }
        let known = try database.row("SELECT value FROM vault_meta WHERE key = 'district_key'").map { try $0.string(0) }
        if let known, known != list.districtKey.fingerprint {
            throw VaultError(
                .invalidData,
                tr(
                    "The classroom passed on receipts signed by another district key ({fingerprint}), so none was kept.",
                    ["fingerprint": list.districtKey.fingerprint]
                )
            )
        }
        let user = try account()?.user
        let held = Dictionary(try receipts().values.map { ($0.statement.attemptId, $0.statement) }, uniquingKeysWith: { first, _ in first })
        let already = Set(try database.rows("SELECT attempt_id FROM confirmations").map { try $0.string(0) })
        var kept = 0
        try database.inTransaction {
            if known == nil {
                try database.execute("INSERT OR REPLACE INTO vault_meta (key, value) VALUES ('district_key', ?)", [list.districtKey.fingerprint])
            }
            // The district's receipts leave the vault whole (`receipts export`) and verify here after (issue 69).
            try keepServerKey(list.districtKey, role: "district")
            for receipt in list.receipts {
                guard let signed = receipt.signed, let statement = try? districtKey.verify(signed), statement.user == user,
                    statement.keyFingerprint == list.districtKey.fingerprint, let own = held[statement.attemptId],
                    Set(own.responses) == Set(statement.responses), !already.contains(statement.attemptId)
                else { continue }
                try database.execute(
                    "INSERT INTO confirmations (attempt_id, receipt_id, classroom, district_fingerprint, signed, confirmed_at) VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        statement.attemptId, statement.receiptId, list.classroom, list.districtKey.fingerprint, signed.storedText,
                        now.millisecondsSince1970,
                    ]
                )
                kept += 1
            }
        }
        return kept
    }

    /// What `login` learned of the server (its health's `classroom`).
    public static let serverClassroomKey = "server_classroom"

    public func serverIsClassroom() throws -> Bool { try meta(Self.serverClassroomKey) == "1" }

    /// The district's own signed receipt for an attempt a classroom held, as it came (issue 69): what `receipts
    /// export` writes, which the district's `vault-server receipts verify` accepts without the classroom.
    public func districtReceipt(attemptID: String) throws -> SignedReceipt? {
        try database.row("SELECT signed FROM confirmations WHERE attempt_id = ?", [attemptID]).flatMap { SignedReceipt(storedText: try $0.string(0)) }
    }

    /// The confirmations kept, by attempt.
    public func confirmations() throws -> [String: Confirmation] {
        let rows = try database.rows("SELECT attempt_id, receipt_id, classroom, district_fingerprint, confirmed_at FROM confirmations")
        return Dictionary(
            try rows.map { row in
                let attempt = try row.string("attempt_id")
                return (
                    attempt,
                    Confirmation(
                        attemptID: attempt,
                        receiptID: try row.string("receipt_id"),
                        classroom: try row.string("classroom"),
                        district: try row.string("district_fingerprint"),
                        confirmedAt: Timestamp.string(try row.date("confirmed_at"))
                    )
                )
            },
            uniquingKeysWith: { first, _ in first }
        )
    }
}

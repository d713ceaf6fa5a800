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

extension Vault {
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

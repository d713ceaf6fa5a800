import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

/// A signed receipt kept in the vault, with what it states (verified when it arrived).
public struct StoredReceipt: Sendable, Equatable {
    public var signed: SignedReceipt
    public var statement: ReceiptStatement
}

/// What checking a receipt against this vault found.
public struct ReceiptCheck: Sendable, Equatable {
    public var statement: ReceiptStatement
    /// Questions whose answer in the receipt is not the one this vault holds (nil when the vault has no such attempt).
    public var mismatchedQuestions: [String]?
    /// Questions this vault holds an answer to that the receipt does not name at all (nil when no such attempt).
    public var missingQuestions: [String]?

    /// The receipt names exactly the attempt's current answers in this vault.
    public var coversEverything: Bool { mismatchedQuestions == [] && missingQuestions == [] }

    /// Every question the receipt gets wrong or leaves out, in order.
    public var problemQuestions: [String] { Array(Set((mismatchedQuestions ?? []) + (missingQuestions ?? []))).sorted() }
}

/// A verified receipt that does not name every current answer of its attempt in this vault: nothing was marked
/// handed in; the answers it left out went back into the queue.
public struct IncompleteReceipt: Error, Sendable, Equatable {
    /// The questions whose answers the receipt leaves out or states differently.
    public var questions: [String]
    /// The answers sent again.
    public var requeued: [String]

    public init(questions: [String], requeued: [String]) {
        self.questions = questions
        self.requeued = requeued
    }

    /// A plain sentence for the student.
    public var message: String {
        let list = questions.joined(separator: ", ")
        return questions.count == 1
            ? "The server has not confirmed your answer to question \(list), so it is being sent again; the attempt counts as handed in only once it is."
            : "The server has not confirmed your answers to questions \(list), so they are being sent again; the attempt counts as handed in only once they are."
    }
}

extension Vault {
    // MARK: The pinned server key

    public func pinnedServerKey() throws -> (serverURL: String, key: ServerKeyResponse)? {
        try database.row("SELECT server_url, signing_key, agreement_key, fingerprint FROM server_key WHERE id = 1").map {
            (try $0.string(0), ServerKeyResponse(signingKey: try $0.string(1), agreementKey: try $0.string(2), fingerprint: try $0.string(3)))
        }
    }

    /// Pins `key` (replacing any pinned one: only `login` calls this, after the user accepted a change).
    public func pinServerKey(_ key: ServerKeyResponse, serverURL: String) throws {
        _ = try ServerPublicKey(key)
        try database.inTransaction {
            try database.execute("DELETE FROM server_key WHERE id = 1", [])
            try database.execute(
                "INSERT INTO server_key (id, server_url, signing_key, agreement_key, fingerprint) VALUES (1, ?, ?, ?, ?)",
                [serverURL, key.signingKey, key.agreementKey, key.fingerprint]
            )
            try keepServerKey(key, role: "server")
        }
    }

    /// Keeps a key that signed (or may sign) this vault's receipts, for good: the pinned server's, or a district's a
    /// classroom passed on (issue 69).
    func keepServerKey(_ key: ServerKeyResponse, role: String) throws {
        try database.execute(
            "INSERT OR IGNORE INTO known_server_keys (fingerprint, signing_key, agreement_key, role, kept_at) VALUES (?, ?, ?, ?, ?)",
            [key.fingerprint, key.signingKey, key.agreementKey, role, clocks.wall().millisecondsSince1970]
        )
    }

    /// The receipt verified by the key that signed it: the pinned one, or one this vault pinned before or a classroom
    /// passed on (a district's receipt, a receipt from before the vault joined a classroom).
    func verifiedStatement(_ receipt: SignedReceipt) throws -> ReceiptStatement {
        let pinned = try serverPublicKey()
        do {
            return try pinned.verify(receipt)
        } catch let error as ReceiptError {
            let keys = try database.rows("SELECT signing_key, agreement_key, fingerprint FROM known_server_keys").compactMap {
                try? ServerPublicKey(ServerKeyResponse(signingKey: try $0.string(0), agreementKey: try $0.string(1), fingerprint: try $0.string(2)))
            }
            for key in keys { if let statement = try? key.verify(receipt) { return statement } }
            throw error
        }
    }

    /// The pinned key, ready to verify with; a plain error when none is pinned.
    public func serverPublicKey() throws -> ServerPublicKey {
        guard let pinned = try pinnedServerKey() else {
            throw VaultError(.notAllowed, tr("This vault has no server key yet. Run `vault login` while online."))
        }
        return try ServerPublicKey(pinned.key)
    }

    // MARK: The vault's own signing key

    /// This vault's signing key, made on first use (at `init` or the first `login`) and kept in the encrypted vault.
    public func deviceKey(now: Date? = nil) throws -> DeviceKey {
        let now = now ?? clocks.wall()
        if let row = try database.row("SELECT private_key FROM device_key WHERE id = 1") { return try DeviceKey(material: try row.data(0)) }
        let fresh = DeviceKey()
        try database.execute(
            "INSERT OR IGNORE INTO device_key (id, private_key, public_key, created_at) VALUES (1, ?, ?, ?)",
            [fresh.material, fresh.publicKey, now.millisecondsSince1970]
        )
        guard let row = try database.row("SELECT private_key FROM device_key WHERE id = 1") else {
            throw VaultError(.databaseDamaged, tr("This vault's signing key cannot be read. Run `vault verify`."))
        }
        return try DeviceKey(material: try row.data(0))
    }

    // MARK: Receipts

    /// Verifies `receipt` for `attemptID` against the pinned key and against the attempt's current answers in this
    /// vault; marks the attempt and its answers handed in and keeps the receipt, in one transaction. A receipt that
    /// does not verify changes nothing; one that leaves out answers sends those again (`IncompleteReceipt`).
    public func acceptReceipt(_ receipt: SubmissionReceipt, attemptID: String, now: Date? = nil) throws {
        let now = now ?? clocks.wall()
        guard let signed = receipt.signed else {
            throw VaultError(.temporary, tr("The server sent a receipt without a signature, so nothing was marked as handed in. Try again later."))
        }
        let check = try check(signed)
        guard check.statement.attemptId == attemptID, check.statement.receiptId == receipt.receiptId else {
            throw VaultError(.invalidData, tr("The server's receipt is for another attempt, so nothing was marked as handed in."))
        }
        // A receipt of the server's hand-in at closing names the answers it held then: those this vault gave or sent
        // later are kept for the teacher and not counted, so sending them again would change nothing.
        guard check.coversEverything || check.statement.handedInAtClosing == true else {
            let named = Dictionary(check.statement.responses.map { ($0.responseId, $0) }, uniquingKeysWith: { first, _ in first })
            let unconfirmed = try currentAnswerSet(attemptID: attemptID).filter { named[$0.responseId] != $0 }.map(\.responseId)
            let requeued = try requeueResponses(unconfirmed, now: now)
            throw IncompleteReceipt(questions: check.problemQuestions, requeued: requeued)
        }
        try keep(signed, statement: check.statement)
    }

    /// Marks the attempt and its answers handed in and keeps its receipt, in one transaction.
    private func keep(_ signed: SignedReceipt, statement: ReceiptStatement) throws {
        guard let receivedAt = Timestamp.milliseconds(statement.receivedAt) else {
            throw VaultError(.invalidData, tr("The server's receipt has no readable time, so it was not kept; nothing was changed."))
        }
        try database.inTransaction {
            try markSubmitted(attemptID: statement.attemptId, receiptID: statement.receiptId)
            try database.execute(
                "UPDATE responses SET state = \(ResponseState.synced.sql) WHERE attempt_id = ? AND state = \(ResponseState.uploaded.sql)",
                [statement.attemptId]
            )
            try database.execute(
                "INSERT OR REPLACE INTO receipts (receipt_id, attempt_id, assessment_id, received_at, signed) VALUES (?, ?, ?, ?, ?)",
                [statement.receiptId, statement.attemptId, statement.assessmentId, receivedAt, signed.storedText]
            )
        }
    }

    // MARK: Hand-in without a network

    /// The hand-in file of a submitted attempt (`id`: the attempt, or the assessment's latest attempt): its answers
    /// and submission as a sync would send them, encrypted to the pinned server key.
    public func handInFile(_ id: String) throws -> (file: Data, attemptID: String) {
        let key = try serverPublicKey()
        guard let user = try account()?.user else {
            throw VaultError(.notAllowed, tr("This vault is not signed in to a server yet, so it does not know whose hand-in this is."))
        }
        guard
            let attempt = try database.row(
                "SELECT id, submitted_at FROM attempts WHERE id = ? OR assessment_id = ? ORDER BY started_at DESC LIMIT 1",
                [id, id]
            )
        else { throw VaultError(.notFound, tr("There is no attempt on {id} in this vault.", ["id": id])) }
        guard try attempt.optionalDouble(1) != nil else {
            throw VaultError(
                .notAllowed,
                tr("This attempt has not been submitted yet. Run `vault submit {id}` first, then make the hand-in file.", ["id": id])
            )
        }
        let attemptID = try attempt.string(0)
        try appendEvent(.handedInByFile, attemptID: attemptID)
        // Each answer and the hand-in signed by the vault's key too, as a sync to a classroom signs them: a classroom
        // that imports the file passes them on to the district, which takes only what the student's key signed.
        let device = try deviceKey()
        let request = try device.signed(try submissionRequest(attemptID: attemptID))
        let items = try database.rows(
            "SELECT \(StoredResponse.selection) FROM \(StoredResponse.fromClause) WHERE r.attempt_id = ? AND r.state != \(ResponseState.dead.sql) ORDER BY \(AnswerOrder.sql(time: "r.answered_at", id: "r.id"))",
            [attemptID]
        ).map { row in
            // A hand-in file never leaves out an answer it cannot read: it is not made, and the row is named.
            let stored = try StoredResponse(row)
            guard let item = stored.item else {
                throw DamagedRow(table: "responses", key: stored.id, reason: "the stored answer is not JSON").error
            }
            return try device.signed(item)
        }
        // A vault enrolled by a package hands in with its enrolment secret (inside the encrypted file).
        let payload = try CanonicalJSON.encode(
            HandInPayload(user: user, responses: items, submission: request, enrolment: try enrolment(assessmentID: request.assessmentId))
        )
        let signed = SignedHandIn(
            payload: String(decoding: payload, as: UTF8.self),
            deviceKey: device.publicKey,
            signature: try device.signature(for: payload)
        )
        return (try HandInFile.seal(try CanonicalJSON.encode(signed), to: key), attemptID)
    }

    /// Attaches a receipt the teacher's import wrote: verified against the pinned key and against this vault's
    /// answers, then the attempt is handed in and its answers acknowledged, so the next sync sends nothing for it.
    @discardableResult
    public func importReceipt(_ signed: SignedReceipt) throws -> ReceiptStatement {
        let check = try check(signed)
        guard check.mismatchedQuestions != nil else {
            throw VaultError(.notFound, tr("This receipt is for an attempt this vault does not hold."))
        }
        guard check.coversEverything else {
            throw VaultError(
                .invalidData,
                tr(
                    "The receipt does not name this vault's answers to {questions}, so it was not attached.",
                    ["questions": check.problemQuestions.joined(separator: ", ")]
                )
            )
        }
        let statement = check.statement
        try database.inTransaction {
            try database.execute(
                "UPDATE responses SET state = \(ResponseState.synced.sql) WHERE attempt_id = ? AND state IN \(ResponseState.sqlList([.pending, .uploaded, .conflict]))",
                [statement.attemptId]
            )
            try database.execute(
                "DELETE FROM sync_queue WHERE kind = \(QueueKind.response.sql) AND ref_id IN (SELECT id FROM responses WHERE attempt_id = ?)",
                [statement.attemptId]
            )
            try keep(signed, statement: statement)
        }
        return statement
    }

    /// Whether any attempt of this vault was handed in with a receipt (one cheap query, for every sync).
    public func hasReceipts() throws -> Bool {
        try database.row("SELECT 1 FROM receipts LIMIT 1") != nil
    }

    /// Receipts, newest first; `id` narrows to a receipt id or an assessment id. A row that does not decode is named
    /// in `damaged`, never left out in silence.
    public func receipts(matching id: String? = nil) throws -> Kept<StoredReceipt> {
        let rows =
            if let id {
                try database.rows(
                    "SELECT receipt_id, signed FROM receipts WHERE receipt_id = ? OR assessment_id = ? ORDER BY received_at DESC, receipt_id",
                    [id, id]
                )
            } else {
                try database.rows("SELECT receipt_id, signed FROM receipts ORDER BY received_at DESC, receipt_id")
            }
        var kept = Kept<StoredReceipt>()
        for row in rows {
            do {
                guard case .text(let text) = row[1], let signed = SignedReceipt(storedText: text) else {
                    throw CocoaError(.coderReadCorrupt)
                }
                let statement = try JSONDecoder().decode(ReceiptStatement.self, from: Data(signed.statement.utf8))
                kept.values.append(StoredReceipt(signed: signed, statement: statement))
            } catch {
                kept.damaged.append(DamagedRow(table: "receipts", key: try row.string(0), reason: "the receipt does not decode: \(error)"))
            }
        }
        return kept
    }

    /// Checks a receipt from anywhere: the signature against the pinned key, then each answer it names against the
    /// answer this vault holds for that question.
    public func check(_ receipt: SignedReceipt) throws -> ReceiptCheck {
        let statement: ReceiptStatement
        do {
            statement = try verifiedStatement(receipt)
        } catch let error as ReceiptError {
            throw VaultError(.invalidData, tr("Not a valid receipt of this vault's server: {error}", ["error": error]))
        }
        guard try database.row("SELECT 1 FROM attempts WHERE id = ?", [statement.attemptId]) != nil else {
            return ReceiptCheck(statement: statement, mismatchedQuestions: nil, missingQuestions: nil)
        }
        let held = try currentAnswerSet(attemptID: statement.attemptId)
        let heldByQuestion = Dictionary(held.map { ($0.questionId, $0.answerSha256) }, uniquingKeysWith: { first, _ in first })
        let mismatched = statement.responses.filter { heldByQuestion[$0.questionId] != $0.answerSha256 }.map(\.questionId)
        let stated = Set(statement.responses)
        let missing = held.filter { !stated.contains($0) && !mismatched.contains($0.questionId) }.map(\.questionId)
        return ReceiptCheck(statement: statement, mismatchedQuestions: mismatched, missingQuestions: missing)
    }
}

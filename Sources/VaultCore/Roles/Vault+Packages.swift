import Foundation
import VaultAPI
import VaultLanguage
import VaultModel

/// Assessments by file with no network at all (issue 57): a student's package from `vault-server package`, checked
/// against the server key it names (pinned before, or confirmed by its fingerprint now), stored as a download would
/// be, and its enrolment secret kept for the hand-in file.
extension Vault {
    /// What an import did.
    public enum PackageOutcome: Sendable, Equatable {
        case stored(id: String, version: Int, user: String)
        /// The same version was already here: nothing changed.
        case alreadyHeld(id: String, version: Int)
        /// The same version was here, from an earlier package: the new package's enrolment replaced the old one.
        case renewed(id: String, version: Int)
    }

    /// Checks and stores a package. `fingerprint`: the server key's fingerprint as the teacher gave it (for a vault
    /// that never met a server); `confirm` asks the student otherwise; `slipCode` gives the student's slip code for a
    /// sealed package (asked only after the signature and the server key hold). Every refusal comes before anything is
    /// written.
    public func importPackage(
        _ data: Data,
        fingerprint: String?,
        confirm: (String) -> Bool,
        slipCode: (String) throws -> String = { _ in "" },
        now: Date? = nil
    ) throws -> PackageOutcome {
        let now = now ?? clocks.wall()
        let damaged = VaultError(.invalidData, tr("This file is not an assessment package, or it is damaged; nothing was stored."))
        guard data.count <= AssessmentPackage.maxBytes, let signed = try? JSONDecoder().decode(AssessmentPackage.self, from: data),
            signed.format == AssessmentPackage.formatName, let key = try? ServerPublicKey(signed.serverKey),
            let signature = Data(base64Encoded: signed.signature)
        else { throw damaged }
        guard key.isValidSignature(signature, for: try signed.signedBytes) else {
            throw VaultError(.invalidData, tr("This package was changed after the server signed it (or it is damaged); nothing was stored."))
        }
        if let pinned = try pinnedServerKey() {
            guard (try? ServerPublicKey(pinned.key)) == key else {
                throw VaultError(
                    .notAllowed,
                    tr(
                        "This package comes from another server than the one this vault trusts (key {theirs}, not {ours}); nothing was stored.",
                        ["theirs": key.fingerprint, "ours": pinned.key.fingerprint]
                    )
                )
            }
        } else if let fingerprint {
            guard Self.sameFingerprint(fingerprint, key.fingerprint) else {
                throw VaultError(
                    .notAllowed,
                    tr(
                        "The package's server key is {theirs}, not the {given} you gave; nothing was stored.",
                        ["theirs": key.fingerprint, "given": fingerprint]
                    )
                )
            }
        } else if !confirm(key.fingerprint) {
            throw VaultError(.notAllowed, tr("The server key was not confirmed; nothing was stored."))
        }
        // The student's slip code, from the teacher on paper (issue 68): a package without it opens nothing.
        let package: AssessmentPackage
        do {
            package = signed.slip == nil ? signed : try PackageSlip.open(signed, code: try slipCode(signed.user))
        } catch SealingError.wrongCode {
            throw VaultError(
                .notAllowed,
                tr(
                    "That slip code does not open {user}'s package. Check the code on the slip from your teacher; nothing was stored.",
                    ["user": signed.user]
                )
            )
        } catch is SealingError {
            throw damaged
        }
        guard let expires = Timestamp.date(package.expiresAt), now <= expires else {
            throw VaultError(
                .notAllowed,
                tr(
                    "This package expired on {date}; ask your teacher for a new one. Nothing was stored.",
                    ["date": Timestamp.readable(package.expiresAt)]
                )
            )
        }
        if let account = try account(), account.user != package.user {
            throw VaultError(
                .notAllowed,
                tr(
                    "This vault belongs to {owner}, and the package is for {user}; nothing was stored.",
                    ["owner": account.user, "user": package.user]
                )
            )
        }
        guard let bytes = Data(base64Encoded: package.document), let document = try? ServedDocument.checked(bytes, id: package.assessmentId),
            document.version == package.version,
            ServedSignature.isValid(package.documentSignature, for: ServedSignature.document(bytes), key: key),
            document.sealed != true || (try? Sealing.verifySignature(document, key: key)) != nil
        else { throw damaged }
        if let held = try cachedVersion(of: package.assessmentId) {
            if held.version > package.version {
                throw VaultError(
                    .notAllowed,
                    tr(
                        "This vault holds version {held} of {id}; the package has the older version {version}. Nothing was stored.",
                        ["held": held.version, "id": package.assessmentId, "version": package.version]
                    )
                )
            }
            if held.version == package.version, held.contentHash == document.contentHash {
                // A new package of the same version (the teacher's remedy after a lost or copied stick, issue 68): its
                // enrolment takes the old one's place, so the next hand-in file speaks with it.
                guard try enrolment(assessmentID: package.assessmentId) != package.enrolment else {
                    return .alreadyHeld(id: package.assessmentId, version: package.version)
                }
                try database.execute(
                    "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                    ["enrolment.\(package.assessmentId)", package.enrolment]
                )
                return .renewed(id: package.assessmentId, version: package.version)
            }
        }
        // One transaction: a package that cannot be stored (a full disk, a full cache) leaves no pinned key, account or
        // enrolment behind.
        try database.inTransaction {
            if try pinnedServerKey() == nil { try pinServerKey(package.serverKey, serverURL: "") }
            if try account() == nil {
                try saveAccount(Account(serverURL: "", user: package.user, token: nil, tokenExpiresAt: nil, role: "student"))
            }
            try database.execute(
                "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                ["enrolment.\(package.assessmentId)", package.enrolment]
            )
            _ = try storeAssessment(document, bytes: bytes, etag: nil, source: .file, now: now)
        }
        return .stored(id: package.assessmentId, version: package.version, user: package.user)
    }

    /// The enrolment secret of the package an assessment came in, if it came by file.
    func enrolment(assessmentID: String) throws -> String? {
        try database.row("SELECT value FROM settings WHERE key = ?", ["enrolment.\(assessmentID)"])?.string(0)
    }

    /// Fingerprints compared as a person types them: case, spaces and separators aside.
    static func sameFingerprint(_ a: String, _ b: String) -> Bool {
        func key(_ text: String) -> String { String(text.lowercased().filter { $0.isHexDigit }) }
        return !key(a).isEmpty && key(a) == key(b)
    }
}

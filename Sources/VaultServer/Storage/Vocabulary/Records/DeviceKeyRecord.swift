import Foundation
import VaultAPI
import VaultCore

/// One of a student's device keys as the server keeps it (issue 68): how it came, when, when it was last used, and
/// whether it was revoked (and by whom). A revoked key signs in as nobody and signs nothing the server takes from then
/// on; what it signed before stays.
public struct DeviceKeyRecord: Sendable, Equatable, StoredRecord {
    /// How a key came to speak for its student.
    public enum Origin: String, Sendable, Equatable, CaseIterable {
        /// Registered by the student's vault while signed in with their password.
        case signIn = "sign_in"
        /// Bound by the first hand-in made from the student's package.
        case package
        /// Bound by a one-time class code at a classroom server.
        case classCode = "class_code"
        /// Vouched for by a classroom whose teacher teaches the student (`detail`: the classroom's key fingerprint).
        case classroom
        /// Pulled from the district by a classroom server.
        case district
        /// A teacher's classroom server (`classroom init`, issue 69): it signs in for that classroom's pulls and
        /// pushes only, never as the teacher.
        case classroomServer = "classroom_server"

        public var words: String {
            switch self {
            case .signIn: "signed in with the password"
            case .package: "a hand-in from a package"
            case .classCode: "a class code"
            case .classroom: "vouched for by a classroom"
            case .district: "pulled from the district"
            case .classroomServer: "a classroom server of this teacher's"
            }
        }
    }

    public var user: String
    public var publicKey: String
    public var fingerprint: String
    public var origin: Origin
    /// What the origin names: a package's assessment, the classroom that vouched.
    public var detail: String?
    public var registeredAt: Date
    public var lastUsedAt: Date?
    public var revokedAt: Date?
    public var revokedBy: String?

    /// How the key came, in words, with what it names: "vouched for by a classroom (classroom F of lee)".
    public var howItCame: String { origin.words + (detail.map { " (\($0))" } ?? "") }

    /// "live", or "revoked Sun 29 Nov 2026 10:00 UTC by admin": one wording for the command line and the desk.
    public var state: String {
        revokedAt.map { "revoked \(Timestamp.readable($0))" + (revokedBy.map { " by \($0)" } ?? "") } ?? "live"
    }

    public static let columns = [
        "user_name", "public_key", "fingerprint", "origin", "origin_detail", "registered_at", "last_used_at", "revoked_at", "revoked_by",
    ]

    public init(row: some StoredRow) throws {
        let origin = try row.string("origin")
        guard let known = Origin(rawValue: origin) else { throw StorageError.damaged("column origin holds \(origin), which is no key origin") }
        user = try row.string("user_name")
        publicKey = try row.string("public_key")
        fingerprint = try row.string("fingerprint")
        self.origin = known
        detail = try row.optionalString("origin_detail")
        registeredAt = Date(timeIntervalSince1970: try row.double("registered_at"))
        lastUsedAt = try row.optionalDouble("last_used_at").map(Date.init(timeIntervalSince1970:))
        revokedAt = try row.optionalDouble("revoked_at").map(Date.init(timeIntervalSince1970:))
        revokedBy = try row.optionalString("revoked_by")
    }
}

/// The device-key statements: one vocabulary for registering, listing, using and revoking.
public enum DeviceKeyStatements {
    /// The owner of a key, revoked or not (a key belongs to one student for good).
    public static func owner(publicKey: String) -> SQLStatement {
        SQLStatement(
            "SELECT user_name, revoked_at, revoked_by FROM device_keys WHERE public_key = ?",
            [.text(publicKey)],
            columns: ["user_name", "revoked_at", "revoked_by"]
        )
    }

    public static func register(user: String, publicKey: String, origin: DeviceKeyRecord.Origin, detail: String?, at: Date) -> SQLStatement {
        SQLStatement(
            "INSERT INTO device_keys (user_name, public_key, fingerprint, registered_at, origin, origin_detail) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(user), .text(publicKey), .text(DeviceKey.fingerprint(publicKey: publicKey)), .real(at.timeIntervalSince1970),
                .text(origin.rawValue), detail.map(SQLValue.text) ?? .null,
            ]
        )
    }

    /// A key its own student revoked earlier, taken back by a sign-in with their password from that device.
    public static func restore(user: String, publicKey: String) -> SQLStatement {
        SQLStatement(
            "UPDATE device_keys SET revoked_at = NULL, revoked_by = NULL, origin = 'sign_in' WHERE user_name = ? AND public_key = ?",
            [.text(user), .text(publicKey)]
        )
    }

    /// The keys that speak for `user` now.
    public static func live(user: String) -> SQLStatement {
        SQLStatement(
            "SELECT public_key FROM device_keys WHERE user_name = ? AND revoked_at IS NULL ORDER BY registered_at",
            [.text(user)],
            columns: ["public_key"]
        )
    }

    public static func records(user: String) -> SQLStatement {
        SQLStatement(
            "SELECT \(DeviceKeyRecord.columns.joined(separator: ", ")) FROM device_keys WHERE user_name = ? ORDER BY registered_at",
            [.text(user)],
            columns: DeviceKeyRecord.columns
        )
    }

    /// Revokes the live classroom servers' keys of `user` (a new password, an account turned off).
    public static func revokeClassrooms(user: String, by actor: String, at: Date) -> SQLStatement {
        SQLStatement(
            "UPDATE device_keys SET revoked_at = ?, revoked_by = ? WHERE user_name = ? AND origin = ? AND revoked_at IS NULL",
            [.real(at.timeIntervalSince1970), .text(actor), .text(user), .text(DeviceKeyRecord.Origin.classroomServer.rawValue)]
        )
    }

    /// Who revokes a package's key when a new package supersedes it (issue 68): a newer package of the same student
    /// may bind it again (the student's own vault, taking the teacher's new package).
    public static func supersededBy(assessmentID: String) -> String { "a new package for \(assessmentID)" }

    /// Revokes the key a package's enrolment bound, as a newer package of `assessmentID` supersedes it.
    public static func supersede(user: String, publicKey: String, assessmentID: String, at: Date) -> SQLStatement {
        SQLStatement(
            "UPDATE device_keys SET revoked_at = ?, revoked_by = ? WHERE user_name = ? AND public_key = ? AND origin = ? AND revoked_at IS NULL",
            [
                .real(at.timeIntervalSince1970), .text(supersededBy(assessmentID: assessmentID)), .text(user), .text(publicKey),
                .text(DeviceKeyRecord.Origin.package.rawValue),
            ]
        )
    }

    /// A key revoked by a newer package, bound again by that package's enrolment.
    public static func restoreForPackage(user: String, publicKey: String) -> SQLStatement {
        SQLStatement(
            "UPDATE device_keys SET revoked_at = NULL, revoked_by = NULL, origin = ? WHERE user_name = ? AND public_key = ?",
            [.text(DeviceKeyRecord.Origin.package.rawValue), .text(user), .text(publicKey)]
        )
    }

    /// Every classroom server's key, oldest first.
    public static let classrooms = SQLStatement(
        "SELECT \(DeviceKeyRecord.columns.joined(separator: ", ")) FROM device_keys WHERE origin = ? ORDER BY registered_at",
        [.text(DeviceKeyRecord.Origin.classroomServer.rawValue)],
        columns: DeviceKeyRecord.columns
    )

    public static func used(publicKey: String, at: Date) -> SQLStatement {
        SQLStatement("UPDATE device_keys SET last_used_at = ? WHERE public_key = ?", [.real(at.timeIntervalSince1970), .text(publicKey)])
    }

    /// Revokes `user`'s live keys: the one whose key or fingerprint is `key`, or all of them.
    public static func revoke(user: String, key: String?, by actor: String, at: Date) -> SQLStatement {
        SQLStatement(
            "UPDATE device_keys SET revoked_at = ?, revoked_by = ? WHERE user_name = ? AND revoked_at IS NULL"
                + (key == nil ? "" : " AND (public_key = ? OR fingerprint = ?)"),
            [.real(at.timeIntervalSince1970), .text(actor), .text(user)] + (key.map { [.text($0), .text($0)] } ?? [])
        )
    }
}

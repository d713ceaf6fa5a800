import Foundation
import VaultAPI
import VaultCore
import VaultModel
import ZIPFoundation

/// Packages by file (issue 57): for each student, the document a download would serve them (their own draw, their
/// extra time, sealed where the exam is sealed), signed as a download is, with a one-time enrolment secret, the
/// server's public key, and the server key's signature over all of it.
public struct StudentPackages: Sendable {
    let storage: any ServerStorage
    let receipts: ReceiptIssuer
    let sealed: SealedExams
    let draws = StudentDraws()

    public init(storage: any ServerStorage, sealIterations: Int) {
        self.storage = storage
        receipts = ReceiptIssuer(storage: storage)
        sealed = SealedExams(storage: storage, receipts: receipts, iterations: sealIterations)
    }

    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case noAssessment(String)
        case noStudent(String)
        /// The package would be expired when it is made (an `--expires` in the past, or the assessment's `not_after`).
        case expired(Date)
        public var description: String {
            switch self {
            case .noAssessment(let id): "There is no assessment \(id)."
            case .noStudent(let name): "There is no student called \(name)."
            case .expired(let until):
                "A package valid until \(Timestamp.readable(until)) would be expired already; give a later --expires (or a later closing)."
            }
        }
    }

    /// One student's package of the current version of `assessmentID`, valid until `expiresAt` (at most the
    /// assessment's own `not_after`), sealed under the student's slip code (issue 68), returned beside it: the code
    /// goes to the student on paper, never on the stick. Its enrolment secret is kept (hashed) before the package is
    /// returned.
    /// `replacing`: the student's earlier packages of this assessment stop handing in and the vault keys they bound are
    /// revoked (the remedy for a lost or copied stick).
    public func package(
        assessmentID: String,
        user: String,
        expiresAt: Date,
        replacing: Bool = false,
        now: Date
    ) async throws -> (package: AssessmentPackage, code: String) {
        guard let record = try await storage.user(named: user), record.role == .student else { throw Problem.noStudent(user) }
        guard let current = try await storage.served(id: assessmentID) else { throw Problem.noAssessment(assessmentID) }
        let served = try await draws.served(current, id: assessmentID, user: user, student: true, storage: storage, now: now)
        let bytes = try await sealed.downloadBytes(served.bytes)
        let identity = try await receipts.identity()
        let document = try JSONDecoder().decode(Assessment.self, from: served.bytes)
        let until = min(expiresAt, document.notAfter.flatMap(Timestamp.date) ?? expiresAt)
        guard until > now else { throw Problem.expired(until) }
        let secret = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        // The enrolment is for this student, this assessment's version and until the package expires: a hand-in from
        // it is taken only within those (issue 68).
        let scope = EnrolmentScope(user: user, assessmentID: assessmentID, version: current.version, expiresAt: until)
        if replacing {
            try await storage.replaceEnrolments(secretHash: Self.hash(secret), scope: scope, now: now)
        } else {
            try await storage.createEnrolment(secretHash: Self.hash(secret), scope: scope, now: now)
        }
        try await storage.recordDownload(assessmentID: assessmentID, version: current.version, user: user, now: now, classroom: nil)
        var package = AssessmentPackage(
            user: user,
            assessmentId: assessmentID,
            version: current.version,
            document: bytes,
            documentSignature: try ServedSignature.sign(ServedSignature.document(bytes), with: identity),
            serverKey: identity.publicKey.response,
            enrolment: secret.base64EncodedString(),
            issuedAt: Timestamp.string(now),
            expiresAt: Timestamp.string(until)
        )
        let code = PackageSlip.code(identity: identity, user: user, assessmentID: assessmentID, enrolmentHash: Self.hash(secret))
        try PackageSlip.seal(&package, code: code, iterations: sealed.iterations)
        package.signature = try identity.signature(for: try package.signedBytes).base64EncodedString()
        return (package, code)
    }

    /// The slip codes of the packages already made for `assessmentID` (each student's latest, still valid), derived
    /// again from this server's key (issue 68): what the desk shows to print. `students`: only these, when given.
    public func slips(assessmentID: String, students: Set<String>?, now: Date) async throws -> [(user: String, code: String, expiresAt: Date)] {
        let identity = try await receipts.identity()
        return try await storage.packageEnrolments(assessmentID: assessmentID, now: now).filter { students?.contains($0.user) ?? true }.map {
            (
                $0.user, PackageSlip.code(identity: identity, user: $0.user, assessmentID: assessmentID, enrolmentHash: $0.secretHash),
                $0.expiresAt
            )
        }
    }

    /// The slip codes sheet: one line per student, to print and cut (never copied to the stick).
    public static func codesSheet(_ codes: [(user: String, code: String)], assessmentID: String, fingerprint: String) -> String {
        var lines = ["Slip codes for \(assessmentID): give each student their own, on paper. Never put this sheet on the stick.", ""]
        for entry in codes { lines.append("\(entry.user)\t\(entry.code)") }
        lines += ["", "The student types the code at `vault import` and checks the server key: \(fingerprint)."]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The students a package run is for: one by name, a group's, or everyone expected on the roster (sorted).
    public func students(assessmentID: String, user: String?, group: String?, now: Date) async throws -> [String] {
        if let user { return [user] }
        let roster = try await TeacherDesk(storage: storage, now: { now }).roster(assessmentID, group: group, scored: false)
        return roster.students.map(\.user).sorted()
    }

    /// A package's file name: `USER-ID.vaultpkg`.
    public static func fileName(user: String, assessmentID: String) -> String { "\(user)-\(assessmentID).vaultpkg" }

    /// Several students' packages in one zip (the desk's download), with a note saying what the students check at
    /// import: the server key's fingerprint.
    public static func archive(_ packages: [AssessmentPackage], fingerprint: String) throws -> Data {
        let archive = try Archive(accessMode: .create)
        let note = Data(
            """
            One file per student: give each student their own file (a USB stick, a shared folder).
            The student runs: vault import FILE
            and checks that the server key's fingerprint it shows is \(fingerprint).
            Each file opens only with that student's slip code: print the desk's "Slip codes for the packages" page
            and give each student their code on paper. Never copy the codes to the stick.

            """.utf8
        )
        var entries = [("README.txt", note)]
        for package in packages {
            entries.append((fileName(user: package.user, assessmentID: package.assessmentId), try CanonicalJSON.encode(package)))
        }
        for (path, bytes) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate) { position, size in
                bytes.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        guard let data = archive.data else { throw CocoaError(.fileWriteUnknown) }
        return data
    }

    /// SHA-256 (hex) of an enrolment secret: all the server keeps of it.
    public static func hash(_ secret: Data) -> String { SHA256.hex(secret) }
}

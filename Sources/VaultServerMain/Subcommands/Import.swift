import ArgumentParser
import Foundation
import VaultAPI
import VaultCore
import VaultRules
import VaultServer
import VaultTerminal

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import students' hand-in files: their answers and submissions go in as a sync would send them, exactly once.",
        discussion: """
            A hand-in file names its student; import only files a student gave you. Importing twice, after a sync, or \
            syncing after an import stores nothing twice. Each receipt is written to --receipts DIR for the student \
            (`vault receipts import FILE`).
            """
    )
    @OptionGroup var options: DataOptions
    @Argument(help: "Hand-in files (from `vault hand-in`).") var files: [String]
    @Option(help: "Write each signed receipt here, as RECEIPT_ID.json.") var receipts: String?

    func run() async throws {
        let storage = try await options.storage()
        let issuer = ReceiptIssuer(storage: storage)
        let identity = try await issuer.identity()
        if let receipts {
            // Receipts are a student's proof: never written into a directory another user controls.
            if let owner = (try? FileManager.default.attributesOfItem(atPath: receipts))?[.ownerAccountID] as? NSNumber,
                owner.uint32Value != geteuid()
            {
                throw ValidationError("The receipts directory \(receipts) belongs to another user; give a directory of your own with --receipts.")
            }
            try SecureFiles.createDirectory(receipts)
        }
        var failed = 0
        for file in files {
            do {
                let (payload, deviceKey) = try Self.open(file, identity: identity)
                guard try await storage.user(named: payload.user) != nil else {
                    throw ValidationError("it names \(payload.user), who has no account here")
                }
                // A vault enrolled by the student's package: its secret binds this vault key to the student the
                // first time, and only this key after; only for that package's assessment and version, handed in
                // before it expired. Checked here, bound only once the hand-in is stored (a refused file binds no key).
                var enrolledBy: Data?
                if let enrolment = payload.enrolment {
                    guard let secret = Data(base64Encoded: enrolment) else {
                        throw ValidationError("its enrolment is not readable; nothing was stored")
                    }
                    let (claim, scope) = try await storage.checkEnrolment(
                        secretHash: StudentPackages.hash(secret),
                        user: payload.user,
                        deviceKey: deviceKey
                    )
                    switch claim {
                    case .bound, .sameDevice:
                        let made = Timestamp.date(payload.submission.submittedAt)
                        guard
                            scope?.covers(
                                assessmentID: payload.submission.assessmentId,
                                version: payload.submission.assessmentVersion,
                                madeAt: made
                            ) == true
                        else {
                            throw ValidationError(
                                "it was made from \(payload.user)'s package for another assessment or version, or after that package expired; nothing was stored"
                            )
                        }
                        enrolledBy = secret
                    case .otherDevice:
                        throw ValidationError(
                            "\(payload.user)'s package was already used to hand in from another device (key \(DeviceKey.fingerprint(publicKey: deviceKey)) is not that one); nothing was stored. A copy of a package cannot hand in for the student; if the student really changed device, make them a new package"
                        )
                    case .unknown:
                        throw ValidationError("it was made from a package that is not \(payload.user)'s; nothing was stored")
                    }
                }
                let known = try await storage.deviceKeys(user: payload.user).contains(deviceKey)
                guard enrolledBy != nil || known else {
                    throw ValidationError(
                        "it is not signed by a device \(payload.user) ever signed in from (key \(DeviceKey.fingerprint(publicKey: deviceKey))); nothing was stored. If the student never signed in on that device, have them run `vault login` there once while online, then make the file again"
                    )
                }
                // All or nothing: every answer is judged before any is stored, so a file with one invalid answer
                // stores none of them.
                let judged = try await storage.judgeBatch(payload.responses, user: payload.user, now: Date())
                let refused = judged.filter { ![.accepted, .duplicate, .superseded].contains($0.status) }
                if !refused.isEmpty {
                    let reason = refused.compactMap(\.message).first ?? "it is not valid for this assessment"
                    throw ValidationError(
                        "\(refused.count == 1 ? "one answer" : "\(refused.count) answers") of \(payload.user) cannot be stored (\(reason)); nothing of this file was stored"
                    )
                }
                _ = try await storage.recordBatch(payload.responses, user: payload.user, now: Date())
                let record: SubmissionRecord
                let now = Date()
                let closing = ClosingHandIn(storage: storage)
                let made = ClosingHandIn.believableHandInTime(payload.submission, now: now)
                switch try await closing.submitOwn(payload.submission, user: payload.user, via: .handIn, madeAt: made, now: now) {
                case .created(let created), .repeated(let created), .amended(let created): record = created
                case .outdated(let version): throw ValidationError("the assessment is at version \(version) now; the student answered an older one")
                case .gone: throw ValidationError("the assessment is no longer available")
                case .missingResponses(let missing): throw ValidationError("\(missing.count) answers could not be stored")
                case .answerSetDiffers: throw ValidationError("the answers it lists are not the ones the server holds for this attempt")
                case .forbidden(let message), .rejected(let message), .noAttemptsLeft(let message), .closed(let message):
                    throw ValidationError(message)
                }
                if let secret = enrolledBy {
                    // Stored: now the package's enrolment binds this vault's key to the student (the first time), and
                    // keeps which attempt it handed in (a replacing package sets it apart, issue 68).
                    _ = try await storage.claimEnrolment(
                        secretHash: StudentPackages.hash(secret),
                        user: payload.user,
                        deviceKey: deviceKey,
                        origin: .package,
                        handedIn: record.attemptID,
                        now: Date()
                    )
                }
                try await AttemptRecordIntake.keep(payload.submission, of: record, storage: storage, now: Date())
                // On a classroom, the district gets it too, exactly as a sync through the classroom would send it.
                try await ClassroomOutbox.keepImported(
                    payload.responses,
                    submission: payload.submission,
                    user: payload.user,
                    deviceKey: deviceKey,
                    storage: storage,
                    now: Date()
                )
                let receipt = try await issuer.receipt(for: record)
                if let receipts, let signed = receipt.signed {
                    try SecureFiles.atomicWrite(Data(signed.storedText.utf8), to: "\(receipts)/\(receipt.receiptId).json")
                }
                TerminalText.line(
                    "\(file): \(payload.user), \(record.assessmentID) version \(record.assessmentVersion), receipt \(receipt.receiptId)."
                )
            } catch {
                failed += 1
                TerminalText.errorLine("\(file): not imported: \(error)")
            }
        }
        if failed > 0 { throw ExitCode(65) }
    }

    /// Reads a hand-in file with its size checked first (memory stays bounded whatever the file).
    static func open(_ file: String, identity: ServerIdentity) throws -> (payload: HandInPayload, deviceKey: String) {
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? nil
        guard let size else { throw ValidationError("the file cannot be read") }
        guard size <= HandInFile.maxBytes else { throw HandInError.tooLarge }
        guard let bytes = FileManager.default.contents(atPath: file) else { throw ValidationError("the file cannot be read") }
        let plaintext = try HandInFile.open(bytes, with: identity)
        guard let signed = try? JSONDecoder().decode(SignedHandIn.self, from: plaintext) else {
            // A file from a vault older than signed hand-ins: say so, rather than "damaged".
            if (try? JSONDecoder().decode(HandInPayload.self, from: plaintext)) != nil {
                throw ValidationError(
                    "it was made by an older vault that does not sign hand-in files; have the student update vault and make the file again"
                )
            }
            throw HandInError.damaged
        }
        let payload = try signed.verified()
        guard payload.responses.allSatisfy({ $0.attemptId == payload.submission.attemptId }) else { throw HandInError.damaged }
        return (payload, signed.deviceKey)
    }
}

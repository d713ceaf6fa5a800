import Foundation
import Hummingbird
import VaultAPI
import VaultCore
import VaultRules

/// Batched, idempotent answer upload and submissions with receipts.
struct ResponseRoutes<Storage: ServerStorage> {
    let storage: Storage
    let configuration: ServerConfiguration
    let receipts: ReceiptIssuer
    /// The status page's record: answers taken, vaults' own counts.
    let activity: ServerActivity

    func register(on group: RouterGroup<VaultRequestContext>) {
        let uploads = group.group().add(
            middleware: BatchAdmission(
                limit: configuration.maxUploadsInFlight,
                queueLimit: configuration.uploadQueueLimit,
                maxWait: configuration.uploadQueueWait
            )
        )
        uploads.post("responses/batch") { request, context in
            let user = try context.user ?? { throw APIError.unauthorized }()
            let batch = try await JSONBody.decode(BatchRequest.self, from: request, limit: configuration.maxRequestBytes)
            guard batch.responses.count <= configuration.maxBatchItems else {
                throw APIError(.contentTooLarge, code: .tooManyItems, message: "Send at most \(configuration.maxBatchItems) answers per batch.")
            }
            let ids = batch.responses.map(\.id)
            guard Set(ids).count == ids.count, ids.allSatisfy({ !$0.isEmpty && $0.count <= 100 }) else {
                throw APIError.badRequest("Every response needs its own id of at most 100 characters.")
            }
            try Identifiers.check(batch.responses)
            if let device = batch.device, !BatchRequest.isValidDevice(device) {
                throw APIError.badRequest("device must be 8 to 64 characters of a-z, 0-9 and '-'.")
            }
            // A classroom passes the answers on, so their signatures must hold here; a district's own server keeps
            // its earlier rule (a middle box is caught by the vault's check of the receipt).
            let results: [ItemResult]
            if configuration.classroom {
                results = try await VaultSignatures.recordSigned(batch, user: user, storage: storage, now: configuration.now())
                try await ClassroomOutbox.keep(batch, results: results, user: user, storage: storage, now: configuration.now())
            } else {
                results = try await storage.recordBatch(batch.responses, user: user, device: batch.device, now: configuration.now())
            }
            ServerMetrics.answers(results)
            activity.answers(results.count { $0.status == .accepted }, at: configuration.now())
            return try JSONBody.response(bytes: CanonicalJSON.encode(results: BatchResponse(results: results)), request: request)
        }
        group.get("results") { request, context in
            let user = try context.user ?? { throw APIError.unauthorized }()
            // Scores once the assessment shows them at submission or the teacher released them; correct answers only
            // after release (`AttemptResult` leaves them out before). A hand-in that arrived after closing waits for
            // the teacher's decision (`ResultRules.visible`).
            let visible = try await storage.resultInputs(user: user, assessmentID: nil).filter(ResultRules.visible)
            let bytes = try CanonicalJSON.encode(ResultsResponse(results: visible.map(\.result)))
            var headers: HTTPFields = [:]
            headers[ServedSignatureHeader.name] = try ServedSignature.sign(
                ServedSignature.results(user: user, bytes),
                with: try await receipts.identity()
            )
            return try JSONBody.response(bytes: bytes, request: request, headers: headers)
        }
        group.get("attempts") { request, context in
            let user = try context.user ?? { throw APIError.unauthorized }()
            guard let assessment = request.uri.queryParameters.get("assessment"), !assessment.isEmpty, assessment.count <= 200 else {
                throw APIError.badRequest("Name the assessment: /v1/attempts?assessment=ID.")
            }
            let id = String(assessment)
            // Only the caller's own attempts, whatever they ask for; their extra time rides along (the deadline
            // another device keeps is the first device's start plus the limit plus these minutes).
            let extra = try await storage.extraMinutes(assessmentID: id, user: user)
            let now = configuration.now()
            let attempts = try await storage.heldAttempts(user: user, assessmentID: id).map { attempt in
                var attempt = attempt
                attempt.extraMinutes = extra
                // The server is the authority on time used: measured by its clock from the first device's start.
                attempt.elapsedMs = attempt.startedAt.flatMap(Timestamp.date).map {
                    max(0, Int(saturating: (now.timeIntervalSince($0) * 1000).rounded(.down)))
                }
                return attempt
            }
            let bytes = try CanonicalJSON.encode(AttemptsResponse(attempts: attempts))
            var headers: HTTPFields = [:]
            headers[ServedSignatureHeader.name] = try ServedSignature.sign(
                ServedSignature.attempts(user: user, bytes),
                with: try await receipts.identity()
            )
            return try JSONBody.response(bytes: bytes, request: request, headers: headers)
        }
        group.post("given-up") { request, context in
            let user = try context.user ?? { throw APIError.unauthorized }()
            let report = try await JSONBody.decode(GivenUpReport.self, from: request, limit: 64 * 1024)
            guard AssessmentValidator.isValidID(report.assessmentId), !report.attemptId.isEmpty, report.attemptId.unicodeScalars.count <= 100,
                (1...100_000).contains(report.items)
            else { throw APIError.badRequest("Name the assessment, the attempt (at most 100 characters) and how many items were given up.") }
            guard try await storage.served(id: report.assessmentId) != nil else { throw APIError.notFound(report.assessmentId) }
            // Keyed by the caller: it only ever marks their own row of the roster.
            try await storage.recordRefusals([
                RosterFacts.Refusal(
                    user: user,
                    assessmentID: report.assessmentId,
                    attemptID: report.attemptId,
                    reason: .givenUpOnDevice,
                    at: configuration.now().timeIntervalSince1970
                )
            ])
            return Response(status: .noContent)
        }
        // A vault's own counts (issue 59), only while the school has client stats on: added to the server's metrics,
        // never stored and never labelled with anything but the count's name.
        group.post("client-stats") { request, context in
            guard context.user != nil else { throw APIError.unauthorized }
            let report = try await JSONBody.decode(ClientStatsReport.self, from: request, limit: 16 * 1024)
            guard try await storage.setting(.clientStats) == "on" else {
                throw APIError(.forbidden, code: .forbidden, message: "This school does not collect client statistics.")
            }
            guard report.counts.allSatisfy({ ClientStatsReport.names.contains($0.key) && (0...ClientStatsReport.maxAmount).contains($0.value) })
            else { throw APIError.badRequest("Send only the named counts, each from 0 to \(ClientStatsReport.maxAmount).") }
            ServerMetrics.clientStats(report.counts)
            activity.clientStats(report.counts)
            return Response(status: .noContent)
        }
        uploads.post("submissions") { request, context in
            let user = try context.user ?? { throw APIError.unauthorized }()
            let submission = try await JSONBody.decode(SubmissionRequest.self, from: request, limit: 4 * 1024 * 1024)
            // Bounded before any store work: no assessment has more questions than this.
            guard submission.responseIds.count <= SubmissionPlan.maxListedAnswers,
                (submission.answers?.count ?? 0) <= SubmissionPlan.maxListedAnswers
            else {
                throw APIError(
                    .unprocessableContent,
                    code: .tooManyAnswers,
                    message: "A submission lists at most \(SubmissionPlan.maxListedAnswers) answers."
                )
            }
            try Identifiers.check(submission)
            guard !configuration.classroom || VaultSignatures.isValid(submission) else { throw APIError.badSignature }
            let (receipt, created) = try await intake(submission, user: user)
            if configuration.classroom {
                try await ClassroomOutbox.keep(submission, user: user, storage: storage, now: configuration.now())
            }
            return try JSONBody.response(receipt, status: created ? .created : .ok, request: request)
        }
    }

    /// A hand-in from `user` (their vault, or a classroom server passing it on): stored by `SubmissionPlan`, its
    /// record kept, its receipt signed; true when it is new. Every refusal is the `APIError` the route answers.
    /// `arrived`: when it reached the first server that took it (a classroom's, for a push), else now. A hand-in the
    /// student made before the server handed the attempt in at closing takes that one's place
    /// (`ClosingHandIn.submitOwn`): made when it arrived at a classroom, or when the vault says, if believable.
    func intake(_ submission: SubmissionRequest, user: String, arrived: Date? = nil) async throws -> (receipt: SubmissionReceipt, created: Bool) {
        let now = configuration.now()
        let outcome = try await ClosingHandIn(storage: storage).submitOwn(
            submission,
            user: user,
            via: .sync,
            madeAt: arrived ?? ClosingHandIn.believableHandInTime(submission, now: now),
            now: arrived ?? now
        )
        ServerMetrics.submission(outcome)
        switch outcome {
        case .created(let record):
            try await AttemptRecordIntake.keep(submission, of: record, storage: storage, now: configuration.now())
            return (try await receipts.receipt(for: record), true)
        case .repeated(let record), .amended(let record):
            try await AttemptRecordIntake.keep(submission, of: record, storage: storage, now: configuration.now())
            return (try await receipts.receipt(for: record), false)
        case .answerSetDiffers(let ids):
            var error = APIError(
                .unprocessableContent,
                code: .answerSetDiffers,
                message: "The answers this submission lists are not the ones the server holds for this attempt."
            )
            error.missing = ids
            throw error
        case .noAttemptsLeft(let message):
            try await recordRefusal(submission, user: user, reason: .noAttemptsLeft)
            throw APIError(.unprocessableContent, code: .noAttemptsLeft, message: message)
        case .closed(let message):
            try await recordRefusal(submission, user: user, reason: .afterClosing)
            throw APIError(.unprocessableContent, code: .assessmentClosed, message: message)
        case .outdated(let version):
            var error = APIError(.conflict, code: .versionConflict, message: "The assessment changed since this attempt started.")
            error.currentVersion = version
            throw error
        case .gone:
            throw APIError(.notFound, code: .gone, message: "This assessment is no longer available.")
        case .missingResponses(let missing):
            var error = APIError(
                .unprocessableContent,
                code: .responsesMissing,
                message: "Some answers of this attempt have not arrived yet; upload them first."
            )
            error.missing = missing
            throw error
        case .forbidden(let message):
            throw APIError(.forbidden, code: .notYourAttempt, message: message)
        case .rejected(let message):
            throw APIError(.unprocessableContent, code: .rejected, message: message)
        }
    }

    /// A refused hand-in goes on the teacher's roster (the student's answers wait in their dead letters).
    func recordRefusal(_ submission: SubmissionRequest, user: String, reason: RefusalReason) async throws {
        try await storage.recordRefusals([
            RosterFacts.Refusal(
                user: user,
                assessmentID: submission.assessmentId,
                attemptID: submission.attemptId,
                reason: reason,
                at: configuration.now().timeIntervalSince1970
            )
        ])
    }
}

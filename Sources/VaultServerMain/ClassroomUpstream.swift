import Foundation
import Logging
import VaultAPI
import VaultCore
import VaultServer
import VaultSync

/// A classroom server's way up to its district (issue 58), for `classroom pull`/`push` and for `serve`, which pushes by
/// itself while the district can be reached. Signs in with the classroom's own key (no password), checks the district's
/// key is the one pinned at init, and signs out; a failure is the client's `ServerError`.
enum ClassroomUpstream {
    /// What one push did.
    struct Pushed: Sendable {
        var stored = 0
        var refused = 0
        /// Items told to wait for the next push (a hand-in whose answers have not all arrived).
        var waiting = 0
    }

    /// Runs `body` signed in to the district; nil when the store is not a classroom.
    static func withDistrict<T>(_ storage: some ServerStorage, _ body: (ServerClient, RequestRetry) async throws -> T) async throws -> T? {
        guard let link = try await storage.classroomLink() else { return nil }
        let identity = try await ReceiptIssuer(storage: storage).identity()
        let transport = AsyncHTTPTransport(baseURL: link.upstream)
        var client = ServerClient(transport: transport)
        let retry = RequestRetry(tries: 6, longestWait: .seconds(8), deadline: .seconds(60))
        do {
            let key = try await retry.run { try await client.serverKey() }
            guard key == link.districtKey else {
                throw ServerError.badResponse("the district's key is not the one kept at `classroom init` (\(link.districtKey.fingerprint))")
            }
            client.token = try await retry.run { [client] in
                try await client.signIn(user: link.teacher, serverFingerprint: key.fingerprint, deviceKey: identity.publicKey.response.signingKey) {
                    try identity.signature(for: $0).base64EncodedString()
                }
            }.token
            let value = try await body(client, retry)
            try? await client.signOut()
            await transport.shutdown()
            return value
        } catch {
            await transport.shutdown()
            throw error
        }
    }

    /// Sends the outbox in order, `chunk` items a request (halved when the district finds a request too large), and
    /// keeps the district's word on each; nil when the store is not a classroom.
    static func push(_ storage: some ServerStorage, chunk: Int) async throws -> Pushed? {
        let classroom = try await ReceiptIssuer(storage: storage).identity().publicKey.fingerprint
        return try await withDistrict(storage) { client, retry in
            var pushed = Pushed()
            var skipped: Set<Int> = []
            var size = chunk
            while true {
                let waiting = try await storage.upstreamWaiting(limit: size + skipped.count).filter { !skipped.contains($0.seq) }.prefix(size)
                guard !waiting.isEmpty else { break }
                let vouched = try await storage.vouchedKeys(users: Set(waiting.map(\.user)))
                let push = ClassroomPushRequest(
                    classroom: classroom,
                    items: waiting.map {
                        .init(
                            seq: $0.seq,
                            kind: $0.kind,
                            user: $0.user,
                            deviceKey: $0.deviceKey,
                            body: $0.body,
                            heldAt: $0.keptAt.map(Timestamp.string)
                        )
                    },
                    vouched: vouched.isEmpty ? nil : vouched
                )
                let results: [ClassroomPushResponse.Result]
                do {
                    results = try await retry.run { try await client.classroomPush(push) }
                } catch ServerError.tooLarge where size > 1 {
                    // Long essays: fewer items a request, down to one.
                    size = max(1, size / 2)
                    continue
                }
                try await storage.settleUpstream(results, now: Date())
                pushed.stored += results.count { $0.outcome == .stored }
                pushed.refused += results.count { $0.outcome == .refused }
                // A hand-in told "later" waits for the next push; this one goes on with the rest.
                skipped.formUnion(results.filter { $0.outcome == .later }.map(\.seq))
                skipped.formUnion(Set(push.items.map(\.seq)).subtracting(results.map(\.seq)))
            }
            try await storage.notePushed(at: Date())
            pushed.waiting = skipped.count
            return pushed
        }
    }

    /// What one pull brought.
    struct Pulled: Sendable {
        var pull: ClassroomPull
        var results: ResultsBroughtDown
        /// Documents fetched (a version this classroom did not hold).
        var fetched: Int
    }

    /// Brings down the class (`group`, or the group of the last pull when nil is not asked for explicitly) and then
    /// what the district decided on its hand-ins (after a push, so what the teacher changed here went up first); nil
    /// when the store is not a classroom.
    static func pull(_ storage: some ServerStorage, group: String??) async throws -> Pulled? {
        guard let link = try await storage.classroomLink() else { return nil }
        let group = group ?? link.group
        return try await withDistrict(storage) { client, retry in
            var pull = try await retry.run { try await client.classroomPull(group: group) }
            var fetched = 0
            // Each document on its own, and only a version this classroom does not hold yet (issue 69): a class of
            // big assessments pulls, and a pull every few minutes brings only what changed.
            for index in pull.assessments.indices where pull.assessments[index].source == nil {
                let assessment = pull.assessments[index]
                if let held = try await storage.served(id: assessment.id), held.version == assessment.version,
                    held.contentHash == assessment.contentHash
                {
                    continue
                }
                let document = try await retry.run { try await client.classroomDocument(id: assessment.id, version: assessment.version) }
                guard document.contentHash == assessment.contentHash else {
                    throw ServerError.badResponse("the district's copy of \(assessment.id) changed during the pull")
                }
                pull.assessments[index].source = document.source
                pull.assessments[index].served = document.served
                fetched += 1
            }
            try await storage.importClass(pull, now: Date())
            try await storage.notePulled(at: Date(), group: group)
            let results = try await storage.importResults(try await retry.run { try await client.classroomResults() }, now: Date())
            try await storage.noteResults(at: Date())
            return Pulled(pull: pull, results: results, fetched: fetched)
        }
    }

    /// `serve` on a classroom: every `interval` while the server runs, a push when there is something to send, then
    /// the class and the district's results pulled again (a new assessment or version, a student's new key, extra
    /// time, releases and grades). A district that cannot be reached is tried again next time (nothing is lost: the
    /// outbox stays); cancelled at shutdown.
    static func pushEvery(_ interval: Duration, storage: some ServerStorage, logger: Logger) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                do {
                    if try await storage.upstreamSummary().waiting > 0, let pushed = try await push(storage, chunk: 200) {
                        logger.notice(
                            "pushed to the district",
                            metadata: ["stored": "\(pushed.stored)", "refused": "\(pushed.refused)", "waiting": "\(pushed.waiting)"]
                        )
                    }
                    if let pulled = try await pull(storage, group: nil), pulled.results.changed > 0 {
                        let brought = pulled.results
                        logger.notice(
                            "brought the district's results down",
                            metadata: [
                                "released": "\(brought.released)", "hidden": "\(brought.hidden)", "grades": "\(brought.grades)",
                                "feedback": "\(brought.feedback)", "late": "\(brought.late)",
                            ]
                        )
                    }
                } catch {
                    logger.info("the district cannot be reached now; the next push tries again", metadata: ["reason": "\(error)"])
                }
            }
        }
    }
}

import Foundation
import VaultAPI
import VaultCore
import VaultModel

/// The API v1 calls, over any transport. Decodes only what the contract allows and caps every body.
public struct ServerClient: Sendable {
    public let transport: any HTTPTransport
    public var token: String?

    /// Largest response read: a 10 MB document plus room for JSON framing, compressed or not.
    public static let maxResponseBytes = 11 * 1024 * 1024

    public init(transport: any HTTPTransport, token: String? = nil) {
        self.transport = transport
        self.token = token
    }

    // MARK: Calls

    @discardableResult
    public func health() async throws -> HealthResponse {
        let reply = try await send("GET", APIPath.health, authenticated: false, maxBytes: 64 * 1024)
        return try decode(HealthResponse.self, reply, expecting: [200])
    }

    /// A vault's own counts since its last report (only while the server's health says client stats are on).
    public func sendClientStats(_ report: ClientStatsReport) async throws {
        let reply = try await send("POST", APIPath.clientStats, body: try CanonicalJSON.encode(report), maxBytes: 64 * 1024)
        _ = try body(of: reply, expecting: [204])
    }

    /// Results of the caller's submitted attempts that the server shows now, once their signature checks out
    /// against `key` (the pinned one) for `user`.
    public func results(user: String, key: ServerPublicKey) async throws -> [AttemptResult] {
        let reply = try await send("GET", APIPath.results, maxBytes: 8 * 1024 * 1024)
        let body = try body(of: reply, expecting: [200])
        guard ServedSignature.isValid(reply.headers[ServedSignature.header], for: ServedSignature.results(user: user, body), key: key) else {
            throw ServerError.badResponse("the results are not signed by this vault's server")
        }
        guard let results = try? JSONDecoder().decode(ResultsResponse.self, from: body) else {
            throw ServerError.badResponse("the results are not of the expected shape")
        }
        return results.results
    }

    /// The caller's attempts of an assessment as the server holds them, once their signature checks out against `key`
    /// (the pinned one) for `user`: what a second device continues from.
    public func attempts(assessmentID: String, user: String, key: ServerPublicKey) async throws -> [HeldAttempt] {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let query = assessmentID.addingPercentEncoding(withAllowedCharacters: allowed) ?? assessmentID
        let reply = try await send("GET", APIPath.attempts + "?assessment=" + query, maxBytes: 8 * 1024 * 1024)
        let body = try body(of: reply, expecting: [200])
        guard ServedSignature.isValid(reply.headers[ServedSignature.header], for: ServedSignature.attempts(user: user, body), key: key) else {
            throw ServerError.badResponse("the attempts are not signed by this vault's server")
        }
        guard let held = try? JSONDecoder().decode(AttemptsResponse.self, from: body) else {
            throw ServerError.badResponse("the attempts are not of the expected shape")
        }
        // Only what was asked for: an attempt of another assessment is not this one's to continue.
        guard held.attempts.allSatisfy({ $0.assessmentId == assessmentID }) else {
            throw ServerError.badResponse("the attempts name another assessment")
        }
        return held.attempts
    }

    /// A sealed exam's content key, once it has opened (403 before: `ServerError.refused` with the server's sentence).
    public func sealedKey(_ id: String) async throws -> SealedKeyResponse {
        let reply = try await send("GET", APIPath.sealedKey(id), maxBytes: 64 * 1024)
        if reply.status == 404 { throw ServerError.notFound(id) }
        return try decode(SealedKeyResponse.self, reply, expecting: [200])
    }

    /// The server's public keys (no token needed).
    public func serverKey() async throws -> ServerKeyResponse {
        let reply = try await send("GET", APIPath.serverKey, authenticated: false, maxBytes: 64 * 1024)
        return try decode(ServerKeyResponse.self, reply, expecting: [200])
    }

    public func signIn(user: String, password: SecretBytes) async throws -> TokenResponse {
        let body = try Self.tokenRequestBody(user: user, password: password)
        let reply = try await send("POST", APIPath.token, body: body, authenticated: false, maxBytes: 64 * 1024)
        if reply.status == 401 { throw ServerError.badCredentials }
        return try decode(TokenResponse.self, reply, expecting: [200])
    }

    /// Signs in with this vault's key (issue 58): a one-time challenge, signed for this server (its key's fingerprint)
    /// by `sign`; no password is sent.
    public func signIn(user: String, serverFingerprint: String, deviceKey: String, sign: (Data) throws -> String) async throws -> TokenResponse {
        let asked = try await send(
            "POST",
            APIPath.challenge,
            body: try CanonicalJSON.encode(DeviceChallengeRequest(user: user)),
            authenticated: false,
            maxBytes: 64 * 1024
        )
        let challenge = try decode(DeviceChallengeResponse.self, asked, expecting: [200]).challenge
        let statement = DeviceSignIn.statement(serverFingerprint: serverFingerprint, user: user, challenge: challenge)
        let request = DeviceTokenRequest(user: user, challenge: challenge, deviceKey: deviceKey, signature: try sign(statement))
        let reply = try await send("POST", APIPath.deviceToken, body: try CanonicalJSON.encode(request), authenticated: false, maxBytes: 64 * 1024)
        if reply.status == 401 { throw ServerError.badCredentials }
        return try decode(TokenResponse.self, reply, expecting: [200])
    }

    /// A vault's first sign-in to a classroom server with a one-time class code (issue 58): the code and the vault's
    /// key, signed for this server.
    public func enrol(
        user: String,
        code: String,
        serverFingerprint: String,
        deviceKey: String,
        sign: (Data) throws -> String
    ) async throws
        -> TokenResponse
    {
        let statement = ClassCode.statement(serverFingerprint: serverFingerprint, user: user, code: code)
        let request = ClassEnrolRequest(user: user, code: ClassCode.normalized(code), deviceKey: deviceKey, signature: try sign(statement))
        let reply = try await send("POST", APIPath.enrol, body: try CanonicalJSON.encode(request), authenticated: false, maxBytes: 64 * 1024)
        if reply.status == 401 || reply.status == 404 { throw ServerError.badCredentials }
        return try decode(TokenResponse.self, reply, expecting: [200])
    }

    /// `{"password":…,"user":…}` written byte by byte from the secret, so the password never becomes a String
    /// (which could not be wiped); the body is the one copy that leaves, as the request.
    static func tokenRequestBody(user: String, password: SecretBytes) throws -> Data {
        guard password.withUnsafeBytes({ String(validating: $0, as: UTF8.self) != nil }) else {
            throw ServerError.refused(status: 0, message: "The server password must be valid UTF-8 text.")
        }
        var body = Data("{\"password\":\"".utf8)
        password.withUnsafeBytes { bytes in
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): body.append(contentsOf: [UInt8(ascii: "\\"), byte])
                case 0..<0x20: body.append(contentsOf: Array(String(format: "\\u%04x", byte).utf8))
                default: body.append(byte)
                }
            }
        }
        body.append(contentsOf: Array("\",\"user\":".utf8))
        body.append(try CanonicalJSON.encode(user))
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// Registers this vault's public signing key to the signed-in user (hand-in files are signed with it).
    public func registerDeviceKey(_ publicKey: String) async throws -> DeviceKeyResponse {
        let body = try CanonicalJSON.encode(DeviceKeyRequest(publicKey: publicKey))
        let reply = try await send("POST", APIPath.deviceKeys, body: body, maxBytes: 64 * 1024)
        if reply.status == 409 || reply.status == 400 {
            throw ServerError.refused(status: reply.status, message: (try? decodeEnvelope(reply))?.error.message ?? "the key was refused")
        }
        return try decode(DeviceKeyResponse.self, reply, expecting: [200, 201])
    }

    /// Registers a classroom server's own key to the signed-in teacher (issue 69): it signs in for that classroom only.
    public func registerClassroom(_ publicKey: String) async throws -> DeviceKeyResponse {
        let body = try CanonicalJSON.encode(DeviceKeyRequest(publicKey: publicKey))
        let reply = try await send("POST", APIPath.classrooms, body: body, maxBytes: 64 * 1024)
        if [400, 403, 409].contains(reply.status) {
            throw ServerError.refused(status: reply.status, message: (try? decodeEnvelope(reply))?.error.message ?? "the key was refused")
        }
        return try decode(DeviceKeyResponse.self, reply, expecting: [200, 201])
    }

    /// A classroom server's pull from its district (issue 58): the teacher's assessments, the class and their keys.
    /// The list comes without documents (`documents=separate`); `classroomDocument` fetches each one needed.
    public func classroomPull(group: String? = nil) async throws -> ClassroomPull {
        var path = APIPath.classroomPull + "?documents=separate"
        if let group, let query = group.addingPercentEncoding(withAllowedCharacters: .alphanumerics) { path += "&group=" + query }
        let reply = try await send("GET", path, maxBytes: 64 * 1024 * 1024)
        return try decode(ClassroomPull.self, reply, expecting: [200], maxOutputBytes: 64 * 1024 * 1024)
    }

    /// One version of a pulled assessment (issue 69): a document up to the cap, whatever the rest of the class.
    public func classroomDocument(id: String, version: Int) async throws -> ClassroomPull.PulledDocument {
        guard let escaped = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) else {
            throw ServerError.badResponse("an assessment id that cannot be asked for")
        }
        let reply = try await send("GET", APIPath.classroomDocument(escaped, version: version), maxBytes: ClassroomPull.PulledDocument.maxBytes)
        let document = try decode(
            ClassroomPull.PulledDocument.self,
            reply,
            expecting: [200],
            maxOutputBytes: ClassroomPull.PulledDocument.maxBytes
        )
        guard document.id == id, document.version == version else { throw ServerError.badResponse("the district sent another document than asked") }
        return document
    }

    /// A classroom server's fetch of what the district decided on the class's hand-ins (releases, grades, feedback,
    /// late decisions).
    public func classroomResults() async throws -> ClassroomResults {
        let reply = try await send("GET", APIPath.classroomResults, maxBytes: 64 * 1024 * 1024)
        return try decode(ClassroomResults.self, reply, expecting: [200])
    }

    /// A classroom server's push to its district: items as the students sent them, gzip; the district's word on each.
    public func classroomPush(_ push: ClassroomPushRequest) async throws -> [ClassroomPushResponse.Result] {
        let body = try Gzip.compress(try CanonicalJSON.encode(push))
        let reply = try await send("POST", APIPath.classroomPush, headers: ["content-encoding": "gzip"], body: body, maxBytes: 16 * 1024 * 1024)
        let results = try decode(ClassroomPushResponse.self, reply, expecting: [200]).results
        guard Set(results.map(\.seq)).isSubset(of: Set(push.items.map(\.seq))) else {
            throw ServerError.badResponse("the district's answer names items that were not sent")
        }
        return results
    }

    /// The district's receipts for this student's hand-ins, from a classroom server; nil from a server that is not one.
    public func classroomReceipts() async throws -> ClassroomConfirmations? {
        let reply = try await send("GET", APIPath.classroomReceipts, maxBytes: 8 * 1024 * 1024)
        if reply.status == 404 { return nil }
        return try decode(ClassroomConfirmations.self, reply, expecting: [200])
    }

    /// Revokes the token in use on the server (`DELETE /v1/auth/token`); an already unknown token is fine.
    public func signOut() async throws {
        let reply = try await send("DELETE", APIPath.token, maxBytes: 64 * 1024)
        guard [204, 401].contains(reply.status) else { throw ServerError.serverFailure(status: reply.status) }
    }

    public func catalog() async throws -> [CatalogEntry] {
        let reply = try await send("GET", APIPath.assessments, maxBytes: 4 * 1024 * 1024)
        return try decode(CatalogResponse.self, reply, expecting: [200]).assessments
    }

    public enum Fetched: Sendable {
        case notModified
        /// The verified document, the exact bytes served and the server's signature over them.
        case document(Assessment, bytes: Data, etag: String?, signature: String?)
    }

    /// Downloads a served document, verifying its shape, its content hash and that it carries no answer keys.
    public func assessment(_ id: String, etag: String? = nil, progress: (@Sendable (Int, Int?) -> Void)? = nil) async throws -> Fetched {
        var headers: [String: String] = [:]
        if let etag { headers["if-none-match"] = etag }
        let reply = try await send("GET", APIPath.assessment(id), headers: headers, maxBytes: Self.maxResponseBytes, progress: progress)
        if reply.status == 304 { return .notModified }
        if reply.status == 404 { throw ServerError.notFound(id) }
        let body = try body(of: reply, expecting: [200])
        // The document's shape and hashes (a sealed one's once unsealed); the signature against the pinned key is the
        // Downloader's, before anything is stored.
        let document: Assessment
        do {
            document = try ServedDocument.checked(body, id: id)
        } catch let problem as ServedDocument.Problem {
            throw ServerError.badResponse(problem.message)
        }
        return .document(document, bytes: body, etag: reply.headers["etag"], signature: reply.headers[ServedSignature.header])
    }

    public func uploadBatch(_ items: [ResponseItem], device: String? = nil) async throws -> [ItemResult] {
        try await uploadBatch(outgoing: try items.map(OutgoingResponse.init), device: device)
    }

    /// A batch of answers as the vault keeps them: each stored answer text goes into the body as it is.
    public func uploadBatch(outgoing: [OutgoingResponse], device: String? = nil, deviceKey: String? = nil) async throws -> [ItemResult] {
        let items = outgoing.map(\.item)
        let body = try Gzip.compress(try CanonicalJSON.encode(batch: outgoing, device: device, deviceKey: deviceKey))
        let reply = try await send("POST", APIPath.batch, headers: ["content-encoding": "gzip"], body: body, maxBytes: 4 * 1024 * 1024)
        let results = try decode(BatchResponse.self, reply, expecting: [200]).results
        guard results.map(\.id) == items.map(\.id) else { throw ServerError.badResponse("the batch results do not match the answers sent") }
        return results
    }

    /// Tells the server what this vault gave up sending (`POST /v1/given-up`).
    public func reportGivenUp(_ report: GivenUpReport) async throws {
        let reply = try await send("POST", APIPath.givenUp, body: try CanonicalJSON.encode(report), maxBytes: 64 * 1024)
        _ = try body(of: reply, expecting: [204])
    }

    public func submit(_ request: SubmissionRequest) async throws -> SubmissionReceipt {
        let reply = try await send("POST", APIPath.submissions, body: try CanonicalJSON.encode(request), maxBytes: 1024 * 1024)
        switch reply.status {
        case 409:
            throw ServerError.versionConflict(currentVersion: (try? decodeEnvelope(reply))?.currentVersion ?? 0)
        case 404:
            throw ServerError.notFound(request.assessmentId)
        case 422:
            if let envelope = try? decodeEnvelope(reply) {
                switch envelope.error.known {
                case .responsesMissing: if let missing = envelope.error.missing { throw ServerError.responsesMissing(missing) }
                case .noAttemptsLeft, .assessmentClosed: throw ServerError.noAttemptsLeft(envelope.error.message)
                default: throw ServerError.refused(status: 422, message: envelope.error.message)
                }
            }
        default: break
        }
        let receipt = try decode(SubmissionReceipt.self, reply, expecting: [200, 201])
        guard receipt.attemptId == request.attemptId else { throw ServerError.badResponse("the receipt is for another attempt") }
        return receipt
    }

    // MARK: Plumbing

    func send(
        _ method: String,
        _ path: String,
        headers: [String: String] = [:],
        body: Data? = nil,
        authenticated: Bool = true,
        maxBytes: Int,
        progress: (@Sendable (Int, Int?) -> Void)? = nil
    ) async throws -> HTTPReply {
        var headers = headers
        headers["accept"] = "application/json"
        headers["accept-encoding"] = "gzip"
        if body != nil { headers["content-type"] = "application/json" }
        if authenticated {
            guard let token else { throw ServerError.signInExpired }
            headers["authorization"] = "Bearer \(token)"
        }
        let reply: HTTPReply
        do {
            reply = try await transport.send(
                HTTPRequestSpec(method: method, path: path, headers: headers, body: body),
                maxResponseBytes: maxBytes,
                progress: progress
            )
        } catch let error as TransportError {
            switch error {
            case .unreachable: throw ServerError.offline
            case .timedOut: throw ServerError.degraded
            case .tooLarge: throw ServerError.badResponse("the answer is larger than allowed")
            case .protocolError(let why): throw ServerError.badResponse(why)
            }
        }
        switch reply.status {
        case 401 where authenticated: throw ServerError.signInExpired
        case 403:
            switch (try? decodeEnvelope(reply))?.error {
            case let error? where error.known == .notOpen: throw ServerError.notOpenYet(error.message)
            case let error? where error.known == .accountDisabled: throw ServerError.accountDisabled
            default: throw ServerError.forbidden
            }
        case 413: throw ServerError.tooLarge
        case 429: throw ServerError.rateLimited(retryAfter: reply.headers["retry-after"].flatMap(Int.init).map { .seconds(max(0, min($0, 3600))) })
        case 500...599: throw ServerError.serverFailure(status: reply.status)
        default: return reply
        }
    }

    /// The body, gunzipped under the caps when the server compressed it (`maxOutputBytes`: a larger one for the
    /// answers that may be, a classroom's documents).
    func body(of reply: HTTPReply, expecting statuses: Set<Int>, maxOutputBytes: Int = maxResponseBytes) throws -> Data {
        guard statuses.contains(reply.status) else {
            let message = (try? decodeEnvelope(reply))?.error.message ?? "unexpected status"
            throw ServerError.refused(status: reply.status, message: message)
        }
        guard let encoding = reply.headers["content-encoding"], encoding.lowercased() != "identity" else { return reply.body }
        guard encoding.lowercased() == "gzip" else { throw ServerError.badResponse("unknown content encoding") }
        do {
            return try Gzip.decompress(reply.body, limits: .init(maxOutputBytes: maxOutputBytes))
        } catch {
            throw ServerError.badResponse("compressed data was refused: \(error)")
        }
    }

    func decode<T: Decodable>(_ type: T.Type, _ reply: HTTPReply, expecting statuses: Set<Int>, maxOutputBytes: Int = maxResponseBytes) throws -> T {
        let data = try body(of: reply, expecting: statuses, maxOutputBytes: maxOutputBytes)
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw ServerError.badResponse("the answer is not valid JSON of the expected shape")
        }
    }

    func decodeEnvelope(_ reply: HTTPReply) throws -> ErrorEnvelope {
        var plain = reply
        plain.body = try body(of: HTTPReply(status: 200, headers: reply.headers, body: reply.body), expecting: [200])
        return try JSONDecoder().decode(ErrorEnvelope.self, from: plain.body)
    }
}

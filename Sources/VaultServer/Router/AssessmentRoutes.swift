import Foundation
import HTTPTypes
import Hummingbird
import VaultAPI
import VaultCore
import VaultRules
import VaultScoring

/// Catalog, download (with ETag), publish, delete and the teacher's view of what came back.
struct AssessmentRoutes<Storage: ServerStorage> {
    let storage: Storage
    let configuration: ServerConfiguration
    let sealed: SealedExams
    let receipts: ReceiptIssuer
    let draws: StudentDraws

    func register(on group: RouterGroup<VaultRequestContext>) {
        group.get("assessments") { request, _ in
            try JSONBody.response(CatalogResponse(assessments: try await storage.catalog()), request: request)
        }
        group.get("assessments/:id") { request, context in
            let id = try context.parameters.require("id")
            guard let current = try await storage.served(id: id) else { throw APIError.notFound(id) }
            let served = try await draws.served(
                current,
                id: id,
                user: context.user,
                student: context.role == .student,
                storage: storage,
                now: configuration.now()
            )
            // The roster's "downloaded": who fetched which version, and when (a check that finds it unchanged counts).
            if context.role == .student, let user = context.user {
                try await storage.recordDownload(assessmentID: id, version: current.version, user: user, now: configuration.now(), classroom: nil)
                ServerMetrics.download(assessmentID: id)
                // A classroom tells the district, so its roster counts the download too (issue 69): once per version.
                if configuration.classroom {
                    let body = String(
                        decoding: try CanonicalJSON.encode(ClassroomDownload(assessmentId: id, version: current.version)),
                        as: UTF8.self
                    )
                    try await storage.keepForUpstream(
                        [UpstreamItem(kind: .download, itemID: "\(id)/\(user)/\(current.version)", user: user, deviceKey: nil, body: body)],
                        now: configuration.now()
                    )
                }
            }
            let etag = "\"\(served.contentHash)\""
            if let match = request.headers[.ifNoneMatch], match.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }).contains(etag)
            {
                return Response(status: .notModified, headers: [.eTag: etag])
            }
            // A sealed exam never leaves with its questions readable.
            let bytes = try await sealed.downloadBytes(served.bytes)
            var headers: HTTPFields = [.eTag: etag]
            headers[ServedSignatureHeader.name] = try ServedSignature.sign(ServedSignature.document(bytes), with: try await receipts.identity())
            return try JSONBody.response(bytes: bytes, request: request, headers: headers)
        }
        group.get("assessments/:id/key") { request, context in
            let id = try context.parameters.require("id")
            guard let served = try await storage.served(id: id) else { throw APIError.notFound(id) }
            guard let document = try SealedExams.sealedDocument(served.bytes) else {
                throw APIError(.notFound, code: .notSealed, message: "This assessment is not sealed; it has no key.")
            }
            guard let opensAt = document.opensAt, let opens = Timestamp.date(opensAt) else {
                throw APIError(.forbidden, code: .notOpen, message: "This exam opens with the start code from the person running it.")
            }
            guard configuration.now() >= opens else {
                var error = APIError(.forbidden, code: .notOpen, message: "This exam opens at \(opensAt).")
                error.opensAt = opensAt
                throw error
            }
            let material = try await sealed.material(id: id, version: document.version ?? 1)
            return try JSONBody.response(
                SealedKeyResponse(id: id, version: document.version ?? 1, contentKey: material.contentKey.base64EncodedString()),
                request: request
            )
        }
        group.put("assessments/:id") { request, context in
            try requireTeacher(context)
            // A classroom serves the district's versions: one published here would be an assessment the district
            // never heard of, and every answer to it would be refused there.
            guard !configuration.classroom else {
                throw APIError(
                    .forbidden,
                    code: .forbidden,
                    message: "This is a classroom server: publish at the district, then `vault-server classroom pull` brings it here."
                )
            }
            let id = try context.parameters.require("id")
            var assessment = try await JSONBody.decode(Assessment.self, from: request, limit: configuration.maxRequestBytes)
            guard assessment.id == id else {
                throw APIError.badRequest("The id in the document (\(assessment.id)) differs from the id in the address (\(id)).")
            }
            assessment.version = nil
            assessment.contentHash = nil
            do {
                try PublishCheck.validate(assessment)
            } catch let problem as AssessmentValidator.Problem {
                throw APIError(.unprocessableContent, code: .invalidAssessment, message: problem.message)
            }
            let servable: (document: Assessment, bytes: Data, contentHash: String)
            do {
                servable = try AssessmentPublisher.serve(assessment, version: 1)
            } catch let tooLarge as AssessmentPublisher.TooLarge {
                throw APIError(.contentTooLarge, code: .tooLarge, message: tooLarge.description)
            }
            if let refusal = ContentPlan.downloadRefusal(servable.bytes) {
                throw APIError(.unprocessableContent, code: .invalidAssessment, message: refusal)
            }
            let existed = try await storage.served(id: id) != nil
            let result: PublishResponse
            do {
                // Another teacher's id is "not found": publishing there would have replaced their assessment.
                let publisher = context.publisher
                result = try await storage.publish(assessment, now: configuration.now(), by: publisher)
            } catch StorageError.notPermitted {
                throw APIError.notFound(id)
            }
            return try JSONBody.response(result, status: existed ? .ok : .created, request: request)
        }
        group.delete("assessments/:id") { _, context in
            let id = try context.parameters.require("id")
            try await requireAccess(id, context, storage: storage)
            guard try await storage.delete(id: id, now: configuration.now()) else { throw APIError.notFound(id) }
            return Response(status: .noContent)
        }
        group.get("assessments/:id/responses") { request, context in
            let id = try context.parameters.require("id")
            try await requireAccess(id, context, storage: storage)
            guard let received = try await storage.received(assessmentID: id) else { throw APIError.notFound(id) }
            return try JSONBody.response(received, request: request)
        }
    }
}

/// The header that carries a served signature (`ServedSignature`).
enum ServedSignatureHeader {
    static let name = HTTPField.Name(ServedSignature.header)!
}

func requireTeacher(_ context: VaultRequestContext) throws {
    guard context.role?.teaches == true else { throw APIError.forbidden }
}

/// A teacher's route on one assessment: 404 unless they may act on it (`ServerStorage.mayAct`).
func requireAccess(_ id: String, _ context: VaultRequestContext, storage: some PublishingStore) async throws {
    try requireTeacher(context)
    guard try await storage.mayAct(user: context.user, role: context.role, onAssessment: id) else { throw APIError.notFound(id) }
}

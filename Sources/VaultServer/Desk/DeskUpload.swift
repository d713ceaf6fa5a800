import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat
import NIOPosix
import VaultAPI
import VaultImport
import VaultRules

/// Publishing a file from the desk: `/desk/publish` shows the form; its script posts the file's bytes to
/// `/desk/publish/check` (what would be published: the import report) and, when the teacher says so, to
/// `/desk/publish/commit`. Nothing is kept between the two: the file is read again, so what is published is exactly
/// what the teacher's browser holds. The same `ContentPlan` judges it as `vault-server publish` does.
extension DeskRoutes {
    static var csrfHeader: HTTPField.Name { HTTPField.Name("X-Desk-CSRF")! }
    static var nextHeader: HTTPField.Name { HTTPField.Name("X-Desk-Next")! }

    /// Files are read one at a time on a thread of their own: a 12 MB package keeps a core busy for a while, and
    /// the event loops and every other request go on meanwhile.
    static var importPool: NIOThreadPool { DeskImportPool.shared }

    func registerUpload(on signedIn: RouterGroup<VaultRequestContext>, open: RouterGroup<VaultRequestContext>) {
        open.get("upload.js") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/javascript; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: DeskTemplates.upload))
            )
        }
        signedIn.get("publish") { _, context in
            try notOnAClassroom()
            return pages.html(pages.render("publish", DeskView.PublishPage(user: context.user, csrf: csrf(context))))
        }
        signedIn.post("publish/check") { request, context in
            try notOnAClassroom()
            return try await upload(request, context: context, publish: false)
        }
        signedIn.post("publish/commit") { request, context in
            try notOnAClassroom()
            return try await upload(request, context: context, publish: true)
        }
    }

    /// Reads the posted file and shows its report, or publishes it and names the assessment's page in `X-Desk-Next`.
    /// Every refusal is the report's sentence (status 4xx); nothing changes unless publishing succeeded.
    func upload(_ request: Request, context: VaultRequestContext, publish: Bool) async throws -> Response {
        let query = request.uri.queryParameters
        let fileName = query.get("name").map { String($0.prefix(200)) } ?? "file"
        let id = query.get("id").flatMap { $0.isEmpty ? nil : String($0) }
        let title = query.get("title").flatMap { $0.isEmpty ? nil : String($0) }
        var view = DeskView.PublishPage(user: context.user, csrf: csrf(context), id: id ?? "", titleChoice: title ?? "")
        func refuse(_ status: HTTPResponse.Status, _ sentence: String) -> Response {
            view.problem = sentence
            return pages.html(pages.render("publish", view), status: status)
        }
        try checkOrigin(request)
        guard let token = context.deskToken, DeskSession.csrfMatches(request.headers[Self.csrfHeader], token: token) else {
            throw DeskError.staleForm
        }
        guard request.headers[.contentType] == "application/octet-stream" else {
            return refuse(.unsupportedMediaType, "The file was not sent as this page sends files; reload the page and try again.")
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: AssessmentImporter.maxFileBytes)
        } catch {
            return refuse(.contentTooLarge, "The file is larger than any assessment may be (12 MB); nothing was read.")
        }
        let data = Data(buffer: body)
        let plan: ContentPlan
        do {
            let read = try await Self.importPool.runIfActive {
                Result { try AssessmentImporter.read(data, fileName: fileName, id: id, title: title) }
            }
            plan = try await ContentPlan.make(read.get(), data: data, storage: storage)
        } catch let refused as ContentPlan.Refused {
            return refuse(.unprocessableContent, "\(fileName): \(refused.message)")
        } catch let error as ImportError {
            return refuse(.unprocessableContent, "\(fileName): \(error.message)")
        }
        // An id this teacher may not act on is another teacher's assessment: it is named taken, nothing more.
        var mayAct = true
        if plan.current != nil { mayAct = try await storage.mayAct(user: context.user, role: context.role, onAssessment: plan.assessment.id) }
        guard mayAct else {
            return refuse(.conflict, "The id \(plan.assessment.id) is taken by another teacher's assessment; give this one its own id.")
        }
        guard publish else {
            view.ready = DeskView.PublishReport(plan, fileName: fileName)
            return pages.html(pages.render("publish", view))
        }
        if plan.replacing != nil, query.get("replace") != "1" {
            view.ready = DeskView.PublishReport(plan, fileName: fileName)
            view.problem = "Nothing was published: tick \"Replace it\" to replace the assessment this id holds, or give this file its own id."
            return pages.html(pages.render("publish", view), status: .conflict)
        }
        let published: PublishResponse
        do {
            let publisher = context.publisher
            published = try await storage.publish(plan.assessment, now: configuration.now(), by: publisher)
        } catch let tooLarge as AssessmentPublisher.TooLarge {
            return refuse(.contentTooLarge, "\(fileName): \(tooLarge.description)")
        } catch StorageError.notPermitted {
            return refuse(.conflict, "The id \(plan.assessment.id) is taken by another teacher's assessment; give this one its own id.")
        }
        let notice = published.changed ? "published" : "unchanged"
        var response = pages.html(pages.render("publish", view))
        response.headers[Self.nextHeader] = "/desk/a/\(Self.pathSegment(published.id))?notice=\(notice)"
        return response
    }
}

/// The one thread files are read on (see `DeskRoutes.importPool`).
enum DeskImportPool {
    static let shared: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        return pool
    }()
}

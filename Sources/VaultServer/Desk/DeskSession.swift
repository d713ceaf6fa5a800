import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import VaultAPI
import VaultCore

/// The desk's sign-in: a cookie session (HttpOnly, SameSite=Strict, Path=/desk, Secure behind TLS) whose token is
/// stored hashed like an API token, and a CSRF token per session that every form carries.
enum DeskSession {
    static let cookie = "vault_desk"
    /// A random value set with the sign-in form and checked with its post (no one else's page can sign you in).
    static let loginCookie = "vault_desk_login"
    static let lifetime: TimeInterval = 12 * 3600

    /// The form token of a session: derived from its secret (which no script can read), so nothing more is stored.
    static func csrf(for token: String) -> String { PasswordHasher.tokenHash("desk-csrf\u{0}" + token) }

    /// True when `candidate` is the session's form token (compared in constant time).
    static func csrfMatches(_ candidate: String?, token: String) -> Bool {
        guard let candidate else { return false }
        return constantTimeEqual(Array(candidate.utf8), Array(csrf(for: token).utf8))
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// Served over TLS (directly, or behind a proxy that says so): the cookies are Secure.
    static func isSecure(_ request: Request, configuration: ServerConfiguration) -> Bool {
        configuration.secureCookies || request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }

    static func sessionCookie(_ value: String, secure: Bool, maxAge: Int) -> Cookie {
        Cookie(name: cookie, value: value, maxAge: maxAge, path: "/desk", secure: secure, httpOnly: true, sameSite: .strict)
    }

    static func nonceCookie(_ value: String, secure: Bool) -> Cookie {
        Cookie(
            name: loginCookie,
            value: value,
            maxAge: value.isEmpty ? 0 : 3600,
            path: "/desk/login",
            secure: secure,
            httpOnly: true,
            sameSite: .strict
        )
    }
}

/// Resolves the desk cookie to a teacher. No session: a page sends you to sign in, a form post is refused. A
/// student's session: 403 on every page and form. A form post without the session's CSRF token changes nothing.
struct DeskAuthenticator<Storage: AccountStore>: RouterMiddleware {
    typealias Context = VaultRequestContext
    let storage: Storage
    /// The server's clock (`ServerConfiguration.now`): a token expires by it.
    let now: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = request.cookies[DeskSession.cookie]?.value, token.count <= 200,
            let owner = try await storage.tokenOwner(hash: PasswordHasher.tokenHash(token), now: now()),
            // A classroom server's token never opens a desk (issue 69).
            owner.classroom == nil
        else {
            if request.method == .get || request.method == .head { return .redirect(to: "/desk/login", type: .normal) }
            throw DeskError(.unauthorized, heading: "Please sign in", text: "You are not signed in, so nothing was changed.", back: "/desk/login")
        }
        guard owner.role.teaches else { throw DeskError.teachersOnly }
        var context = context
        context.user = owner.user
        context.role = owner.role
        context.tokenHash = PasswordHasher.tokenHash(token)
        context.deskToken = token
        return try await next(request, context)
    }
}

/// The pages of one assessment (`/desk/a/:id/...`) for those who may act on it (`ServerStorage.mayAct`); for anyone
/// else the assessment does not exist.
struct DeskAssessmentAccess<Storage: PublishingStore>: RouterMiddleware {
    typealias Context = VaultRequestContext
    let storage: Storage

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = try context.parameters.require("id")
        guard try await storage.mayAct(user: context.user, role: context.role, onAssessment: id) else {
            throw TeacherDesk.Problem.noAssessment(id)
        }
        return try await next(request, context)
    }
}

/// A desk failure shown as a page, never as JSON and never with a stack of details.
struct DeskError: Error, Sendable {
    let status: HTTPResponse.Status
    let heading: String
    let text: String
    let back: String

    init(_ status: HTTPResponse.Status, heading: String, text: String, back: String = "/desk") {
        self.status = status
        self.heading = heading
        self.text = text
        self.back = back
    }

    static let teachersOnly = DeskError(
        .forbidden,
        heading: "For teachers only",
        text: "The teacher's desk is for teacher accounts; this account is a student's.",
        back: "/desk/login"
    )

    static let staleForm = DeskError(
        .forbidden,
        heading: "This form is out of date",
        text: "The page this form came from is too old or not from this desk, so nothing was changed. Reload the page and try again."
    )
}

/// Turns desk failures into pages, and adds the headers every desk page carries.
struct DeskPages: RouterMiddleware {
    typealias Context = VaultRequestContext
    let library: MustacheLibrary

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as DeskError {
            response = html(
                render(
                    "message",
                    DeskView.Message(title: error.heading, heading: error.heading, text: error.text, back: error.back, user: context.user)
                ),
                status: error.status
            )
        } catch let error as StorageError where error.isTemporary {
            // The database is down or full: a page that says so at once, never a hang or a JSON error.
            response = html(
                render(
                    "message",
                    DeskView.Message(
                        title: "Database unavailable",
                        heading: "The database is not available right now",
                        text: "Nothing was changed. The server keeps trying to reach its database; reload this page in a minute.",
                        back: "/desk",
                        user: context.user
                    )
                ),
                status: .serviceUnavailable
            )
            response.headers[.retryAfter] = "5"
        } catch let problem as TeacherDesk.Problem {
            // An unknown assessment and another teacher's look the same: 404.
            let missing = if case .noAssessment = problem { true } else { false }
            response = html(
                render(
                    "message",
                    DeskView.Message(title: "Not done", heading: "Not done", text: problem.description, back: "/desk", user: context.user)
                ),
                status: missing ? .notFound : .badRequest
            )
        }
        Self.secure(&response.headers)
        return response
    }

    func render(_ template: String, _ view: Any) -> String { library.render(view, withTemplate: template) ?? "" }

    func html(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: body))
        )
    }

    /// No script runs but the desk's own file (`/desk/live.js`, which fetches only the desk), nothing is framed or cached, no address leaks to another site in a referrer ("same-origin", not
    /// "no-referrer": under that a browser sends `Origin: null` with the desk's own forms, which the origin check refuses).
    static func secure(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        headers[.cacheControl] = "no-store"
    }
}

import Foundation
import VaultCore
import VaultLanguage
import VaultModel

/// What went wrong talking to the server, typed for retry decisions and worded for students.
public enum ServerError: Error, Sendable, Equatable {
    /// No connection could be made.
    case offline
    /// Connected, but timed out or the answer broke off.
    case degraded
    /// 401: the token is missing, expired or revoked.
    case signInExpired
    /// 401 on the token request itself.
    case badCredentials
    /// 403 on the token request: the account is turned off.
    case accountDisabled
    case forbidden
    case notFound(String)
    /// 413
    case tooLarge
    /// 429, with the wait the server asked for.
    case rateLimited(retryAfter: Duration?)
    /// 5xx
    case serverFailure(status: Int)
    /// 409 on a submission
    case versionConflict(currentVersion: Int)
    /// 422 on a submission: these response ids have not arrived.
    case responsesMissing([String])
    /// A 4xx the client should not retry, with the server's message.
    case refused(status: Int, message: String)
    /// The server answered something that is not what the contract says (malformed, oversized, wrong hash).
    case badResponse(String)
    /// A sealed exam that has not opened yet (the server's sentence says when).
    case notOpenYet(String)
    /// 422 on a submission: every attempt the assessment allows is used (the server's sentence).
    case noAttemptsLeft(String)

    /// The plain sentence and exit class for the CLI. No HTTP codes.
    public var vaultError: VaultError {
        switch self {
        case .offline:
            VaultError(
                .offline,
                tr(
                    "This needs an internet connection and the server cannot be reached. Your work is saved and fully available offline; try again when you are online."
                )
            )
        case .degraded:
            VaultError(
                .temporary,
                tr("The server is reachable but not answering properly right now. Your work is saved; try again in a few minutes.")
            )
        case .signInExpired:
            VaultError(.notAllowed, tr("Your sign-in has expired. Run `vault login`."))
        case .badCredentials:
            VaultError(.notAllowed, tr("The server did not accept that user name and password. Check them and try again."))
        case .accountDisabled:
            VaultError(
                .notAllowed,
                tr("Your account is turned off on the server, so you cannot sign in. Your work is saved in this vault; ask your teacher.")
            )
        case .forbidden:
            VaultError(.notAllowed, tr("Your account is not allowed to do this."))
        case .notFound(let what):
            VaultError(.notFound, tr("{what} is no longer available on the server.", ["what": what]))
        case .tooLarge:
            VaultError(.temporary, tr("The server refused an upload as too large. It will be sent in smaller parts next time."))
        case .rateLimited:
            VaultError(.temporary, tr("The server is busy. Your work is saved; try again in a few minutes."))
        case .serverFailure:
            VaultError(.temporary, tr("The server had a problem. Your work is saved; try again later."))
        case .versionConflict:
            VaultError(.temporary, tr("The assessment changed on the server; decide what to do with `vault sync`."))
        case .responsesMissing:
            VaultError(.temporary, tr("Some answers have not reached the server yet; they will be sent first."))
        case .refused(_, let message):
            VaultError(.invalidData, tr("The server refused the request: {message}", ["message": message]))
        case .noAttemptsLeft(let message):
            VaultError(.notAllowed, message + " " + tr("Your answers stay in this vault; `vault hand-in` can still give them to your teacher."))
        case .notOpenYet(let message):
            VaultError(.notAllowed, message + " " + tr("Until then it opens only with the start code from the person running it."))
        case .badResponse(let why):
            VaultError(.invalidData, tr("The server sent something unexpected ({why}). Nothing was changed.", ["why": why]))
        }
    }
}

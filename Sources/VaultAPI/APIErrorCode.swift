import Foundation

/// Every `error.code` the server answers with: one list, used by the server to answer and by the client to match,
/// so a code cannot be misspelt on either side. The wire carries the raw word; a word this client does not know
/// reads as nil (`ErrorEnvelope.Body.known`) and is treated by its HTTP status.
public enum APIErrorCode: String, Codable, Sendable, CaseIterable {
    case accountDisabled = "account_disabled"
    case answerSetDiffers = "answer_set_differs"
    case assessmentClosed = "assessment_closed"
    case badRequest = "bad_request"
    case busy
    case forbidden
    case gone
    case `internal` = "internal"
    case invalidAssessment = "invalid_assessment"
    case invalidCredentials = "invalid_credentials"
    case keyTaken = "key_taken"
    case noAttemptsLeft = "no_attempts_left"
    case notFound = "not_found"
    case notOpen = "not_open"
    case notSealed = "not_sealed"
    case notYourAttempt = "not_your_attempt"
    case rejected
    case responsesMissing = "responses_missing"
    case tooLarge = "too_large"
    case tooManyAnswers = "too_many_answers"
    case tooManyAttempts = "too_many_attempts"
    case tooManyItems = "too_many_items"
    case unauthorized
    case unsupportedEncoding = "unsupported_encoding"
    case versionConflict = "version_conflict"
}

import Foundation
import VaultAPI

/// Names and ids at the API boundary: no NUL and no C0 or C1 control character, the same 400 on every store. SQLite
/// would cut a name at a NUL (so `"teacher\u{0}x"` signed in as `teacher`) and PostgreSQL refuses it with an error.
enum Identifiers {
    static func isClean(_ value: String) -> Bool {
        !value.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    static func check(_ values: some Sequence<String>) throws {
        guard values.allSatisfy(isClean) else { throw refused }
    }

    static func check(_ items: [ResponseItem]) throws {
        for item in items { try check([item.id, item.attemptId, item.assessmentId, item.questionId]) }
    }

    static func check(_ request: SubmissionRequest) throws {
        try check([request.attemptId, request.assessmentId])
        try check(request.responseIds)
        for answer in request.answers ?? [] { try check([answer.responseId, answer.questionId]) }
    }

    static let refused = APIError.badRequest("Names and ids may not contain control characters.")
}

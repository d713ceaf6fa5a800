import Foundation
import VaultAPI

/// Names and ids at the API boundary: no NUL and no C0 or C1 control character, the same 400 on every store. SQLite
/// would cut a name at a NUL (so `"teacher\u{0}x"` signed in as `teacher`) and PostgreSQL refuses it with an error.
public enum Identifiers {
    /// No C0 control (U+0000–U+001F), DEL (U+007F) or C1 control (U+0080–U+009F: bytes C2 80–C2 9F), read as UTF-8
    /// bytes: on the batch path this runs for every id of every answer, and Unicode property lookups cost far more.
    public static func isClean(_ value: String) -> Bool {
        var previous: UInt8 = 0
        for byte in value.utf8 {
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && (0x80...0x9F).contains(byte)) { return false }
            previous = byte
        }
        return true
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

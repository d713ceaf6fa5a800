import Foundation

/// The one encoding both sides hash: sorted keys, no escaped slashes, no whitespace.
public enum CanonicalJSON {
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// What a question's `hash` covers: the served question without its own hash.
    public static func questionBytes(_ question: Question) throws -> Data {
        var copy = question
        copy.hash = nil
        copy.answerKey = nil
        copy.acceptedAnswers = nil
        return try encode(copy)
    }

    /// What `content_hash` covers: the served document (version and question hashes set) without `content_hash`.
    public static func contentBytes(_ assessment: Assessment) throws -> Data {
        var copy = assessment.served
        copy.contentHash = nil
        return try encode(copy)
    }
}

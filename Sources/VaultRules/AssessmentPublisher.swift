import Foundation
import VaultAPI
import VaultCore

/// Turns a teacher's document into the served form: version set, question hashes, content hash.
public enum AssessmentPublisher {
    /// The served document and its bytes, for a given version.
    public static func serve(_ assessment: Assessment, version: Int) throws -> (document: Assessment, bytes: Data, contentHash: String) {
        let served = try ServedDocument.hashed(assessment.served, version: version)
        return (served, try CanonicalJSON.encode(served), served.contentHash ?? "")
    }

    /// The teacher's content without server-assigned fields, to tell a real change from a re-publish.
    public static func sourceBytes(_ assessment: Assessment) throws -> Data {
        var source = assessment
        source.version = nil
        source.contentHash = nil
        for index in source.questions.indices { source.questions[index].hash = nil }
        return try CanonicalJSON.encode(source)
    }
}

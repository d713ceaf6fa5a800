import Foundation
import Logging
import Synchronization
import VaultAPI

/// `vault-server serve --log-format json`: one JSON object a line on standard error, for a district's log
/// collector. Each line: `time` (RFC 3339, milliseconds, UTC), `level`, `label`, `source`, `message`, and the
/// entry's metadata as strings (a request's `request_id`, `method`, `route`, `status`, `duration_ms`; an error's
/// `cause`). What is logged is what the text format logs: never a password, a token, an answer or a body.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    let label: String
    let write: @Sendable (Data) -> Void

    public init(label: String, write: @escaping @Sendable (Data) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, entry in entry }) {
            fields[key] = "\(value)"
        }
        fields["time"] = Timestamp.string(Date())
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["source"] = event.source
        fields["message"] = "\(event.message)"
        guard var line = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        line.append(0x0A)
        write(line)
    }

    /// Whole lines to standard error, one writer at a time (two requests never interleave their lines).
    public static let standardError: @Sendable (Data) -> Void = { line in
        lock.withLock { _ in FileHandle.standardError.write(line) }
    }
    private static let lock = Mutex(())
}

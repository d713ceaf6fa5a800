import Logging

extension Logger {
    /// The default for callers that pass no logger: the library never logs on its own.
    public static let disabled = Logger(label: "vault", factory: { _ in SwiftLogNoOpLogHandler() })
}

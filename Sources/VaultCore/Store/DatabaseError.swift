/// An error reported by SQLite: the result code, SQLite's message and the SQL that failed.
///
/// Bound values and keys are never stored here, so the error can be logged safely.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    public let resultCode: ResultCode
    public let message: String?
    public let sql: String?
    /// The operating system's errno behind an I/O failure (ENOSPC, EFBIG...), when SQLite recorded one.
    public let systemErrno: Int32

    public init(resultCode: ResultCode, message: String? = nil, sql: String? = nil, systemErrno: Int32 = 0) {
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    public var description: String {
        var text = "SQLite error \(resultCode.rawValue)"
        if let message { text += ": \(message)" }
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }
}

import CSQLCipher

/// A SQLite result code, primary or extended, with the constants the vault cares about.
///
/// Matches by primary code in `catch` clauses: `catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT`.
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code (the low byte of an extended code).
    public var primaryResultCode: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    public static let SQLITE_OK = ResultCode(rawValue: CSQLCipher.SQLITE_OK)
    public static let SQLITE_ERROR = ResultCode(rawValue: CSQLCipher.SQLITE_ERROR)
    public static let SQLITE_BUSY = ResultCode(rawValue: CSQLCipher.SQLITE_BUSY)
    public static let SQLITE_NOMEM = ResultCode(rawValue: CSQLCipher.SQLITE_NOMEM)
    public static let SQLITE_READONLY = ResultCode(rawValue: CSQLCipher.SQLITE_READONLY)
    public static let SQLITE_IOERR = ResultCode(rawValue: CSQLCipher.SQLITE_IOERR)
    public static let SQLITE_CORRUPT = ResultCode(rawValue: CSQLCipher.SQLITE_CORRUPT)
    public static let SQLITE_FULL = ResultCode(rawValue: CSQLCipher.SQLITE_FULL)
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: CSQLCipher.SQLITE_CANTOPEN)
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: CSQLCipher.SQLITE_CONSTRAINT)
    public static let SQLITE_MISUSE = ResultCode(rawValue: CSQLCipher.SQLITE_MISUSE)
    public static let SQLITE_NOTADB = ResultCode(rawValue: CSQLCipher.SQLITE_NOTADB)
    public static let SQLITE_ROW = ResultCode(rawValue: CSQLCipher.SQLITE_ROW)
    public static let SQLITE_DONE = ResultCode(rawValue: CSQLCipher.SQLITE_DONE)

    /// True for the codes that mean the file's bytes are not what SQLite expects.
    public var isDamage: Bool {
        let primary = primaryResultCode
        return primary == .SQLITE_CORRUPT || primary == .SQLITE_NOTADB
    }

    public var description: String {
        String(cString: sqlite3_errstr(rawValue)) + " (\(rawValue))"
    }

    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        pattern == code.primaryResultCode || pattern == code
    }
}

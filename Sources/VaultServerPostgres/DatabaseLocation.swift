import Foundation
import VaultServer

/// Where a PostgreSQL database is, from `--database postgres://user@host:port/db` or `VAULT_SERVER_DATABASE_URL`.
///
/// A password in the URL is refused: it would sit in the process list and shell history. It comes from the
/// standard password file instead (`PGPASSFILE`, else `~/.pgpass`; lines `host:port:database:user:password`,
/// `*` matching anything), or the server needs none (trust or peer authentication).
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var database: String
    /// TLS to the database, as libpq's `sslmode` says it (issue 70); `prefer` when the URL names none, as libpq.
    public var sslMode: SSLMode
    /// The certificate authority `verify-ca` and `verify-full` check the server's certificate against.
    public var sslRootCert: String?

    /// libpq's `sslmode` values. `allow` is taken as `prefer` (TLS first, clear only when the server has none).
    public enum SSLMode: String, Sendable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"

        /// The modes that check the server's certificate against a root certificate.
        public var verifies: Bool { self == .verifyCA || self == .verifyFull }
    }

    public init(host: String, port: Int, user: String, database: String, sslMode: SSLMode = .prefer, sslRootCert: String? = nil) {
        self.host = host
        self.port = port
        self.user = user
        self.database = database
        self.sslMode = sslMode
        self.sslRootCert = sslRootCert
    }

    /// True for a value that names PostgreSQL (anything else is an SQLite data directory).
    public static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    public init(url text: String) throws {
        guard Self.isPostgresURL(text), let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw StorageError.badLocation("The database must be given as postgres://USER@HOST:PORT/DATABASE.")
        }
        // A password in the query (`?password=`, as libpq accepts) is a password in the URL all the same.
        let secretParameter = components.queryItems?.contains { ["password", "passfile", "sslpassword"].contains($0.name.lowercased()) } ?? false
        guard components.password == nil, !secretParameter else {
            throw StorageError.badLocation(
                "The database URL contains a password; leave it out and put it in a password file (PGPASSFILE or ~/.pgpass) instead."
            )
        }
        guard let user = components.user, !user.isEmpty else {
            throw StorageError.badLocation("The database URL needs a user name: postgres://USER@HOST:PORT/DATABASE.")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw StorageError.badLocation("The database URL needs a database name: postgres://USER@HOST:PORT/DATABASE.")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name.lowercased(), $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        var mode = SSLMode.prefer
        if let word = query["sslmode"] {
            guard let named = SSLMode(rawValue: word) else {
                throw StorageError.badLocation(
                    "sslmode=\(word) is not a mode PostgreSQL knows; use disable, allow, prefer, require, verify-ca or verify-full."
                )
            }
            mode = named
        }
        var root = query["sslrootcert"].flatMap { $0.isEmpty ? nil : $0 }
        if mode.verifies {
            // Where libpq looks when the URL names none.
            let environment = ProcessInfo.processInfo.environment
            root = root ?? environment["PGSSLROOTCERT"] ?? environment["HOME"].map { $0 + "/.postgresql/root.crt" }
            guard let found = root, FileManager.default.isReadableFile(atPath: found) else {
                throw StorageError.badLocation(
                    "sslmode=\(mode.rawValue) checks the database's certificate: name its certificate authority with sslrootcert=FILE in the URL (or PGSSLROOTCERT)."
                )
            }
        }
        self.init(
            host: host,
            port: components.port ?? 5432,
            user: user.removingPercentEncoding ?? user,
            database: database,
            sslMode: mode,
            sslRootCert: root
        )
    }

    /// The URL without any secret, for messages and logs.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" + (sslMode == .prefer ? "" : "?sslmode=\(sslMode.rawValue)") }

    /// The password for this location from the password file, if there is one and it has a matching line.
    public func password(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let path = environment["PGPASSFILE"] ?? environment["HOME"].map { $0 + "/.pgpass" }
        guard let path, let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = Self.fields(String(line))
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// Splits a password-file line on unescaped colons (`\:` and `\\` are escapes).
    static func fields(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}

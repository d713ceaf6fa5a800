import Foundation

/// The server's settings from the environment: `VAULT_SERVER_DATA`, `VAULT_SERVER_DATABASE_URL`, `VAULT_SERVER_HOST`,
/// `VAULT_SERVER_PORT`, `VAULT_SERVER_LOG_LEVEL`, `VAULT_SERVER_STORE_KEY_FILE` (a classroom's store key file).
///
/// The packaged service reads them from `/etc/default/vault-server` (its unit's `EnvironmentFile`). So that an
/// administrator's `sudo -u vault-server vault-server user add ana` reaches the data the running service uses with
/// no flag, a process running as the service's own user reads that same file for any of these variables its
/// environment does not set. Anyone else (a developer's source build) sees only the environment, so the defaults
/// they know stay as they were.
struct ServerEnvironment: Sendable {
    static let settingsFile = "/etc/default/vault-server"
    static let serviceUser = "vault-server"
    static let keys: Set<String> = [
        "VAULT_SERVER_DATA", "VAULT_SERVER_DATABASE_URL", "VAULT_SERVER_HOST", "VAULT_SERVER_PORT", "VAULT_SERVER_LOG_LEVEL",
        "VAULT_SERVER_STORE_KEY_FILE",
    ]

    private let values: [String: String]

    init(environment: [String: String], settingsFile: String?) {
        var values = environment.filter { Self.keys.contains($0.key) && !$0.value.isEmpty }
        if let settingsFile, let text = try? String(contentsOfFile: settingsFile, encoding: .utf8) {
            for (key, value) in Self.assignments(in: text) where values[key] == nil && Self.keys.contains(key) && !value.isEmpty {
                values[key] = value
            }
        }
        self.values = values
    }

    /// The process's environment, plus the service's settings file when this process runs as the service's user.
    static let current = ServerEnvironment(
        environment: ProcessInfo.processInfo.environment,
        settingsFile: effectiveUserName() == serviceUser ? settingsFile : nil
    )

    subscript(key: String) -> String? { values[key] }

    /// `KEY=value` lines as systemd's `EnvironmentFile=` reads them: blank lines and `#` comments skipped, one pair of
    /// matching quotes around the value removed.
    static func assignments(in text: String) -> [(String, String)] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#"), !trimmed.hasPrefix(";"), let equals = trimmed.firstIndex(of: "=") else {
                return nil
            }
            let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            var value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            return (key, value)
        }
    }

    private static func effectiveUserName() -> String? {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }
}

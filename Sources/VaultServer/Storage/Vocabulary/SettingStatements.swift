import Foundation
import VaultAPI

/// A school's setting a running server reads (issue 59). Each is named once here, with what it may hold.
public enum ServerSetting: String, CaseIterable, Sendable {
    /// Vaults send their own counts (no ids) with a sync, aggregated into the server's metrics: on or off (default).
    case clientStats = "client-stats"

    /// The values the setting takes, the first its default.
    public var values: [String] {
        switch self {
        case .clientStats: ["off", "on"]
        }
    }
}

/// `server_settings`.
enum SettingStatements {
    static func value(_ setting: ServerSetting) -> SQLStatement {
        SQLStatement("SELECT value FROM server_settings WHERE key = ?", [.text(setting.rawValue)], columns: ["value"])
    }

    static func set(_ setting: ServerSetting, to value: String, dialect: SQLDialect) -> SQLStatement {
        SQLStatement(dialect.upsert(into: "server_settings", columns: ["key", "value"], key: ["key"]), [.text(setting.rawValue), .text(value)])
    }
}

extension SharedStatements {
    /// The setting's value, its default when never set.
    public func setting(_ setting: ServerSetting) async throws -> String {
        try await rows(SettingStatements.value(setting)) { try $0.string("value") }.first ?? setting.values[0]
    }

    public func setSetting(_ setting: ServerSetting, to value: String) async throws {
        try await run(SettingStatements.set(setting, to: value, dialect: dialect))
    }

    /// The store as the status page shows it: its engine, its size on disk, and whether it answered.
    public func storeFacts() async -> ServerStatus.Store {
        let kind = dialect == .sqlite ? "sqlite" : "postgresql"
        do {
            let bytes: Int
            switch dialect {
            case .sqlite:
                let pages = try await rows(SQLStatement("PRAGMA page_count", [], columns: ["page_count"])) { try $0.int("page_count") }.first ?? 0
                let size = try await rows(SQLStatement("PRAGMA page_size", [], columns: ["page_size"])) { try $0.int("page_size") }.first ?? 0
                bytes = pages * size
            case .postgres:
                bytes =
                    try await rows(SQLStatement("SELECT pg_database_size(current_database()) AS bytes", [], columns: ["bytes"])) {
                        try $0.int("bytes")
                    }.first ?? 0
            }
            return ServerStatus.Store(kind: kind, bytes: bytes, state: "ok")
        } catch {
            return ServerStatus.Store(kind: kind, bytes: nil, state: "unavailable")
        }
    }
}

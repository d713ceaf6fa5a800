import Foundation

/// The server account: URL, user and token, stored only inside the encrypted database.
public struct Account: Sendable, Equatable {
    public var serverURL: String
    public var user: String
    public var token: String?
    public var tokenExpiresAt: Date?
    public var role: String?

    public init(serverURL: String, user: String, token: String?, tokenExpiresAt: Date?, role: String?) {
        self.serverURL = serverURL
        self.user = user
        self.token = token
        self.tokenExpiresAt = tokenExpiresAt
        self.role = role
    }
}

extension Vault {
    public func account() throws -> Account? {
        try database.row("SELECT server_url, user_name, token, token_expires_at, role FROM account WHERE id = 1").map {
            Account(
                serverURL: try $0.string(0),
                user: try $0.string(1),
                token: try $0.optionalString(2),
                tokenExpiresAt: try $0.optionalDate(3),
                role: try $0.optionalString(4)
            )
        }
    }

    public func saveAccount(_ account: Account) throws {
        try database.inTransaction {
            try database.execute("DELETE FROM account WHERE id = 1", [])
            try database.execute(
                "INSERT INTO account (id, server_url, user_name, token, token_expires_at, role) VALUES (1, ?, ?, ?, ?, ?)",
                [account.serverURL, account.user, account.token, account.tokenExpiresAt?.millisecondsSince1970, account.role]
            )
        }
    }

    /// Forgets the token; the server URL and user stay for the next `login`.
    public func forgetToken() throws {
        try database.execute("UPDATE account SET token = NULL, token_expires_at = NULL WHERE id = 1", [])
    }
}

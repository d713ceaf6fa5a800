import CKeyutils
import COpenSSL
import Foundation
import VaultAPI
import VaultLanguage

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

/// `vault unlock`: the unwrapped data key kept for a while in the kernel's key retention service, so later commands
/// need no password. It never touches a file or an environment variable.
///
/// Where it goes: the login session keyring when this process has one (made by `pam_keyinit` at login, named
/// `_ses`: it dies with the login), else the user keyring (`@u`: it lasts across this user's processes). Either
/// way it carries a kernel timeout and permissions for this user only; it is named after the vault id, and a key
/// that does not open this vault's database is ignored.
public enum SessionKeyring {
    public enum Keyring: String, Sendable, Codable {
        case loginSession = "login_session"
        case user
    }

    /// What `status` shows.
    public struct Info: Sendable, Equatable {
        public var keyring: Keyring
        public var expiresAt: Date
    }

    static func description(vaultID: String) -> String { "vault:\(vaultID)" }

    /// The keyring a new session key goes to.
    static func target() -> (id: key_serial_t, kind: Keyring) {
        var buffer: UnsafeMutablePointer<CChar>?
        let described = keyctl_describe_alloc(vault_session_keyring(), &buffer)
        defer { free(buffer) }
        // "type;uid;gid;perm;description": a login session keyring is described as `_ses`.
        if described >= 0, let buffer, String(cString: buffer).hasSuffix(";_ses") {
            return (vault_session_keyring(), .loginSession)
        }
        return (vault_user_keyring(), .user)
    }

    /// Stores `key` for `duration`. The payload is the key followed by its expiry (so `status` can say when).
    public static func store(_ key: SecretBytes, vaultID: String, for duration: Duration) throws -> Info {
        let seconds = max(1, Int(duration.components.seconds))
        let expiresAt = Date().addingTimeInterval(TimeInterval(seconds))
        var expiry = UInt64(max(0, Int(saturating: expiresAt.timeIntervalSince1970))).bigEndian
        let payload = SecretBytes(count: key.count + 8) { buffer in
            key.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: key.count) }
            withUnsafeBytes(of: &expiry) { (buffer.baseAddress! + key.count).copyMemory(from: $0.baseAddress!, byteCount: 8) }
        }
        remove(vaultID: vaultID)
        let (keyring, kind) = target()
        let id = payload.withUnsafeBytes { bytes in
            add_key("user", description(vaultID: vaultID), bytes.baseAddress, bytes.count, keyring)
        }
        guard id >= 0 else { throw refused("add the key") }
        // Permissions first, then the timeout: a key this user's processes may use, nobody else, for `seconds`.
        guard keyctl_setperm(id, vault_private_permissions()) == 0, keyctl_set_timeout(id, UInt32(seconds)) == 0 else {
            keyctl_invalidate(id)
            throw refused("protect the key")
        }
        return Info(keyring: kind, expiresAt: expiresAt)
    }

    /// The session key of `vaultID` and its expiry, if one is there and still valid.
    public static func load(vaultID: String) -> (key: SecretBytes, info: Info)? {
        // The keyring `store` chose (searching the session keyring would also find keys of the user keyring it links).
        let (keyring, kind) = target()
        do {
            let id = keyctl_search(keyring, "user", description(vaultID: vaultID), 0)
            guard id >= 0 else { return nil }
            var raw: UnsafeMutableRawPointer?
            let length = keyctl_read_alloc(key_serial_t(id), &raw)
            guard length == 40, let raw else {
                if let raw { wipe(raw, Int(max(length, 0))) }
                return nil
            }
            defer { wipe(raw, 40) }
            let key = SecretBytes(count: 32) { $0.baseAddress!.copyMemory(from: raw, byteCount: 32) }
            let expiry = (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(raw.load(fromByteOffset: 32 + $1, as: UInt8.self)) }
            return (key, Info(keyring: kind, expiresAt: Date(timeIntervalSince1970: TimeInterval(expiry))))
        }
    }

    /// `vault lock`: revokes the session key of `vaultID` wherever it is; true when there was one.
    @discardableResult
    public static func remove(vaultID: String) -> Bool {
        var removed = false
        for keyring in [vault_session_keyring(), vault_user_keyring()] {
            let id = keyctl_search(keyring, "user", description(vaultID: vaultID), 0)
            if id >= 0, keyctl_invalidate(key_serial_t(id)) == 0 { removed = true }
        }
        return removed
    }

    /// Whether `vaultID` has a valid session key, and where, without reading it.
    public static func info(vaultID: String) -> Info? { load(vaultID: vaultID)?.info }

    private static func wipe(_ pointer: UnsafeMutableRawPointer, _ count: Int) {
        OPENSSL_cleanse(pointer, count)
        free(pointer)
    }

    private static func refused(_ what: String) -> VaultError {
        VaultError(
            .notAllowed,
            tr("The kernel keyring is not available here, so the vault cannot stay unlocked; every command will ask for the password as before."),
            detail: "\(what): \(String(cString: strerror(errno)))"
        )
    }
}

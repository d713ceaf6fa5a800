import Foundation
import Testing
import VaultTestSupport

/// Who speaks for a student, through the real binaries (issue 68): `vault-server user keys` lists each key with how it
/// came; `user keys revoke` and `user passwd --revoke-keys` stop sign-in by it at the next request.
struct DeviceKeyBinaryTests {
    @Test(
        "user keys lists the vault's key (signed in with the password); revoked, its key sign-in is refused; a password sign-in takes it back; passwd --revoke-keys ends it again",
        arguments: Store.here
    )
    func listAndRevoke(_ store: Store) async throws {
        let database: String? = store == .postgres ? try await PostgresCluster.shared().createDatabase(prefix: "keys") : nil
        let server = try ServerProcess(database: database)
        #expect(try server.admin(["user", "add", "ana", "--role", "student", "--password-iterations", "1000"], stdin: "ana-pw\n").status == 0)
        let vault = CLIVault()
        try vault.initialize()
        let password = ["login", "--server", server.url, "--user", "ana", "--vault", vault.path, "--password-stdin", "--server-password-stdin"]
        #expect(try vault.run(password, stdin: "pw-1\nana-pw\n").status == 0)
        let byKey = ["login", "--server", server.url, "--user", "ana", "--with-vault-key"]

        let listed = try server.admin(["user", "keys", "ana", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let keys = try #require(listed.json?["keys"] as? [[String: Any]])
        #expect(keys.count == 1 && keys.first?["origin"] as? String == "sign_in" && keys.first?["revoked_at"] == nil, "\(listed.stdout)")
        let fingerprint = try #require(keys.first?["fingerprint"] as? String)
        #expect(try vault.unlocked(byKey).status == 0)
        let table = try server.admin(["user", "keys", "ana"])
        #expect(table.stdout.contains(fingerprint) && table.stdout.contains("signed in with the password"), "\(table.stdout)")

        // Revoked: the next sign-in by that key is refused; the listing says who revoked it.
        let revoked = try server.admin(["user", "keys", "revoke", "ana", fingerprint])
        #expect(revoked.status == 0 && revoked.stdout.contains("Revoked 1 device key of ana"), "\(revoked.stdout) \(revoked.stderr)")
        #expect(try vault.unlocked(byKey).status != 0)
        let after = try #require(try server.admin(["user", "keys", "ana", "--json"]).json?["keys"] as? [[String: Any]])
        #expect(after.first?["revoked_by"] as? String == "the server's command line")
        #expect(try server.admin(["user", "keys", "revoke", "ana", fingerprint]).status != 0, "nothing left to revoke says so")
        #expect(try server.admin(["user", "keys", "revoke", "ana"]).status != 0, "a key or --all")

        // The student's password sign-in from that vault takes it back; a new password with --revoke-keys ends it.
        #expect(try vault.run(password, stdin: "pw-1\nana-pw\n").status == 0)
        #expect(try vault.unlocked(byKey).status == 0)
        let passwd = try server.admin(["user", "passwd", "ana", "--revoke-keys", "--password-iterations", "1000"], stdin: "new-pw\n")
        #expect(passwd.status == 0 && passwd.stdout.contains("Revoked 1 device key"), "\(passwd.stdout) \(passwd.stderr)")
        #expect(try vault.unlocked(byKey).status != 0)
    }
}

import Foundation
import Testing
import VaultServer
import VaultServerPostgres
import VaultTestSupport

/// The link to PostgreSQL as `sslmode` says (issue 70), against a throwaway cluster with `ssl=on` and a certificate
/// made by openssl for `localhost` only, and the shared cluster without TLS.
@Suite(.enabled(if: PostgresCluster.runsHere, "PostgreSQL is not installed"))
struct PostgresTLSTests {
    /// Opens the store at `url`; the server log's line for the connection says whether it was TLS.
    static func open(_ url: String) async throws -> PostgresServerStorage {
        try await PostgresServerStorage(location: PostgresLocation(url: url), connectTimeout: PostgresCluster.testConnectTimeout)
    }

    /// Whether the cluster logged a connection to `database` with TLS, or in clear.
    static func connections(to database: String, in log: String) -> (tls: Bool, clear: Bool) {
        let lines = log.split(separator: "\n").filter { $0.contains("connection authorized") && $0.contains("database=\(database)") }
        return (lines.contains { $0.contains("SSL enabled") }, lines.contains { !$0.contains("SSL enabled") })
    }

    @Test(
        "sslmode: require and verify-ca and verify-full (its host name) speak TLS and never fall back to clear; a database without TLS is refused in a sentence under require; verify-full refuses another host name; an unknown mode is refused; disable is clear"
    )
    func sslModes() async throws {
        let cluster = try await PostgresCluster.dedicated(tls: true)
        defer { try? cluster.stop() }
        let certificate = try #require(cluster.certificate)
        let url = try await cluster.createDatabase(prefix: "tls")
        let database = try #require(url.split(separator: "/").last.map(String.init))

        let required = try await Self.open(url + "?sslmode=require")
        #expect(try await required.user(named: "nobody") == nil)
        var seen = Self.connections(to: database, in: cluster.serverLog)
        #expect(seen.tls && !seen.clear, "\(cluster.serverLog.suffix(2000))")

        // The certificate names localhost: verify-full by that name is accepted, by the address refused.
        let byName = url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        _ = try await Self.open(byName + "?sslmode=verify-full&sslrootcert=\(certificate)")
        _ = try await Self.open(url + "?sslmode=verify-ca&sslrootcert=\(certificate)")
        do {
            _ = try await Self.open(url + "?sslmode=verify-full&sslrootcert=\(certificate)")
            Issue.record("verify-full accepted a certificate for another host name")
        } catch let error as StorageError {
            #expect("\(error)".contains("certificate was not accepted") && "\(error)".contains("127.0.0.1"), "\(error)")
        }
        // A certificate authority that did not sign it.
        let other = cluster.directory + "/other.crt"
        let made = try Binaries.system(
            "openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", cluster.directory + "/other.key", "-out", other, "-days", "1",
                "-subj", "/CN=localhost",
            ]
        )
        #expect(made.status == 0)
        await #expect(throws: StorageError.self) { _ = try await Self.open(url + "?sslmode=verify-ca&sslrootcert=\(other)") }
        seen = Self.connections(to: database, in: cluster.serverLog)
        #expect(!seen.clear, "no connection in clear under any of these modes")

        _ = try await Self.open(url + "?sslmode=disable")
        #expect(Self.connections(to: database, in: cluster.serverLog).clear)

        // The shared cluster has no TLS: require is refused with a sentence; the default (prefer) works in clear.
        let plain = try await PostgresCluster.shared().createDatabase(prefix: "clear")
        do {
            _ = try await Self.open(plain + "?sslmode=require")
            Issue.record("require connected without TLS")
        } catch let error as StorageError {
            #expect("\(error)".contains("does not offer TLS") && "\(error)".contains("nothing was sent in clear"), "\(error)")
        }
        _ = try await Self.open(plain)

        #expect(throws: StorageError.self) { _ = try PostgresLocation(url: url + "?sslmode=always") }
        #expect(throws: StorageError.self) { _ = try PostgresLocation(url: url + "?sslmode=verify-full&sslrootcert=/nonexistent.crt") }
    }
}

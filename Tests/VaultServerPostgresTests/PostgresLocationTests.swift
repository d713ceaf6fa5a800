import Foundation
import Testing
import VaultServer
import VaultServerPostgres
import VaultTestSupport

struct PostgresLocationTests {
    @Test("a database URL is parsed; one with a password is refused, and the refusal never repeats the password")
    func urls() throws {
        let location = try PostgresLocation(url: "postgres://vault@db.school.example:6543/district")
        #expect(location == PostgresLocation(host: "db.school.example", port: 6543, user: "vault", database: "district"))
        #expect(try PostgresLocation(url: "postgresql://kim@localhost/vault").port == 5432)
        for bad in [
            "postgres://vault:hunter2-secret@db/x", "postgres://vault@db/x?password=hunter2-secret",
            "postgres://vault@db/x?sslmode=require&PASSWORD=hunter2",
            "postgres://db/x", "postgres://vault@db", "mysql://vault@db/x", "postgres://vault@/x",
        ] {
            #expect(throws: StorageError.self) { try PostgresLocation(url: bad) }
            do {
                _ = try PostgresLocation(url: bad)
            } catch {
                #expect(!"\(error)".contains("hunter2"))
            }
        }
        #expect(location.description == "postgres://vault@db.school.example:6543/district")
    }

    @Test(
        "PostgreSQL messages: a database that cannot be reached is named by host, port and database with what to check, never the driver's raw error"
    )
    func unreachableDatabase() async throws {
        // A port nothing listens on.
        let location = PostgresLocation(host: "127.0.0.1", port: 1, user: "vault", database: "district")
        do {
            let storage = try await PostgresServerStorage(location: location, connectTimeout: .seconds(3))
            _ = try await storage.catalog()
            Issue.record("a closed port answered")
        } catch {
            let message = "\(error)"
            #expect(message.contains("127.0.0.1") && message.contains("port 1") && message.contains("district"), "\(message)")
            #expect(message.contains("check"), "\(message)")
            #expect(!message.contains("PSQLError"), "\(message)")
        }
    }

    @Test("the password comes from PGPASSFILE: first matching line, * wildcards, escaped colons; none without a match")
    func passwordFile() throws {
        let directory = TemporaryDirectory("pgpass")
        let file = directory.file("pgpass")
        try Data(
            """
            # comment
            other.example:5432:district:vault:wrong
            db.school.example:*:district:vault:pa\\:ss\\\\word
            *:*:*:vault:fallback

            """.utf8
        ).write(to: URL(fileURLWithPath: file))
        let location = PostgresLocation(host: "db.school.example", port: 6543, user: "vault", database: "district")
        #expect(location.password(environment: ["PGPASSFILE": file]) == "pa:ss\\word")
        var elsewhere = location
        elsewhere.host = "replica.example"
        #expect(elsewhere.password(environment: ["PGPASSFILE": file]) == "fallback")
        var stranger = location
        stranger.user = "kim"
        #expect(stranger.password(environment: ["PGPASSFILE": file]) == nil)
        #expect(location.password(environment: ["PGPASSFILE": directory.file("missing")]) == nil)
    }
}

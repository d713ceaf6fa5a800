import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// What a security tester checks with stock tools.
@Suite(.ownThreads)
struct EncryptionAtRestTests {
    @Test("vault.db is not a SQLite file to sqlite3, and the stock sqlcipher shell opens it with the revealed key")
    func stockShells() throws {
        let vault = CLIVault()
        try vault.initialize()
        try vault.unlocked(["config", "set", "cache.ttl_days", "4"])
        let db = vault.path + "/vault.db"
        let header = try #require(FileManager.default.contents(atPath: db)).prefix(16)
        #expect(header != Data("SQLite format 3\0".utf8))
        let plain = try Binaries.system("sqlite3", [db, "SELECT count(*) FROM sqlite_master;"])
        #expect(plain.status != 0)
        #expect(plain.stderr.contains("not a database"))

        let refused = try vault.unlocked(["key", "reveal"])
        #expect(refused.status == 77)
        let reveal = try #require(try vault.unlocked(["key", "reveal", "--yes", "--json"]).json)
        let key = try #require(reveal["sqlcipher_key"] as? String)
        #expect(key.hasPrefix("x'") && key.count == 99)
        let pragmas = try #require(reveal["pragmas"] as? [String])
        let script = pragmas.joined(separator: "\n") + "\nSELECT value FROM settings WHERE key = 'cache.ttl_days';\n"
        let shell = try Binaries.system("sqlcipher", [db], stdin: script)
        #expect(shell.stdout.contains("4"), "\(shell.stderr)")
        let withoutPageSize = try Binaries.system("sqlcipher", [db], stdin: pragmas[0] + "\nSELECT count(*) FROM settings;\n")
        #expect(!withoutPageSize.stdout.contains("1"))
        // What a person reads at 80 columns (issue 56): the PRAGMA lines whole, never wrapped inside the key, pasted
        // as printed; and a word about the shell's history.
        let printed = try vault.unlocked(["key", "reveal", "--yes"], environment: ["COLUMNS": "80"])
        let lines = printed.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("PRAGMA ") }
        #expect(lines.count == 2 && lines[0].count > 80, "\(printed.stdout)")
        let pasted = try Binaries.system(
            "sqlcipher",
            [db],
            stdin: lines.joined(separator: "\n") + "\nSELECT value FROM settings WHERE key = 'cache.ttl_days';\n"
        )
        #expect(pasted.stdout.contains("4"), "\(pasted.stderr)")
        #expect(printed.stdout.contains(".sqlite_history"))
    }

    @Test("files 0600 and directory 0700 when the caller's umask is 000")
    func umaskZero() throws {
        let root = TemporaryDirectory("vault-umask")
        let vault = root.file("v")
        let binary = Binaries.directory + "/vault"
        let result = try Binaries.run(
            "/bin/sh",
            [
                "-c",
                "umask 000; printf 'p\\n' | \"$0\" init --vault \"$1\" --kdf-iterations 1000 --new-password-stdin && printf 'p\\n' | \"$0\" config set cache.ttl_days 3 --vault \"$1\" --password-stdin",
                binary, vault,
            ]
        )
        #expect(result.status == 0, "\(result.stderr)")
        var info = stat()
        stat(vault, &info)
        #expect(info.st_mode & 0o777 == 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: vault) {
            stat(vault + "/" + name, &info)
            #expect(info.st_mode & 0o777 == 0o600, "\(name)")
        }
    }

    @Test("the password never appears in the command line or environment of the process")
    func procInspection() throws {
        let vault = CLIVault()
        try vault.initialize(password: "CANARY-PW-proc-4411")
        let process = try Binaries.start("vault", ["status", "--vault", vault.path, "--password-stdin"])
        // The process waits for its password on stdin: inspect it meanwhile.
        usleep(200_000)
        let pid = process.processIdentifier
        let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()
        let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") ?? Data()
        #expect(!cmdline.isEmpty)
        let input = process.standardInput as! Pipe
        input.fileHandleForWriting.write(Data("CANARY-PW-proc-4411\n".utf8))
        let midway = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()
        try? input.fileHandleForWriting.close()
        let result = try Binaries.finish(process)
        #expect(result.status == 0)
        for blob in [cmdline, environ, midway] {
            #expect(blob.range(of: Data("CANARY-PW-proc-4411".utf8)) == nil)
        }
        #expect(!result.stdout.contains("CANARY-PW") && !result.stderr.contains("CANARY-PW"))
        #expect(TestVault.filesContaining(["CANARY-PW-proc-4411"], in: vault.root.allFiles()).isEmpty)
    }

    @Test("verify finds a tampered page and exits 65; --verbose logs never show the password")
    func verifyTamper() throws {
        let vault = CLIVault()
        try vault.initialize(password: "CANARY-PW-verbose-77")
        let ok = try vault.unlocked(["verify", "--json", "--verbose"], password: "CANARY-PW-verbose-77")
        #expect(ok.status == 0)
        #expect(ok.json?["ok"] as? Bool == true)
        #expect(!ok.stderr.contains("CANARY-PW"))
        let db = vault.path + "/vault.db"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        bytes[bytes.count - 4096 + 100] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: db))
        let bad = try vault.unlocked(["verify", "--json", "--verbose"], password: "CANARY-PW-verbose-77")
        #expect(bad.status == 65)
        #expect(!bad.stderr.contains("CANARY-PW"))
        let wrong = try vault.unlocked(["verify", "--verbose"], password: "CANARY-PW-wrong-verbose")
        #expect(wrong.status == 77)
        #expect(!wrong.stderr.contains("CANARY-PW"))
    }

    @Test("a second command waits, then says the vault is busy and which process holds it")
    func busy() throws {
        let vault = CLIVault()
        try vault.initialize()
        // Hold the lock from this process, as a concurrent command would.
        let lock = try VaultLock(path: vault.path + "/vault.lock")
        let blocked = try vault.unlocked(["status"])
        #expect(blocked.status == 75)
        #expect(blocked.stderr.contains("process \(getpid())"))
        withExtendedLifetime(lock) {}
    }
}

import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// A classroom's store encrypted at rest (issue 69), through the binary: locked by the teacher's passphrase or a key
/// file at `classroom init`, opened by `unlock` for the day, refused in a sentence while locked.
struct ClassroomStoreTests {
    @Test(
        "classroom init encrypts the store it finds, never under a running serve (a passphrase, or a key file never in the data directory, required); every command then needs the key: unlock with the passphrase (a wrong one changes nothing), lock again; locked, a command is refused in a sentence (77)"
    )
    func passphraseAndUnlock() throws {
        let district = try ServerProcess()
        defer { district.stop() }
        let classroom = try ServerProcess(demo: false)
        classroom.stop()
        let data = classroom.dataDirectory
        #expect(FileManager.default.fileExists(atPath: data + "/server.db"), "a plaintext store from serving before")
        /// `vault-server` on the classroom's data with no key file in its environment.
        func run(_ arguments: [String], stdin: String = "") throws -> Binaries.Result {
            try Binaries.run("vault-server", arguments + ["--data", data], stdin: stdin)
        }
        let initialize = ["classroom", "init", "--upstream", district.url, "--teacher", "teacher", "--password-iterations", "1000"]

        // Neither a passphrase nor a key file: refused, nothing changed.
        let bare = try run(initialize, stdin: "teacher-password\n")
        #expect(bare.status == 64 && bare.stderr.contains("keeps its store encrypted"), "\(bare.stderr)")
        #expect(!FileManager.default.fileExists(atPath: data + "/store-key.json"))
        // A key file in the data directory would travel with a stolen laptop.
        let inside = try run(initialize + ["--store-key-file", data + "/class.key"], stdin: "teacher-password\n")
        #expect(inside.status == 64 && inside.stderr.contains("must not be kept in the data directory"), "\(inside.stderr)")
        #expect(!FileManager.default.fileExists(atPath: data + "/store-key.json"))

        // Under a running server the store cannot be locked: said, nothing changed; stopped, it can.
        try classroom.start()
        let serving = try run(initialize + ["--store-passphrase-stdin"], stdin: "teacher-password\nmaple-river-42\n")
        #expect(serving.status == 64 && serving.stderr.contains("`vault-server serve` is running"), "\(serving.stderr)")
        #expect(!FileManager.default.fileExists(atPath: data + "/store-key.json"))
        classroom.stop()
        let linked = try run(initialize + ["--store-passphrase-stdin"], stdin: "teacher-password\nmaple-river-42\n")
        #expect(linked.status == 0 && linked.stdout.contains("store is encrypted"), "\(linked.stdout) \(linked.stderr)")
        let plain = try? Database(path: data + "/server.db", encryption: .plaintext, configuration: DatabaseConfiguration())
        #expect(plain == nil, "the store opens without its key")

        // Locked: refused in a sentence naming both ways in.
        let locked = try run(["classroom", "status"])
        #expect(
            locked.status == 77 && locked.stderr.contains("vault-server unlock") && locked.stderr.contains("--store-key-file"),
            "\(locked.stderr)"
        )
        let wrong = try run(["unlock"], stdin: "not-the-passphrase\n")
        #expect(wrong.status == 77 && wrong.stderr.contains("does not open this server's store"), "\(wrong.stderr)")
        #expect(try run(["classroom", "status"]).status == 77)

        let unlocked = try run(["unlock", "--hours", "1"], stdin: "maple-river-42\n")
        #expect(unlocked.status == 0 && unlocked.stdout.contains("unlocked until"), "\(unlocked.stdout) \(unlocked.stderr)")
        let status = try run(["classroom", "status"])
        #expect(status.status == 0 && status.stdout.contains("teacher"), "\(status.stdout) \(status.stderr)")
        // What the plaintext store held before is in the keyed one: the server's key, the same fingerprint.
        #expect(try run(["key", "show"]).status == 0)

        #expect(try run(["lock"]).stdout.contains("The store is locked"))
        #expect(try run(["classroom", "status"]).status == 77)
    }

    @Test("a key file written at init opens the store unattended (serve, and every command), and no other file does")
    func keyFile() throws {
        let district = try ServerProcess()
        defer { district.stop() }
        let classroom = try ServerProcess(demo: false)
        classroom.stop()
        let linked = try classroom.admin(
            ["classroom", "init", "--upstream", district.url, "--teacher", "teacher", "--password-iterations", "1000"],
            stdin: "teacher-password\n"
        )
        #expect(linked.status == 0 && linked.stdout.contains("removable media"), "\(linked.stdout) \(linked.stderr)")
        let secret = try String(contentsOfFile: classroom.storeKeyFile, encoding: .utf8)
        #expect(secret.trimmingCharacters(in: .whitespacesAndNewlines).count == 64)
        #expect(try classroom.admin(["classroom", "pull"]).status == 0)
        try classroom.start()
        #expect(classroom.port > 0, "serve opened the store with the key file")
        classroom.stop()
        // Another key file of the same shape opens nothing.
        let other = classroom.directory.file("other.key")
        try Data((String(repeating: "ab", count: 32) + "\n").utf8).write(to: URL(fileURLWithPath: other))
        let refused = try Binaries.run(
            "vault-server",
            ["classroom", "status", "--data", classroom.dataDirectory, "--store-key-file", other]
        )
        #expect(refused.status == 77 && refused.stderr.contains("does not open this server's store"), "\(refused.stderr)")
    }
}

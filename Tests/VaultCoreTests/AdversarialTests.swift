import Foundation
import Testing
import VaultAPI
@_spi(Testing) import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

/// Every attack of the hostile review (issue "Trust") against the vault library, each named after the attack.
@Suite(.ownThreads)
struct AdversarialTests {
    let directory = TemporaryDirectory()
    var paths: VaultPaths { VaultPaths(directory: directory.file("vault")) }

    func write(_ data: Data?, _ path: String) throws {
        unlink(path)
        if let data { try data.write(to: URL(fileURLWithPath: path)) }
    }

    func read(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test("interrupted key rotate x {rotating, recovery, wrong password}: never deletes the only key, data stays readable")
    func interruptedRotationWithAnotherPassword() throws {
        do {
            let vault = try TestVault.create(in: directory, password: "main")
            try vault.setSetting("cache.ttl_days", to: "5")
            try vault.addSlot(label: "recovery", password: TestVault.secret("recovery"), iterations: TestVault.iterations)
        }
        let originalDB = try read(paths.database)
        let originalKey = try read(paths.keyFile)
        do { try TestVault.open(in: directory, password: "main").rotateKey(password: TestVault.secret("main")) }
        let rotatedDB = try read(paths.database)
        let rotatedKey = try read(paths.keyFile)

        // (name, vault.db, vault.key, vault.db.rotating, vault.key.rotating, past the commit point)
        let states: [(String, Data, Data, Data?, Data?, Bool)] = [
            ("export written", originalDB, originalKey, rotatedDB, nil, false),
            ("new key file written", originalDB, originalKey, rotatedDB, rotatedKey, false),
            ("database renamed (commit)", rotatedDB, originalKey, nil, rotatedKey, true),
            ("both renamed", rotatedDB, rotatedKey, nil, nil, true),
        ]
        for (name, db, key, rotatingDB, rotatingKey, committed) in states {
            for password in ["main", "recovery", "wrong"] {
                try write(db, paths.database)
                try write(key, paths.keyFile)
                try write(rotatingDB, paths.rotatingDatabase)
                try write(rotatingKey, paths.rotatingKeyFile)
                let label = "\(name), \(password)"
                do {
                    let vault = try TestVault.open(in: directory, password: password)
                    #expect(password == "main" || (password == "recovery" && !committed), "\(label) opened")
                    #expect(try vault.settings().ttlDays == 5, "\(label)")
                } catch let error as VaultError {
                    #expect(error.code == .wrongPassword, "\(label): \(error)")
                    #expect(password != "main", "\(label): the rotating password must open: \(error)")
                    if password == "recovery", name == "database renamed (commit)" {
                        // Told why, and which slot works, instead of "wrong password".
                        #expect(error.message.contains("dropped") && error.message.contains("slot 1"), "\(label): \(error.message)")
                    }
                }
                // Whatever was typed, the data is still readable with the password the rotation kept (or, before
                // the commit point, the old one), and nothing the committed database needs was deleted.
                let after = try TestVault.open(in: directory, password: "main")
                #expect(try after.settings().ttlDays == 5, "\(label): data lost")
                #expect(after.verify().ok, "\(label)")
                #expect(try read(paths.database) == (committed ? rotatedDB : originalDB), "\(label)")
            }
        }
    }

    @Test("a failed rename keeps its source: after the commit point it may be the only copy")
    func failedRenameDeletesSource() throws {
        let source = directory.file("only-copy")
        try Data("new key".utf8).write(to: URL(fileURLWithPath: source))
        let target = directory.file("occupied")
        try FileManager.default.createDirectory(atPath: target + "/inside", withIntermediateDirectories: true)
        #expect(throws: VaultError.self) { try SecureFiles.rename(source, to: target) }
        #expect(try read(source) == Data("new key".utf8))
    }

    @Test("a key file of many expensive slots is refused before any derivation, and says why")
    func keyFileCostBomb() throws {
        _ = try TestVault.create(in: directory)
        let original = try KeyFile.decode(try read(paths.keyFile))
        // 2,800 slots at 10,000,000 rounds (about 3 hours of KDF if it ran), then 3 slots over the total.
        for (count, iterations) in [(2_800, 10_000_000), (3, 10_000_000), (17, 1_000)] {
            var hostile = original
            hostile.slots = (1...count).map { index in
                var slot = original.slots[0]
                slot.id = index
                slot.kdf.iterations = iterations
                return slot
            }
            #expect(throws: KeyFileError.self) { try hostile.encoded() }
            try hostile.encodedWithoutLimits().write(to: URL(fileURLWithPath: paths.keyFile))
            let clock = ContinuousClock()
            let elapsed = clock.measure {
                #expect(throws: VaultError.self) { _ = try TestVault.open(in: directory) }
            }
            print("refused a key file of \(count) slots x \(iterations) rounds in \(elapsed)")
        }
        try original.encoded().write(to: URL(fileURLWithPath: paths.keyFile))
        _ = try TestVault.open(in: directory)
    }

    @Test("slot ids and labels are bounded: no overflow at Int.max, no key file its reader refuses")
    func slotIDOverflowAndLongLabels() throws {
        _ = try TestVault.create(in: directory)
        var file = try KeyFile.decode(try read(paths.keyFile))
        var hostile = file
        hostile.slots[0].id = Int.max
        try hostile.encodedWithoutLimits().write(to: URL(fileURLWithPath: paths.keyFile))
        #expect(throws: VaultError.self) { _ = try TestVault.open(in: directory) }
        try file.encoded().write(to: URL(fileURLWithPath: paths.keyFile))

        var vault: Vault? = try TestVault.open(in: directory)
        let long = String(repeating: "L", count: 100_000)
        #expect(throws: VaultError.self) { try vault?.addSlot(label: long, password: TestVault.secret("x"), iterations: 1_000) }
        #expect(throws: VaultError.self) { try vault?.addSlot(label: "tab\there", password: TestVault.secret("x"), iterations: 1_000) }
        for index in 2...KeyFile.Limits.maxSlots {
            try vault?.addSlot(label: "slot \(index)", password: TestVault.secret("p\(index)"), iterations: 1_000)
        }
        let full = try #require(try? KeyFile.decode(try read(paths.keyFile)))
        #expect(full.slots.count == KeyFile.Limits.maxSlots)
        #expect(throws: VaultError.self) { try vault?.addSlot(label: "one more", password: TestVault.secret("x"), iterations: 1_000) }
        vault = nil
        // Every file the writer produced is one the reader takes.
        _ = try TestVault.open(in: directory, password: "p16")

        // The highest id in use does not make the next one overflow: the lowest free id is taken.
        file.slots[0].id = KeyFile.Limits.maxSlotID
        // The slot's creation time is the caller's (the vault passes its injected clock).
        let id = try file.addSlot(
            label: "next",
            dataKey: SecretBytes.random(count: 32),
            password: TestVault.secret("n"),
            iterations: 1_000,
            createdAt: Date()
        )
        #expect(id == 1)
    }

    @Test("a symlinked vault directory is refused, never followed; the path is not resolved")
    func symlinkedVaultDirectory() throws {
        let real = directory.file("real")
        _ = try Vault.create(paths: VaultPaths(directory: real), password: TestVault.secret("pw"), iterations: 1_000)
        let link = directory.file("link")
        symlink(real, link)
        #expect(VaultPaths(directory: link + "/").directory == link)
        let error = #expect(throws: VaultError.self) {
            _ = try Vault.open(paths: VaultPaths(directory: link), password: TestVault.secret("pw"))
        }
        #expect(error?.code == .insecureFiles)
        #expect(error?.message.contains("symbolic link") == true)
        // Creating through a link (to an empty directory) is refused too, and nothing is written behind it.
        let empty = directory.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        symlink(empty, directory.file("link-to-empty"))
        #expect(throws: VaultError.self) {
            _ = try Vault.create(paths: VaultPaths(directory: directory.file("link-to-empty")), password: TestVault.secret("pw"), iterations: 1_000)
        }
        #expect(TestVault.snapshot(empty).isEmpty)
    }

    @Test("a vault directory owned by another user is refused with a fix")
    func foreignOwner() throws {
        guard geteuid() == 0 else {
            Issue.record("this test needs root to chown a directory to another user; CI runs as root")
            return
        }
        _ = try TestVault.create(in: directory)
        chown(paths.directory, 65534, 65534)
        let error = #expect(throws: VaultError.self) { _ = try TestVault.open(in: directory) }
        #expect(error?.code == .insecureFiles)
        #expect(error?.message.contains("another user") == true)
        chown(paths.directory, 0, 0)
        _ = try TestVault.open(in: directory)
    }

    @Test("files are reached through the opened directory: renaming it away and putting another in its place changes nothing")
    func directorySwappedWhileOpen() throws {
        let vault = try TestVault.create(in: directory)
        let moved = directory.file("moved")
        #expect(rename(paths.directory, moved) == 0)
        try FileManager.default.createDirectory(atPath: paths.directory, withIntermediateDirectories: false)
        try vault.setSetting("cache.ttl_days", to: "4")
        #expect(TestVault.snapshot(paths.directory).isEmpty, "a write went to the swapped-in directory")
        _ = consume vault
        let reopened = try Vault.open(paths: VaultPaths(directory: moved), password: TestVault.secret(TestVault.password))
        #expect(try reopened.settings().ttlDays == 4)
    }

    @Test("two inits at once: exactly one creates the vault, the other is told it exists; never an overwrite")
    func concurrentInit() async throws {
        for round in 0..<5 {
            let paths = VaultPaths(directory: directory.file("race-\(round)"))
            let results = await withTaskGroup(of: Result<String, any Error>.self) { group in
                for password in ["first", "second"] {
                    group.addTask {
                        Result { try Vault.create(paths: paths, password: TestVault.secret(password), iterations: 1_000).vaultID }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let created = results.compactMap { try? $0.get() }
            #expect(created.count == 1, "round \(round): \(results)")
            for case .failure(let error) in results { #expect((error as? VaultError)?.code == .vaultExists, "\(error)") }
            // The vault that exists is the one that said so.
            let opened = ["first", "second"].compactMap { try? Vault.open(paths: paths, password: TestVault.secret($0)).vaultID }
            #expect(opened == created)
        }
    }

    @Test("an init interrupted after placing its key file is finished by the next open")
    func interruptedInit() throws {
        do { _ = try TestVault.create(in: directory) }
        #expect(rename(paths.database, paths.stagingDatabase) == 0)
        let vault = try TestVault.open(in: directory)
        #expect(vault.verify().ok)
        #expect(!SecureFiles.exists(paths.stagingDatabase))
    }

    @Test("a failed open closes its database handle exactly once: 300 wrong keys leave no handle or descriptor behind")
    func databaseClosedTwice() throws {
        do { _ = try TestVault.create(in: directory) }
        // Descriptors of this process open on this test's database (other tests run beside this one).
        let database = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/0").isEmpty ? "" : paths.database
        let descriptors = {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).filter {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == database
            }.count
        }
        let before = descriptors()
        let wrongKey = try SecretBytes.random(count: 32)
        for _ in 0..<300 {
            #expect(throws: DatabaseError.self) {
                _ = try Database(path: paths.database, encryption: .rawKey(wrongKey, salt: [UInt8](repeating: 1, count: 16)))
            }
        }
        #expect(before == 0)
        #expect(descriptors() == 0)
    }

    @Test("a stored answer that does not decode is never uploaded as null: it becomes a dead letter and verify reports it")
    func undecodableAnswerUploadedAsNull() throws {
        let vault = try TestVault.create(in: directory)
        let (document, bytes) = TestDocuments.served("quiz")
        _ = try vault.storeAssessment(document, bytes: bytes, etag: nil, diskSpace: .fixed(1 << 40))
        let attempt = try vault.openAttempt(on: "quiz")
        let responseID = try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("keep me"))
        try vault.database.execute("UPDATE responses SET answer = '{broken' WHERE id = ?", [responseID])
        #expect(try vault.queuedResponses(now: Date(), ignoreBackoff: true).isEmpty)
        let letters = try vault.deadLetters()
        #expect(letters.count == 1)
        #expect(letters.first?.reason.contains("could not be read back") == true)
        if case .object(let payload)? = letters.first?.payload {
            #expect(payload["answer"] == .string("unreadable"))
        } else {
            Issue.record("no payload")
        }
        let report = vault.verify()
        #expect(!report.ok)
        #expect(report.problems.contains { $0.contains(responseID) })
    }

    @Test(
        "a stored value of another type than its column (text in a time, a time in a key-value row that is not milliseconds) stops the command that reads it with a sentence naming it, and verify lists each"
    )
    func mistypedValuesNamed() throws {
        let vault = try TestVault.create(in: directory)
        let (document, bytes) = TestDocuments.served("quiz")
        _ = try vault.storeAssessment(document, bytes: bytes, etag: nil, diskSpace: .fixed(1 << 40))
        let attempt = try vault.openAttempt(on: "quiz")
        try vault.recordAnswer(attemptID: attempt.id, questionID: "q1", answer: .string("keep me"))
        #expect(vault.verify().ok)
        try vault.database.execute("UPDATE attempts SET started_at = 'last tuesday' WHERE id = ?", [attempt.id])
        try vault.database.execute("INSERT OR REPLACE INTO vault_meta (key, value) VALUES ('last_sync_at', 'yesterday')")
        #expect {
            _ = try vault.attempt(attempt.id)
        } throws: { error in
            (error as? StoredValueError) == StoredValueError(table: "attempts", column: "started_at", problem: "is not an integer")
        }
        #expect(throws: StoredValueError(table: "vault_meta", column: "last_sync_at", problem: "is not a time in milliseconds")) {
            _ = try vault.status()
        }
        let report = vault.verify()
        #expect(!report.ok)
        #expect(report.problems.contains { $0.contains("attempts") && $0.contains("started_at") }, "\(report.problems)")
        #expect(report.problems.contains { $0.contains("vault_meta") && $0.contains("last_sync_at") }, "\(report.problems)")
        // The student's sentence names where, never the value.
        let sentence = StoredValueError(table: "attempts", column: "started_at", problem: "is not an integer").vaultError
        #expect(sentence.code == .damagedRow && sentence.message.contains("attempts") && !sentence.message.contains("tuesday"))
    }
}

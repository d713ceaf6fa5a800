import Foundation
import Testing
import VaultCore
import VaultTestSupport

#if canImport(Glibc)
import Glibc
import VaultAPI
#endif

/// Every I/O call a command makes, failed one at a time (as SQLite's own suites do), with an LD_PRELOAD shim
/// (Tests/FaultShim/faultshim.c, built here): the command fails with a plain sentence (74) or succeeds, and
/// afterwards the vault opens, verifies, keeps every answer saved before, and holds no temporary file.
@Suite(.ownThreads)
struct IOFaultTests {
    static let shim: String? = {
        let output = NSTemporaryDirectory() + "/vault-faultshim-\(getpid()).so"
        let built = try? Binaries.system(
            "cc",
            ["-shared", "-fPIC", "-O1", "-o", output, Binaries.repositoryRoot + "/Tests/FaultShim/faultshim.c", "-ldl"]
        )
        return built?.status == 0 ? output : nil
    }()

    struct Run {
        let status: Int32
        let stderr: String
    }

    /// Runs `vault` with the shim failing call `at` (0: none), returning the result and how many calls it counted.
    static func faulty(_ arguments: [String], stdin: String, at: Int, errno: String = "EIO", root: TemporaryDirectory) throws -> (Run, Int) {
        let countFile = root.file("count-\(at)")
        let result = try Binaries.run(
            "vault",
            arguments,
            stdin: stdin,
            environment: ["LD_PRELOAD": try #require(shim), "FAULT_AT": "\(at)", "FAULT_ERRNO": errno, "FAULT_COUNT_FILE": countFile]
        )
        let count = Int(((try? String(contentsOfFile: countFile, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        return (Run(status: result.status, stderr: result.stderr), count)
    }

    static func expectPlainFailure(_ run: Run, _ label: String) {
        #expect(run.status == 0 || run.status == 74, "\(label): exit \(run.status): \(run.stderr)")
        if run.status != 0 {
            #expect(!run.stderr.contains("SQLite") && !run.stderr.contains("errno"), "\(label): \(run.stderr)")
        }
    }

    /// The names of temporary files a failed command must not leave behind (after the next open cleaned up).
    static func leftovers(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter {
            $0.contains(".tmp-") || $0.hasSuffix(".rotating") || $0 == "vault.db.init" || $0.hasSuffix("-journal")
        }
    }

    @Test("init: every I/O call failed in turn; afterwards either no vault or a whole one, never half of one")
    func initFaults() throws {
        let root = TemporaryDirectory("faults-init")
        let arguments = { (path: String) in ["init", "--vault", path, "--kdf-iterations", "1000", "--new-password-stdin"] }
        let (clean, points) = try Self.faulty(arguments(root.file("count")), stdin: "pw-1\n", at: 0, root: root)
        #expect(clean.status == 0 && points > 10)
        for point in 1...points {
            let path = root.file("v\(point)")
            let (run, _) = try Self.faulty(arguments(path), stdin: "pw-1\n", at: point, errno: point % 2 == 0 ? "ENOSPC" : "EIO", root: root)
            Self.expectPlainFailure(run, "init fault \(point)")
            let verify = try Binaries.run("vault", ["verify", "--vault", path, "--password-stdin"], stdin: "pw-1\n")
            let exists = FileManager.default.fileExists(atPath: path + "/vault.key")
            // No vault (66/73: "there is no vault"), or a whole vault that verifies.
            #expect(exists ? verify.status == 0 : verify.status != 0, "init fault \(point): \(run.stderr) / \(verify.stderr)")
            if run.status == 0 { #expect(verify.status == 0) }
            #expect(Self.leftovers(path).isEmpty, "init fault \(point): \(Self.leftovers(path))")
        }
        print("I/O faults: init has \(points) fault points, all tried")
    }

    /// A vault signed in to a live server with algebra-1 downloaded and q1 answered "b" (not yet uploaded).
    static func template() throws -> (CLIVault, ServerProcess) {
        let vault = CLIVault()
        try vault.initialize()
        let server = try ServerProcess()
        try vault.run(
            ["login", "--server", server.url, "--user", "demo", "--vault", vault.path, "--password-stdin", "--server-password-stdin"],
            stdin: "pw-1\ndemo-password\n"
        )
        #expect(try vault.unlocked(["download", "algebra-1"]).status == 0)
        #expect(try vault.answer("algebra-1", "q1", "b").status == 0)
        return (vault, server)
    }

    /// The answers `vault show` lists for algebra-1, by question id (JSON values), or nil when it cannot be read.
    static func answers(_ path: String, password: String = "pw-1") throws -> [String: String]? {
        let show = try Binaries.run("vault", ["show", "algebra-1", "--json", "--vault", path, "--password-stdin"], stdin: password + "\n")
        guard show.status == 0, let questions = show.json?["questions"] as? [[String: Any]] else { return nil }
        var answers: [String: String] = [:]
        for question in questions {
            if let id = question["id"] as? String, let answer = question["answer"], !(answer is NSNull) { answers[id] = "\(answer)" }
        }
        return answers
    }

    struct Command {
        let name: String
        let arguments: [String]
        let stdin: String
        /// Checks the vault at `path` after the command ran with one fault (`run`), beyond the common checks.
        var check: (_ path: String, _ run: Run, _ label: String) throws -> Void = { _, _, _ in }
    }

    /// Runs `command` once to count its fault points, then once per point on a fresh copy of `template`.
    static func loop(_ command: Command, template: String, root: TemporaryDirectory) throws {
        let countCopy = root.file("count-\(command.name)")
        try FileManager.default.copyItem(atPath: template, toPath: countCopy)
        let (clean, points) = try Self.faulty(command.arguments + ["--vault", countCopy], stdin: command.stdin, at: 0, root: root)
        #expect(clean.status == 0 && points > 0, "\(command.name): \(clean.stderr)")
        for point in 1...max(points, 1) {
            let path = root.file("\(command.name)-\(point)").replacingOccurrences(of: " ", with: "-")
            try FileManager.default.copyItem(atPath: template, toPath: path)
            let (run, _) = try Self.faulty(
                command.arguments + ["--vault", path],
                stdin: command.stdin,
                at: point,
                errno: point % 2 == 0 ? "ENOSPC" : "EIO",
                root: root
            )
            let label = "\(command.name) fault \(point)"
            Self.expectPlainFailure(run, label)
            try command.check(path, run, label)
            #expect(Self.leftovers(path).isEmpty, "\(label): \(Self.leftovers(path))")
        }
        print("I/O faults: \(command.name) has \(points) fault points, all tried")
    }

    @Test("answer, passwd and key rotate: every I/O call failed in turn; the vault opens, verifies and keeps every answer saved before")
    func commandFaults() throws {
        let root = TemporaryDirectory("faults-commands")
        let (vault, server) = try Self.template()
        server.stop()
        let keepsAnswer: (String, Run, String) throws -> Void = { path, run, label in
            // Exactly one password opens it (passwd); the vault verifies; the answer saved before is there.
            let opensOld = try Binaries.run("vault", ["verify", "--vault", path, "--password-stdin"], stdin: "pw-1\n").status == 0
            let opensNew = try Binaries.run("vault", ["verify", "--vault", path, "--password-stdin"], stdin: "pw-2\n").status == 0
            #expect(opensOld != opensNew, "\(label): old \(opensOld), new \(opensNew): \(run.stderr)")
            let answers = try Self.answers(path, password: opensOld ? "pw-1" : "pw-2")
            #expect(answers?["q1"] == "b", "\(label): the answer saved before is gone")
            if label.hasPrefix("answer"), run.status == 0 { #expect(answers?["q3"] == "1" || answers?["q3"] == "true", "\(label)") }
        }
        let commands = [
            Command(name: "answer", arguments: ["answer", "algebra-1", "q3", "--password-stdin"], stdin: "pw-1\ntrue\n", check: keepsAnswer),
            Command(
                name: "passwd",
                arguments: ["passwd", "--password-stdin", "--new-password-stdin", "--kdf-iterations", "1000"],
                stdin: "pw-1\npw-2\n",
                check: keepsAnswer
            ),
            Command(name: "key rotate", arguments: ["key", "rotate", "--password-stdin"], stdin: "pw-1\n", check: keepsAnswer),
        ]
        for command in commands { try Self.loop(command, template: vault.path, root: root) }
    }

    @Test(
        "download and sync against a live server: every disk I/O call failed in turn; nothing half-stored, nothing lost, sync converges exactly once"
    )
    func networkCommandFaults() throws {
        let root = TemporaryDirectory("faults-network")
        let (vault, server) = try Self.template()
        let verifies: (String) throws -> Bool = { path in
            try Binaries.run("vault", ["verify", "--vault", path, "--password-stdin"], stdin: "pw-1\n").status == 0
        }
        let download = Command(name: "download", arguments: ["download", "reading-fa-en", "--password-stdin"], stdin: "pw-1\n") { path, run, label in
            #expect(try verifies(path), "\(label): \(run.stderr)")
            #expect(try Self.answers(path)?["q1"] == "b", "\(label): the answer saved before is gone")
            // The new assessment is there whole (it opens) or not at all.
            let list = try Binaries.run("vault", ["list", "--json", "--vault", path, "--password-stdin"], stdin: "pw-1\n")
            let listed = list.stdout.contains("reading-fa-en")
            let opens = try Binaries.run("vault", ["show", "reading-fa-en", "--vault", path, "--password-stdin"], stdin: "pw-1\n").status == 0
            #expect(listed == opens, "\(label): listed \(listed), opens \(opens)")
            if run.status == 0 { #expect(opens, "\(label)") }
        }
        let sync = Command(name: "sync", arguments: ["sync", "--password-stdin"], stdin: "pw-1\n") { path, run, label in
            #expect(try verifies(path), "\(label): \(run.stderr)")
            #expect(try Self.answers(path)?["q1"] == "b", "\(label): the answer is gone")
            // A clean sync afterwards converges: nothing left to send.
            let again = try Binaries.run("vault", ["sync", "--json", "--vault", path, "--password-stdin"], stdin: "pw-1\n")
            #expect(again.status == 0, "\(label): \(again.stderr)")
            #expect(again.json?["remaining"] as? Int == 0, "\(label): \(again.stdout)")
        }
        try Self.loop(download, template: vault.path, root: root)
        try Self.loop(sync, template: vault.path, root: root)
        // Every copy uploaded the same response: the server holds it once.
        let received = try CLIFixtures.received(server)
        #expect(received.responses.filter { $0.questionId == "q1" }.count == 1)
        #expect(Set(received.responses.map(\.id)).count == received.responses.count)
    }

    @Test(
        "power loss during `vault answer`: every prefix of its writes (at an fsync, or torn between two), replayed on a copy, opens, verifies and holds every answer whose command had returned"
    )
    func powerLossReplay() throws {
        let root = TemporaryDirectory("power-loss")
        let (vault, server) = try Self.template()
        server.stop()
        let before = root.file("before")
        try FileManager.default.copyItem(atPath: vault.path, toPath: before)
        let live = URL(fileURLWithPath: vault.path).resolvingSymlinksInPath().path
        let log = root.file("writes.log")
        // Three saves: a new answer, another, then replacing the first (a pending answer rewritten).
        let steps: [(question: String, value: String)] = [("q2", "a,c"), ("q3", "true"), ("q1", "d")]
        var expected: [[String: String]] = [try #require(try Self.answers(vault.path))]
        for step in steps {
            let result = try Binaries.run(
                "vault",
                ["answer", "algebra-1", step.question, "--vault", vault.path, "--password-stdin"],
                stdin: "pw-1\n\(step.value)\n",
                environment: ["LD_PRELOAD": try #require(Self.shim), "FAULT_LOG": log]
            )
            #expect(result.status == 0, "\(result.stderr)")
            // A marker: every fsync after it belongs to a later command.
            let handle = try #require(FileHandle(forWritingAtPath: log))
            handle.seekToEndOfFile()
            handle.write(Data("M 0  0 0\n".utf8))
            try handle.close()
            expected.append(try #require(try Self.answers(vault.path)))
        }
        let operations = try PowerLossLog.parse(Data(contentsOf: URL(fileURLWithPath: log)))
        let syncs = operations.indices.filter { operations[$0].isSync }
        #expect(syncs.count >= 3 * steps.count, "\(syncs.count) fsyncs")
        // Every prefix ending at an fsync (what the disk promised), and every torn state between two of them: the
        // synced prefix plus the first j of the writes after it (power lost while those were reaching the disk).
        let ends = operations.indices.filter { !operations[$0].isMarker }
        for (number, end) in ends.enumerated() {
            let copy = root.file("prefix-\(number)")
            try FileManager.default.copyItem(atPath: before, toPath: copy)
            try PowerLossLog.replay(operations[...end], from: live, onto: copy)
            let returned = operations[...end].filter(\.isMarker).count
            let boundary = operations[end].isSync ? "an fsync" : "a write not yet synced"
            let label = "prefix of \(end + 1) operations ending at \(boundary) (\(returned) commands returned)"
            let verify = try Binaries.run("vault", ["verify", "--vault", copy, "--password-stdin"], stdin: "pw-1\n")
            #expect(verify.status == 0, "\(label): \(verify.stderr)")
            // What a returned command saved is there; the command in flight is there wholly or not at all.
            let answers = try Self.answers(copy)
            let allowed = expected[returned...min(returned + 1, expected.count - 1)]
            #expect(answers.map { allowed.contains($0) } == true, "\(label): \(answers ?? [:])")
        }
        print("power loss: \(ends.count) prefixes (\(syncs.count) at fsyncs) of \(steps.count) answers replayed, each opened and verified")
    }
}

/// The shim's FAULT_LOG: writes, fsyncs, unlinks, truncations and renames in order, replayable onto a copy.
enum PowerLossLog {
    enum Operation {
        case write(path: String, offset: UInt64, bytes: Data)
        case sync(path: String)
        case unlink(path: String)
        case truncate(path: String, size: UInt64)
        case rename(from: String, to: String)
        case marker

        var isSync: Bool { if case .sync = self { true } else { false } }
        var isMarker: Bool { if case .marker = self { true } else { false } }
    }

    static func parse(_ data: Data) throws -> [Operation] {
        let bytes = [UInt8](data)
        var operations: [Operation] = []
        var index = 0
        func field() -> String {
            var end = index
            while bytes[end] != UInt8(ascii: " ") && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            defer { index = end + 1 }
            return String(decoding: bytes[index..<end], as: UTF8.self)
        }
        while index < bytes.count {
            let tag = field()
            let length = Int(field()) ?? 0
            let path = String(decoding: bytes[index..<index + length], as: UTF8.self)
            index += length + 1
            let a = UInt64(field()) ?? 0
            let b = Int(field()) ?? 0
            switch tag {
            case "W":
                operations.append(.write(path: path, offset: a, bytes: Data(bytes[index..<index + b])))
                index += b
            case "S": operations.append(.sync(path: path))
            case "U": operations.append(.unlink(path: path))
            case "T": operations.append(.truncate(path: path, size: a))
            case "R":
                let parts = path.split(separator: "\n", maxSplits: 1).map(String.init)
                operations.append(.rename(from: parts[0], to: parts.count > 1 ? parts[1] : ""))
            case "M": operations.append(.marker)
            default: throw CocoaError(.fileReadCorruptFile)
            }
        }
        return operations
    }

    /// Applies `operations` on paths under `live` to the same files under `copy`; other paths are ignored.
    static func replay(_ operations: ArraySlice<Operation>, from live: String, onto copy: String) throws {
        func mapped(_ path: String) -> String? {
            path.hasPrefix(live + "/") ? copy + path.dropFirst(live.count) : nil
        }
        for operation in operations {
            switch operation {
            case .write(let path, let offset, let bytes):
                guard let target = mapped(path) else { continue }
                if !FileManager.default.fileExists(atPath: target) { FileManager.default.createFile(atPath: target, contents: nil) }
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: target))
                try handle.seek(toOffset: offset)
                try handle.write(contentsOf: bytes)
                try handle.close()
            case .truncate(let path, let size):
                guard let target = mapped(path) else { continue }
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: target))
                try handle.truncate(atOffset: size)
                try handle.close()
            case .unlink(let path):
                if let target = mapped(path) { try? FileManager.default.removeItem(atPath: target) }
            case .rename(let from, let to):
                if let source = mapped(from), let destination = mapped(to) {
                    _ = Glibc.rename(source, destination)
                }
            case .sync, .marker:
                continue
            }
        }
    }
}

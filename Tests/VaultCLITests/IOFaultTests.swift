import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Every I/O call a command makes, failed one at a time (as SQLite's own suites do), with an LD_PRELOAD shim
/// (Tests/FaultShim/faultshim.c, built here): the command fails with a plain sentence (74) or succeeds, and
/// afterwards the vault opens, verifies, keeps every answer saved before, and holds no temporary file.
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

    @Test("answer, passwd and key rotate: every I/O call failed in turn; the vault opens, verifies and keeps every answer saved before")
    func commandFaults() throws {
        let root = TemporaryDirectory("faults-commands")
        let vault = CLIVault()
        let template = vault.path
        try vault.initialize()
        // An assessment and one saved answer, through the real commands (a local server for the download).
        let server = try ServerProcess()
        try vault.run(
            ["login", "--server", server.url, "--user", "demo", "--vault", template, "--password-stdin", "--server-password-stdin"],
            stdin: "pw-1\ndemo-password\n"
        )
        #expect(try vault.unlocked(["download", "algebra-1"]).status == 0)
        #expect(try vault.answer("algebra-1", "q1", "b").status == 0)
        server.stop()

        let commands: [(name: String, arguments: [String], stdin: String)] = [
            ("answer", ["answer", "algebra-1", "q3", "--password-stdin"], "pw-1\ntrue\n"),
            ("passwd", ["passwd", "--password-stdin", "--new-password-stdin", "--kdf-iterations", "1000"], "pw-1\npw-2\n"),
            ("key rotate", ["key", "rotate", "--password-stdin"], "pw-1\n"),
        ]
        for command in commands {
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
                // Exactly one password opens it (passwd); the vault verifies; the answer saved before is there.
                let opensOld = try Binaries.run("vault", ["verify", "--vault", path, "--password-stdin"], stdin: "pw-1\n").status == 0
                let opensNew = try Binaries.run("vault", ["verify", "--vault", path, "--password-stdin"], stdin: "pw-2\n").status == 0
                #expect(opensOld != opensNew, "\(label): old \(opensOld), new \(opensNew): \(run.stderr)")
                let password = opensOld ? "pw-1" : "pw-2"
                let show = try Binaries.run("vault", ["show", "algebra-1", "--json", "--vault", path, "--password-stdin"], stdin: password + "\n")
                let answers = (show.json?["questions"] as? [[String: Any]] ?? []).map { $0["answer"] }
                #expect(answers.first as? String == "b", "\(label): the answer saved before is gone")
                if command.name == "answer", run.status == 0 { #expect(answers.count > 2 && answers[2] as? Bool == true, "\(label)") }
                #expect(Self.leftovers(path).isEmpty, "\(label): \(Self.leftovers(path))")
            }
            print("I/O faults: \(command.name) has \(points) fault points, all tried")
        }
    }
}
